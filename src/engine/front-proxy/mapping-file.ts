/**
 * kcp's front-proxy `--mapping-file`: a YAML list of `{path, backend, backend_server_ca, …}`. Each `path` is a
 * prefix (it matches itself and everything below it; the longest prefix wins); a request matching it is sent to
 * `backend` with its path unchanged. A `/clusters` entry does not name a backend: it turns on the built-in
 * resolver, which finds each workspace's shard in the index. kcp's client-certificate and request-header fields
 * are accepted (kcp's files carry them) but have no effect: kcpt forwards the caller's Authorization header.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

export interface PathMapping {
  /** Normalised prefix without a trailing slash (`''` for `/`). */
  prefix: string;
  backend: string;
  /** PEM of `backend_server_ca`, when given. */
  backendCaPem?: string;
}

export interface MappingConfig {
  mappings: PathMapping[];
  /** A `/clusters` entry is present: resolve workspace paths through the index. */
  resolveClusters: boolean;
  /** Fields present that kcpt ignores (for a start-up note). */
  ignoredFields: string[];
}

const knownFields = new Set(['path', 'backend', 'backend_server_ca', 'proxy_client_cert', 'proxy_client_key', 'user_header', 'group_header', 'extra_header_prefix']);
const ignored = ['proxy_client_cert', 'proxy_client_key', 'user_header', 'group_header', 'extra_header_prefix'];

export class MappingFileError extends Error {}

export function loadMappingFile(file: string): MappingConfig {
  let doc: unknown;
  try {
    doc = parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new MappingFileError(`--mapping-file ${file}: ${(err as Error).message}`);
  }
  return parseMappings(doc ?? [], file);
}

export function parseMappings(doc: unknown, file: string): MappingConfig {
  if (!Array.isArray(doc)) throw new MappingFileError(`--mapping-file ${file}: expected a YAML list of {path, backend} entries`);
  const config: MappingConfig = { mappings: [], resolveClusters: false, ignoredFields: [] };
  doc.forEach((entry: unknown, i) => {
    const where = `--mapping-file ${file}: entry ${i + 1}`;
    if (!entry || typeof entry !== 'object') throw new MappingFileError(`${where}: expected {path, backend}`);
    const e = entry as Record<string, unknown>;
    const unknown = Object.keys(e).filter((k) => !knownFields.has(k));
    if (unknown.length > 0) throw new MappingFileError(`${where}: unknown field ${unknown.map((k) => JSON.stringify(k)).join(', ')}`);
    if (typeof e.path !== 'string' || !e.path.startsWith('/')) throw new MappingFileError(`${where}: path must be a string starting with /`);
    for (const f of ignored) if (e[f] !== undefined && !config.ignoredFields.includes(f)) config.ignoredFields.push(f);
    const prefix = e.path.replace(/\/+$/, '');
    if (prefix === '/clusters') {
      config.resolveClusters = true;
      return;
    }
    if (typeof e.backend !== 'string') throw new MappingFileError(`${where}: backend must be a URL like https://127.0.0.1:6443`);
    let url: URL;
    try {
      url = new URL(e.backend);
    } catch {
      throw new MappingFileError(`${where}: backend ${JSON.stringify(e.backend)} is not a URL`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new MappingFileError(`${where}: backend must be an http(s) URL`);
    let backendCaPem: string | undefined;
    if (e.backend_server_ca !== undefined) {
      try {
        backendCaPem = readFileSync(String(e.backend_server_ca), 'utf8');
      } catch (err) {
        throw new MappingFileError(`${where}: backend_server_ca: ${(err as Error).message}`);
      }
    }
    config.mappings.push({ prefix, backend: e.backend.replace(/\/+$/, ''), ...(backendCaPem ? { backendCaPem } : {}) });
  });
  // Longest prefix first: `/services/apiexport` wins over `/services` and `/`.
  config.mappings.sort((a, b) => b.prefix.length - a.prefix.length);
  return config;
}

/** The mapping for a request path, if any: the prefix itself or anything below it. */
export function matchMapping(mappings: readonly PathMapping[], path: string): PathMapping | undefined {
  return mappings.find((m) => m.prefix === '' || path === m.prefix || path.startsWith(`${m.prefix}/`));
}
