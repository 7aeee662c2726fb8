import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runStoreContract } from './contract.js';
import { cm, inCluster } from './contract-support.js';
import { openSqliteStore, type SqliteStoreOptions } from './sqlite-store.js';
import type { StoreEvent } from './store.js';

const directory = mkdtempSync(join(tmpdir(), 'kcpt-sqlite-store-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
let files = 0;
const freshPath = () => join(directory, `store-${++files}.db`);
const fresh = (options?: SqliteStoreOptions) => () => openSqliteStore(freshPath(), options);

runStoreContract('sqlite', fresh());
// Same cases with every log read forced through the key index instead of the revision walk.
runStoreContract('sqlite, key-index log reads', fresh({ logScanLimit: 0 }));
runStoreContract('sqlite :memory:', () => openSqliteStore(':memory:'));

describe('sqlite store on disk', () => {
  it('keeps objects, revisions, history and the compaction point across close and reopen', () => {
    const path = freshPath();
    const first = openSqliteStore(path);
    for (let i = 0; i < 1200; i++) first.commit([{ type: 'create', key: cm('c1', `k${i}`), value: `v${i}` }]);
    first.commit([{ type: 'update', key: cm('c1', 'k0'), value: 'changed' }]);
    first.commit([{ type: 'delete', key: cm('c1', 'k1') }]);
    while (first.compact(150) > 0);
    first.close();
    expect(() => first.get(cm('c1', 'k0'))).toThrow(/closed/);

    const second = openSqliteStore(path);
    try {
      expect(second.currentRevision()).toBe(1202);
      expect(second.compactedRevision()).toBe(150);
      expect(second.get(cm('c1', 'k0'))).toEqual({ key: cm('c1', 'k0'), value: 'changed', revision: 1201, createRevision: 1 });
      expect(second.get(cm('c1', 'k1'))).toBeUndefined();
      expect(second.count(inCluster('c1'))).toBe(1199);
      expect(second.list(inCluster('c1'), { revision: 1200, limit: 2 }).items.map((kv) => kv.value)).toEqual(['v0', 'v1']);
      const replayed: StoreEvent[] = [];
      second.watch(inCluster('c1'), 1199, (events) => replayed.push(...events));
      expect(replayed.map((e) => [e.type, e.revision])).toEqual([['ADDED', 1200], ['MODIFIED', 1201], ['DELETED', 1202]]);
      const [next] = second.commit([{ type: 'create', key: cm('c1', 'after'), value: 'x' }]);
      expect(next!.revision).toBe(1203);
      expect(replayed).toHaveLength(4);
    } finally {
      second.close();
    }
  });

  it('refuses a second writer on the same file with a clear error', () => {
    const path = freshPath();
    const owner = openSqliteStore(path);
    try {
      expect(() => openSqliteStore(path, { busyTimeoutMs: 50 })).toThrow(/locked by another process/);
      expect(owner.commit([{ type: 'create', key: cm('c1', 'a'), value: 'a' }])[0]!.revision).toBe(1);
    } finally {
      owner.close();
    }
  });

  it('keeps the file bounded under create/delete churn once history is compacted', () => {
    const path = freshPath();
    const value = 'x'.repeat(2000);
    const sizes: number[] = [];
    for (let cycle = 0; cycle < 6; cycle++) {
      const store = openSqliteStore(path);
      for (let i = 0; i < 1500; i++) store.commit([{ type: 'create', key: cm('churn', `k${i}`), value }]);
      for (let i = 0; i < 1500; i++) store.commit([{ type: 'delete', key: cm('churn', `k${i}`) }]);
      while (store.compact(store.currentRevision()) > 0);
      store.close();
      sizes.push(statSync(path).size);
    }
    // Freed pages are handed back or reused: six cycles must not cost six times the first one.
    expect(sizes[5]!).toBeLessThan(sizes[0]! * 1.5);
  });

  it('loses no acknowledged write when the process is killed with SIGKILL', async () => {
    const path = freshPath();
    const fixture = fileURLToPath(new URL('./testdata/crash-writer.mjs', import.meta.url));
    // cwd = the package root, where `--import tsx` resolves.
    const cwd = fileURLToPath(new URL('../../../', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', fixture, path], { cwd, stdio: ['ignore', 'pipe', 'inherit'] });
    const acked: Array<[string, number]> = [];
    let buffered = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        const [word, key, revision] = line.split(' ');
        if (word === 'ack') acked.push([key!, Number(revision)]);
        if (acked.length >= 500 && !child.killed) child.kill('SIGKILL');
      }
    });
    // On a starved machine the child may never get that far: kill it anyway so the test fails instead of hanging.
    const watchdog = setTimeout(() => child.kill('SIGKILL'), 45_000);
    const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, sig) => resolve(sig)));
    clearTimeout(watchdog);
    expect(signal).toBe('SIGKILL');
    expect(acked.length).toBeGreaterThanOrEqual(500);

    const survivor = openSqliteStore(path);
    try {
      for (const [key, revision] of acked) expect(survivor.get(key)?.revision).toBe(revision);
      expect(survivor.currentRevision()).toBeGreaterThanOrEqual(acked[acked.length - 1]![1]);
    } finally {
      survivor.close();
    }
  });
});
