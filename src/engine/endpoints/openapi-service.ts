/**
 * Serves `/openapi/v3` with its per-group-version documents, and `/openapi/v2`, for a cluster's catalog. Documents
 * are built once per catalog revision (clusters with the same resources share it), v2 only when someone asks; the
 * index hash is the document's content hash, so kubectl's HTTP cache refreshes exactly when a document changes.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ClusterCatalog } from '../registry/catalog.js';
import { apiVersionOf, type ResourceType } from '../registry/types.js';
import { buildGroupVersionDocument } from './openapi/document.js';
import { buildOpenAPIIndex } from './openapi/index.js';
import { builtinGroups, builtinSchemas } from '../builtin/index.js';
import type { Schema } from '../machinery/openapi-schemas/index.js';
import { resourceNotFound } from './resource-handler.js';
import { sendBody, sendJson } from './responses.js';
import { documentHash } from './openapi/index.js';
import type { OpenAPIDocument } from './openapi/document.js';
import { buildSwaggerDocument } from './openapi/v2-document.js';
import { swaggerToProtobuf } from './openapi/v2-protobuf.js';
import { serverVersion } from './non-resource.js';

/** Schema maps already in builtinSchemas: the built-in groups'. */
const builtinMaps = new Set<unknown>(builtinGroups.map((group) => group.schemas));

/** The built-in schemas plus the ones custom resource types bring. */
function schemasFor(resources: readonly ResourceType[]): Record<string, Schema> {
  const extra = new Set(resources.map((rt) => rt.schemas).filter((s) => s && !builtinMaps.has(s)));
  if (extra.size === 0) return builtinSchemas;
  const merged: Record<string, Schema> = { ...builtinSchemas };
  for (const schemas of extra) Object.assign(merged, schemas);
  return merged;
}

interface CachedDocs {
  /** Each document's hash, computed when a hashed URL first asks for it. */
  hashes?: Map<string, string>;
  /** 'api/v1' | 'apis/<g>/<v>' → serialized document */
  docs: Map<string, string>;
  index: string;
  /** `/openapi/v2`, built on the first request for it. */
  v2?: SwaggerV2;
}

interface SwaggerV2 {
  json: Buffer;
  /** The protobuf form, encoded on the first request for it. */
  protobuf?: Buffer;
  /** kube-openapi's ETag: uppercase hex SHA-512 of the JSON, shared by both forms (they differ by Vary: Accept). */
  etag: string;
  lastModified: Date;
}

/** The media types kube-openapi serves /openapi/v2 in, in its order; both protobuf spellings answer the second. */
export const OPENAPI_V2_JSON = 'application/json';
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const OPENAPI_V2_PROTOBUF_DEPRECATED = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

export class OpenAPIService {
  private readonly cache = new Map<string, CachedDocs>();

  private docsFor(catalog: ClusterCatalog): CachedDocs {
    let cached = this.cache.get(catalog.revision);
    if (cached) return cached;
    const docs = new Map<string, string>();
    for (const g of catalog.groups()) {
      for (const version of g.versions) {
        const resources = catalog.resourceTypes().filter((rt) => rt.group === g.group && rt.version === version);
        const key = g.group === '' ? `api/${version}` : `apis/${apiVersionOf({ group: g.group, version })}`;
        docs.set(key, JSON.stringify(buildGroupVersionDocument({ group: g.group, version }, resources, schemasFor(resources))));
      }
    }
    cached = { docs, index: JSON.stringify(buildOpenAPIIndex(docs)) };
    // Catalog revisions are few (built-ins plus per-cluster CRD sets); keep the cache bounded anyway.
    if (this.cache.size > 256) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(catalog.revision, cached);
    return cached;
  }

  private v2For(catalog: ClusterCatalog): SwaggerV2 {
    const cached = this.docsFor(catalog);
    if (!cached.v2) {
      const docs = [...cached.docs.values()].map((text) => JSON.parse(text) as OpenAPIDocument);
      const json = Buffer.from(JSON.stringify(buildSwaggerDocument(docs, serverVersion.gitVersion)));
      cached.v2 = { json, etag: documentHash(json.toString('utf8')), lastModified: new Date(Math.floor(Date.now() / 1000) * 1000) };
    }
    return cached.v2;
  }

