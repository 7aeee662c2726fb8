import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openStore } from './open-store.js';
import type { SqliteStore } from './sqlite-store.js';
import type { Store } from './store.js';

const root = mkdtempSync(join(tmpdir(), 'kcpt-open-store-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('openStore', () => {
  const opened: Store[] = [];
  const open = (url: string, rootDirectory = root) => {
    const store = openStore(url, rootDirectory);
    opened.push(store);
    return store;
  };
  afterEach(() => {
    for (const store of opened.splice(0)) store.close();
  });
  const pathOf = (store: Store) => (store as SqliteStore).path;

  it('defaults to <root>/kcpt.db, creating the root directory', () => {
    const nested = join(root, 'fresh', 'root');
    const store = open('', nested);
    expect(store.name).toBe('sqlite');
    expect(pathOf(store)).toBe(join(nested, 'kcpt.db'));
    expect(existsSync(join(nested, 'kcpt.db'))).toBe(true);
  });

  it('memory:// is the in-process store', () => {
    const store = open('memory://');
    expect(store.name).toBe('memory');
    store.commit([{ type: 'create', key: '/a/b', value: 'x' }]);
    expect(store.get('/a/b')?.value).toBe('x');
  });

  it('sqlite:///abs, sqlite://relative and bare paths name SQLite files (relative to the root directory)', () => {
    expect(pathOf(open(`sqlite://${join(root, 'abs.db')}`))).toBe(join(root, 'abs.db'));
    expect(pathOf(open('sqlite://data/rel.db'))).toBe(resolve(root, 'data/rel.db'));
    expect(pathOf(open('bare.db'))).toBe(resolve(root, 'bare.db'));
    expect(pathOf(open(join(root, 'bare-abs.db')))).toBe(join(root, 'bare-abs.db'));
    expect(pathOf(open('sqlite://:memory:'))).toBe(':memory:');
  });

  it('accepts synchronous=FULL and rejects unknown options', () => {
    expect(open(`sqlite://${join(root, 'full.db')}?synchronous=FULL`).name).toBe('sqlite');
    expect(() => open(`sqlite://${join(root, 'bad.db')}?synchronous=EXTRA`)).toThrow(/NORMAL or FULL/);
    expect(() => open(`sqlite://${join(root, 'bad.db')}?cache=huge`)).toThrow(/unknown sqlite storage option "cache"/);
  });

  it('names the supported schemes when the scheme is unknown', () => {
    expect(() => open('postgres://127.0.0.1:5432')).toThrow(/unsupported storage URL "postgres:\/\/127\.0\.0\.1:5432".*memory:\/\/.*sqlite:\/\/.*etcd:\/\//);
  });

  it('rejects etcd URLs it cannot use before connecting', () => {
    expect(() => open('etcd://')).toThrow(/names no server/);
    expect(() => open('etcd://localhost')).toThrow(/"localhost" is not host:port/);
    expect(() => open('etcd://127.0.0.1:2379?compress=yes')).toThrow(/unknown etcd storage option "compress"/);
    expect(() => open('etcd://127.0.0.1:2379?timeout=soon')).toThrow(/timeout=soon/);
  });
});
