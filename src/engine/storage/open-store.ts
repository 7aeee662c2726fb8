/**
 * `--storage <url>` → a Store. One small table of drivers keyed by URL scheme (kine's registry idea, without
 * init-time side effects): a new backend is one entry here plus a module that passes contract.ts.
 */
import { isAbsolute, join, resolve } from 'node:path';
import { openEtcdStore, type EtcdStoreOptions } from './etcd-store.js';
import { createMemoryStore } from './memory-store.js';
import { openSqliteStore, type SqliteStoreOptions } from './sqlite-store.js';
import type { Store } from './store.js';
import type { WantedReference } from './value-codec.js';

/** Default file name under the server's root directory. */
export const DEFAULT_DATABASE_FILE = 'kcpt.db';

/** Options every backend honours, set by the server rather than the storage URL. */
export interface CommonStoreOptions {
  /** Compaction never drops the newest this-many revisions (default 1000). */
  keepNewestRevisions?: number;
  /** Texts values under a key prefix are stored compressed against (SQLite only; value-codec.ts). */
  valueReferences?: readonly WantedReference[];
}

type Driver = (location: string, query: URLSearchParams, rootDirectory: string, common: CommonStoreOptions) => Store;

const drivers: Record<string, Driver> = {
  memory: (_location, _query, _root, common) => createMemoryStore({ keepNewestRevisions: common.keepNewestRevisions }),
  sqlite: (location, query, rootDirectory, common) => {
    const path = location === ':memory:' ? location : resolvePath(location, rootDirectory);
    return openSqliteStore(path, { ...sqliteOptions(query), ...common });
  },
  etcd: (location, query, _root, common) => openEtcdStore({ ...etcdOptions(location, query), keepNewestRevisions: common.keepNewestRevisions }),
};

export const SUPPORTED_STORAGE = [
  'memory://',
  'sqlite:///absolute/path.db',
  'sqlite://relative/path.db',
  '<path>',
  'etcd://host:port[,host:port][/prefix]',
];

/**
 * Opens the store named by `url`:
 * - `""` → `<rootDirectory>/kcpt.db`;
 * - `memory://` → in-process memory (nothing persisted);
 * - `sqlite:///abs/path.db`, `sqlite://relative.db`, or a bare path → SQLite; relative paths are resolved against
 *   `rootDirectory`; `sqlite://:memory:` is SQLite without a file; `?synchronous=FULL` survives power loss;
 * - `etcd://host:port[,host:port…][/prefix]` → etcd (`?tls=true` for https, `cafile=`, `certfile=`, `keyfile=` PEM
 *   paths, `timeout=` ms per request); `kcpt start --etcd-servers …` builds this URL.
 */
export function openStore(url: string, rootDirectory: string, common: CommonStoreOptions = {}): Store {
  const trimmed = url.trim();
  if (trimmed === '') return openSqliteStore(join(rootDirectory, DEFAULT_DATABASE_FILE), common);
  const match = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/(.*)$/s.exec(trimmed);
  if (!match) return openSqliteStore(resolvePath(trimmed, rootDirectory), common);
  const scheme = match[1]!.toLowerCase();
  const driver = drivers[scheme];
  if (!driver) {
    throw new Error(
      `unsupported storage URL "${url}": scheme "${scheme}://" is not known; use one of ${SUPPORTED_STORAGE.join(', ')}`,
    );
  }
  const [location = '', queryString = ''] = splitQuery(match[2]!);
  return driver(decodeURIComponent(location), new URLSearchParams(queryString), rootDirectory, common);
}

function splitQuery(rest: string): [string, string] {
  const at = rest.indexOf('?');
  return at === -1 ? [rest, ''] : [rest.slice(0, at), rest.slice(at + 1)];
}

function resolvePath(location: string, rootDirectory: string): string {
  if (location === '') throw new Error('storage URL names no file; use e.g. sqlite:///var/lib/kcpt/kcpt.db');
  return isAbsolute(location) ? location : resolve(rootDirectory, location);
}

function sqliteOptions(query: URLSearchParams): SqliteStoreOptions {
  const options: SqliteStoreOptions = {};
  for (const [name, value] of query) {
    if (name === 'synchronous') {
      const mode = value.toUpperCase();
      if (mode !== 'NORMAL' && mode !== 'FULL') throw new Error(`storage option synchronous=${value}: use NORMAL or FULL`);
      options.synchronous = mode;
    } else {
      throw new Error(`unknown sqlite storage option "${name}" (supported: synchronous=NORMAL|FULL)`);
    }
  }
  return options;
}

/** `etcd://h1:2379,h2:2379/prefix?tls=true&cafile=…` → the etcd store's options. */
function etcdOptions(location: string, query: URLSearchParams): EtcdStoreOptions {
  const slash = location.indexOf('/');
  const hosts = (slash === -1 ? location : location.slice(0, slash)).split(',').map((h) => h.trim()).filter(Boolean);
  const prefix = slash === -1 ? '' : location.slice(slash);
  if (hosts.length === 0) throw new Error('etcd storage URL names no server; use e.g. etcd://127.0.0.1:2379');
  const options: EtcdStoreOptions = { endpoints: [], prefix };
  let scheme = 'http';
  for (const [name, value] of query) {
    if (name === 'tls') scheme = value === 'true' || value === '1' ? 'https' : 'http';
    else if (name === 'cafile') options.caFile = value;
    else if (name === 'certfile') options.certFile = value;
    else if (name === 'keyfile') options.keyFile = value;
    else if (name === 'timeout') {
      const ms = Number(value);
      if (!Number.isSafeInteger(ms) || ms <= 0) throw new Error(`etcd storage option timeout=${value}: use a positive number of milliseconds`);
      options.timeoutMs = ms;
    } else throw new Error(`unknown etcd storage option "${name}" (supported: tls, cafile, certfile, keyfile, timeout)`);
  }
  for (const host of hosts) {
    if (!/^[^\s/:]+:\d+$/.test(host) && !/^\[[0-9a-fA-F:]+\]:\d+$/.test(host)) {
      throw new Error(`etcd storage URL: "${host}" is not host:port`);
    }
    options.endpoints.push(`${scheme}://${host}`);
  }
  return options;
}
