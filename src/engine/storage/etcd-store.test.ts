import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runStoreContract } from './contract.js';
import { cm, inCluster } from './contract-support.js';
import { startLocalEtcd, type LocalEtcd } from './etcd-launcher.js';
import { openEtcdStore, type EtcdStore } from './etcd-store.js';
import type { StoreEvent } from './store.js';

let etcd: LocalEtcd;
beforeAll(async () => {
  etcd = await startLocalEtcd();
});
afterAll(async () => {
  await etcd?.stop();
});

// Every store gets its own keyspace (prefix) in the one etcd, as every kcpt server (shard) would.
let keyspaces = 0;
const freshPrefix = () => `/contract-${process.pid}-${++keyspaces}`;
const open = (prefix = freshPrefix()) => openEtcdStore({ endpoints: [etcd.endpoint], prefix });

runStoreContract('etcd', () => open());

describe('etcd store: durable in etcd', () => {
  it('a second store on the same keyspace loads the same objects, revisions and resumable history', () => {
    const prefix = freshPrefix();
    const first = open(prefix);
    first.commit([{ type: 'create', key: cm('c1', 'a'), value: 'a1' }, { type: 'create', key: cm('c1', 'b'), value: 'b1' }]);
    first.commit([{ type: 'update', key: cm('c1', 'a'), value: 'a2' }]);
    first.commit([{ type: 'delete', key: cm('c1', 'b') }]);
    first.commit([{ type: 'create', key: cm('c1', 'c'), value: 'final', firstValue: 'first' }]);
    first.commit([{ type: 'create', key: '/kcpt/pending/c1', value: 'm', unlogged: true }]);
    const listed = first.list(inCluster('c1'));
    const history: StoreEvent[] = [];
    first.watch('/', 0, (events) => history.push(...events)).cancel();
    first.close();

    const second = open(prefix);
    try {
      expect(second.currentRevision()).toBe(6);
      expect(second.list(inCluster('c1'))).toEqual(listed);
      expect(second.get('/kcpt/pending/c1')).toEqual({ key: '/kcpt/pending/c1', value: 'm', revision: 6, createRevision: 6 });
      const replayed: StoreEvent[] = [];
      second.watch('/', 0, (events) => replayed.push(...events)).cancel();
      expect(replayed).toEqual(history);
      // A watch resumed from an old revision sees exactly what followed it, then live events.
      const resumed: string[] = [];
      second.watch(inCluster('c1'), 2, (events) => resumed.push(...events.map((e) => `${e.type} ${e.key.slice(-1)} ${e.revision}`)));
      second.commit([{ type: 'update', key: cm('c1', 'c'), value: 'later' }]);
      expect(resumed).toEqual(['MODIFIED a 3', 'DELETED b 4', 'ADDED c 5', 'MODIFIED c 6', 'MODIFIED c 7']);
      expect(second.list(inCluster('c1'), { revision: 3 }).items.map((kv) => kv.value)).toEqual(['a2', 'b1']);
    } finally {
      second.close();
    }
  });

  it('compaction survives a reload: the compacted revision, the retained log and etcd revisions per RV', async () => {
    const prefix = freshPrefix();
    const store = openEtcdStore({ endpoints: [etcd.endpoint], prefix, keepNewestRevisions: 10 });
    for (let i = 0; i < 30; i++) store.commit([{ type: i < 5 ? 'create' : 'update', key: cm('c1', `k${i % 5}`), value: `v${i}` }]);
    expect(store.etcdRevisionOf(20)).toBeGreaterThan(store.etcdRevisionOf(19)!);
    while (store.compact(25) > 0);
    expect(store.compactedRevision()).toBe(20);
    expect(store.etcdRevisionOf(20)).toBeUndefined();
    // Compaction is this store's own write: its watch for other writers must not take it for one.
    await new Promise((resolve) => setTimeout(resolve, 500));
    store.commit([{ type: 'update', key: cm('c1', 'k0'), value: 'after compaction' }]);
    store.commit([{ type: 'update', key: cm('c1', 'k1'), value: 'after compaction' }]);
    store.close();
    const reloaded: EtcdStore = openEtcdStore({ endpoints: [etcd.endpoint], prefix, keepNewestRevisions: 10 });
    try {
      expect(reloaded.compactedRevision()).toBe(20);
      expect(reloaded.currentRevision()).toBe(32);
      const seen: number[] = [];
      reloaded.watch('/', 20, (events) => seen.push(...events.map((e) => e.revision))).cancel();
      expect(seen).toEqual([21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32]);
      expect(() => reloaded.watch('/', 19, () => undefined)).toThrow(/compacted/);
    } finally {
      reloaded.close();
    }
  });

  it('notices another writer in its keyspace and refuses further writes, naming the key', async () => {
    const prefix = freshPrefix();
    const store = open(prefix);
    const warnings: string[] = [];
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation((w) => void warnings.push(String(w)));
    const other = new Etcd3({ hosts: etcd.endpoint });
    try {
      store.commit([{ type: 'create', key: cm('c1', 'a'), value: 'a1' }]);
      // A second kcpt on the same keyspace, started before that create, fails on the revision counter.
      await other.put(`${prefix}${cm('c1', 'a')}`).value('kcpt 1 1\nrewritten elsewhere');
      expect(() => store.commit([{ type: 'update', key: cm('c1', 'a'), value: 'a2' }])).toThrow(
        new RegExp(`key ${cm('c1', 'a')} was changed outside kcpt`),
      );
      expect(() => store.commit([{ type: 'create', key: cm('c1', 'z'), value: 'z' }])).toThrow(/refuses writes/);
      expect(store.get(cm('c1', 'a'))?.value).toBe('a1');
      expect(warnings.join('\n')).toMatch(/another writer/);
    } finally {
      warn.mockRestore();
      other.close();
      store.close();
    }
  });

  it('a second kcpt on a keyspace another one is writing fails on the revision counter', () => {
    const prefix = freshPrefix();
    const store = open(prefix);
    const late = open(prefix);
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      store.commit([{ type: 'create', key: cm('c1', 'a'), value: 'a1' }]);
      expect(() => late.commit([{ type: 'create', key: cm('c1', 'b'), value: 'b1' }])).toThrow(/changed outside kcpt/);
      expect(store.commit([{ type: 'create', key: cm('c1', 'c'), value: 'c1' }])[0]!.revision).toBe(2);
    } finally {
      warn.mockRestore();
      late.close();
      store.close();
    }
  });

  it('fails a commit it cannot make durable, leaving the mirror untouched', async () => {
    const down = await startLocalEtcd();
    const store = openEtcdStore({ endpoints: [down.endpoint], prefix: '/down', timeoutMs: 1500 });
    try {
      store.commit([{ type: 'create', key: cm('c1', 'a'), value: 'a1' }]);
      await down.stop();
      expect(() => store.commit([{ type: 'create', key: cm('c1', 'b'), value: 'b1' }])).toThrow(/etcd/);
      expect(store.get(cm('c1', 'b'))).toBeUndefined();
      expect(store.currentRevision()).toBe(1);
    } finally {
      store.close();
    }
  });
});