  /** `GET /openapi/v2` as kube-openapi answers it: negotiated form, ETag, Last-Modified, 304, 406. */
  serveV2(catalog: ClusterCatalog, request: FastifyRequest, reply: FastifyReply): FastifyReply {
    reply.header('vary', 'Accept');
    const form = negotiateOpenApiV2(request.headers.accept);
    if (!form) return reply.code(406).send(Buffer.alloc(0));
    const v2 = this.v2For(catalog);
    const body = form === 'json' ? v2.json : (v2.protobuf ??= Buffer.from(swaggerToProtobuf(JSON.parse(v2.json.toString('utf8')))));
    reply.header('etag', `"${v2.etag}"`).header('last-modified', v2.lastModified.toUTCString()).header('accept-ranges', 'bytes');
    if (notModified(request, v2.etag, v2.lastModified)) {
      reply.removeHeader('last-modified');
      return reply.code(304).send();
    }
    return sendBody(reply, 200, form === 'json' ? OPENAPI_V2_JSON : OPENAPI_V2_PROTOBUF, body);
  }

  serve(catalog: ClusterCatalog, path: string, query: URLSearchParams, request: FastifyRequest, reply: FastifyReply) {
    const cached = this.docsFor(catalog);
    if (path === '/openapi/v3' || path === '/openapi/v3/') return sendJson(reply, 200, cached.index);
    const key = path.slice('/openapi/v3/'.length);
    const doc = cached.docs.get(key);
    if (!doc) throw resourceNotFound();
    const etag = (cached.hashes ??= new Map()).get(key) ?? documentHash(doc);
    cached.hashes.set(key, etag);
    reply.header('etag', `"${etag}"`);
    const hash = query.get('hash');
    if (hash) {
      // kube-openapi: a stale hash is a 301 to the document's current URL (here inside the same cluster's prefix).
      if (hash !== etag) {
        const pathname = request.url.split('?')[0]!;
        const location = `${pathname.slice(0, pathname.length - path.length)}/openapi/v3/${key}?hash=${etag}`;
        return sendBody(reply.header('location', location), 301, 'text/html; charset=utf-8', `<a href="${location}">Moved Permanently</a>.\n\n`);
      }
      // Hashed URLs never change content. kube marks them immutable and, for HTTP caches that read only Expires
      // (client-go's disk cache, which kubectl puts under every `create -f` and `apply`), expiring in a year: a
      // client then reads the document from its cache instead of fetching it again for each command.
      reply
        .header('vary', 'Accept')
        .header('cache-control', 'public, immutable')
        .header('expires', new Date(Date.now() + YEAR_MS).toUTCString());
    } else reply.header('cache-control', 'no-cache, private');
    if (notModified(request, etag)) return reply.code(304).send();
    return sendJson(reply, 200, doc);
  }
}

/**
 * Which form of /openapi/v2 an Accept header gets, as kube-openapi picks it (goautoneg: clauses by quality, the
 * more specific first; the first clause any form matches wins, JSON for wildcards); undefined: 406.
 */
export function negotiateOpenApiV2(accept: string | undefined): 'json' | 'protobuf' | undefined {
  const clauses = (accept?.trim() ? accept : '*/*')
    .split(',')
    .map((clause, order) => {
      const [range = '', ...params] = clause.split(';').map((p) => p.trim());
      const [type = '', subtype = ''] = range.toLowerCase().split('/');
      const q = params.map((p) => /^q=([0-9.]+)$/i.exec(p)).find(Boolean);
      return { type, subtype, q: q ? Number(q[1]) : 1, order };
    })
    .filter((c) => c.type !== '' && c.q > 0)
    .sort((a, b) => b.q - a.q || specificity(b) - specificity(a) || a.order - b.order);
  const forms: Array<[string, 'json' | 'protobuf']> = [
    [OPENAPI_V2_JSON, 'json'],
    [OPENAPI_V2_PROTOBUF_DEPRECATED, 'protobuf'],
    [OPENAPI_V2_PROTOBUF, 'protobuf'],
  ];
  for (const c of clauses) {
    for (const [media, form] of forms) {
      const [type, subtype] = media.split('/');
      if ((c.type === type || c.type === '*') && (c.subtype === subtype || c.subtype === '*')) return form;
    }
  }
  return undefined;
}

function specificity(c: { type: string; subtype: string }): number {
  return (c.type === '*' ? 0 : 1) + (c.subtype === '*' ? 0 : 1);
}

const YEAR_MS = 365 * 24 * 3600 * 1000;

/** Go's http.ServeContent conditions for a GET: If-None-Match (weak comparison), else If-Modified-Since. */
function notModified(request: FastifyRequest, etag: string, lastModified?: Date): boolean {
  const noneMatch = request.headers['if-none-match'];
  if (noneMatch !== undefined) {
    return noneMatch.split(',').some((tag) => {
      const t = tag.trim();
      return t === '*' || t.replace(/^W\//, '') === `"${etag}"`;
    });
  }
  const since = request.headers['if-modified-since'];
  if (since === undefined || lastModified === undefined) return false;
  const at = Date.parse(since);
  return !Number.isNaN(at) && lastModified.getTime() <= at;
}
