/**
 * The storage conformance suite: every backend runs exactly these cases (hono's shared-suite pattern), so
 * the registry above can treat all of them alike. Watch and compaction cases live in contract-watch.ts.
 */
import { describe, expect, it } from 'vitest';
import { churn, cm, inCluster, useStores, type StoreFactory } from './contract-support.js';
import { runWatchContract } from './contract-watch.js';
import {
  CompactedError,
  FutureRevisionError,
  hasKeys,
  KeyExistsError,
  KeyNotFoundError,
  RevisionConflictError,
  type Store,
} from './store.js';

export type { StoreFactory } from './contract-support.js';

export interface StoreContractOptions {
  /** Case name → reason, for a backend that cannot honour a case yet (the reason shows in the report). */
  skip?: Record<string, string>;
}

export function runStoreContract(name: string, factory: StoreFactory, options: StoreContractOptions = {}): void {
  const skip = options.skip ?? {};
  const test = (title: string, body: () => void) =>
    skip[title] ? it.skip(`${title} (skipped: ${skip[title]})`, body) : it(title, body);

  describe(`Store contract: ${name}`, () => {
    const newStore = useStores(factory);

    describe('writes', () => {
      test('create, get, update and delete one key', () => {
        const store = newStore();
        const key = cm('c1', 'a');
        const [created] = store.commit([{ type: 'create', key, value: '{"v":1}' }]);
        expect(created).toEqual({ key, revision: store.currentRevision() });
        expect(store.get(key)).toEqual({ key, value: '{"v":1}', revision: created!.revision, createRevision: created!.revision });

        const [updated] = store.commit([{ type: 'update', key, value: '{"v":2}' }]);
        expect(updated!.revision).toBeGreaterThan(created!.revision);
        expect(updated!.prev).toEqual({ key, value: '{"v":1}', revision: created!.revision, createRevision: created!.revision });
        expect(store.get(key)).toEqual({ key, value: '{"v":2}', revision: updated!.revision, createRevision: created!.revision });

        const [deleted] = store.commit([{ type: 'delete', key }]);
        expect(deleted!.revision).toBeGreaterThan(updated!.revision);
        expect(deleted!.prev?.value).toBe('{"v":2}');
        expect(store.get(key)).toBeUndefined();
        expect(store.currentRevision()).toBe(deleted!.revision);
      });

      test('revisions are global and strictly increasing, one per op in order', () => {
        const store = newStore();
        expect(store.currentRevision()).toBe(0);
        const first = store.commit([{ type: 'create', key: cm('c1', 'a'), value: 'a' }]);
        const many = store.commit([
          { type: 'create', key: cm('c2', 'b'), value: 'b' },
          { type: 'create', key: '/registry/apps/deployments/c1/default/d', value: 'd' },
          { type: 'update', key: cm('c1', 'a'), value: 'a2' },
        ]);
        expect([...first, ...many].map((r) => r.revision)).toEqual([1, 2, 3, 4]);
        expect(store.currentRevision()).toBe(4);
        expect(store.commit([])).toEqual([]);
        expect(store.currentRevision()).toBe(4);
      });

      test('typed errors name the failing key', () => {
        const store = newStore();
        const key = cm('c1', 'a');
        const [created] = store.commit([{ type: 'create', key, value: 'a' }]);
        const failure = (fn: () => unknown) => {
          try {
            fn();
          } catch (error) {
            return error;
          }
          throw new Error('expected an error');
        };
        const exists = failure(() => store.commit([{ type: 'create', key, value: 'b' }]));
        expect(exists).toBeInstanceOf(KeyExistsError);
        expect((exists as KeyExistsError).key).toBe(key);
        const missing = cm('c1', 'missing');
        expect(failure(() => store.commit([{ type: 'update', key: missing, value: 'x' }]))).toBeInstanceOf(KeyNotFoundError);
        expect(failure(() => store.commit([{ type: 'delete', key: missing }]))).toMatchObject({ key: missing });
        expect(failure(() => store.commit([{ type: 'delete', key: missing }]))).toBeInstanceOf(KeyNotFoundError);
        const stale = failure(() => store.commit([{ type: 'update', key, value: 'x', expectedRevision: created!.revision + 7 }]));
        expect(stale).toBeInstanceOf(RevisionConflictError);
        expect(failure(() => store.commit([{ type: 'delete', key, expectedRevision: 0 }]))).toBeInstanceOf(RevisionConflictError);
        // The matching revision passes.
        const [updated] = store.commit([{ type: 'update', key, value: 'c', expectedRevision: created!.revision }]);
        store.commit([{ type: 'delete', key, expectedRevision: updated!.revision }]);
        expect(store.get(key)).toBeUndefined();
      });

      test('a failing op rolls back the whole commit', () => {
        const store = newStore();
        store.commit([{ type: 'create', key: cm('c1', 'keep'), value: 'k' }]);
        const before = store.currentRevision();
        const events: unknown[] = [];
        store.watch('/registry/', before, (batch) => events.push(...batch));
        expect(() =>
          store.commit([
            { type: 'create', key: cm('c1', 'new'), value: 'n' },
            { type: 'update', key: cm('c1', 'keep'), value: 'changed' },
            { type: 'delete', key: cm('c1', 'keep') },
            { type: 'update', key: cm('c1', 'ghost'), value: 'g' },
          ]),
        ).toThrow(KeyNotFoundError);
        expect(store.currentRevision()).toBe(before);
        expect(store.get(cm('c1', 'new'))).toBeUndefined();
        expect(store.get(cm('c1', 'keep'))?.value).toBe('k');
        expect(store.list(inCluster('c1')).items.map((kv) => kv.key)).toEqual([cm('c1', 'keep')]);
        expect(events).toEqual([]);
        const [next] = store.commit([{ type: 'create', key: cm('c1', 'new'), value: 'n' }]);
        expect(next!.revision).toBe(before + 1);
      });

      test('later ops in a commit see earlier ones', () => {
        const store = newStore();
        const key = cm('c1', 'a');
        const results = store.commit([
          { type: 'create', key, value: '1' },
          { type: 'update', key, value: '2', expectedRevision: 1 },
          { type: 'delete', key, expectedRevision: 2 },
          { type: 'create', key, value: '3' },
        ]);
        expect(results.map((r) => r.revision)).toEqual([1, 2, 3, 4]);
        expect(store.get(key)).toEqual({ key, value: '3', revision: 4, createRevision: 4 });
      });

      test('a create with a first value logs ADDED then MODIFIED and keeps only the final row', () => {
        const store = newStore();
        const key = cm('c1', 'a');
        const live: string[] = [];
        store.watch('/', 0, (batch) => live.push(...batch.map((e) => `${e.type} ${e.revision} ${e.value} ${e.prevValue ?? ''}`)));
        const [created] = store.commit([{ type: 'create', key, value: 'final', firstValue: 'first' }]);
        expect(created).toEqual({ key, revision: 2 });
        expect(store.get(key)).toEqual({ key, value: 'final', revision: 2, createRevision: 1 });
        expect(live).toEqual(['ADDED 1 first ', 'MODIFIED 2 final first']);
        // The log serves the same sequence to a watch replaying it, and the first value to a read at its revision.
        const replayed: string[] = [];
        store.watch('/', 0, (batch) => replayed.push(...batch.map((e) => `${e.type} ${e.revision} ${e.value} ${e.prevValue ?? ''}`))).cancel();
        expect(replayed).toEqual(live);
        expect(store.list(cm('c1', ''), { revision: 1 }).items).toEqual([{ key, value: 'first', revision: 1, createRevision: 1 }]);
        // An update after it finds the row where the MODIFIED left it.
        const [updated] = store.commit([{ type: 'update', key, value: 'next', expectedRevision: 2 }]);
        expect(updated!.prev).toEqual({ key, value: 'final', revision: 2, createRevision: 1 });
      });

      test('unlogged ops change rows without an event or a revision of their own', () => {
        const store = newStore();
        const events: string[] = [];
        store.watch('/', 0, (batch) => events.push(...batch.map((e) => `${e.type} ${e.key} ${e.revision}`)));
        const marker = '/kcpt/pending/c1/a';
        const [obj, row] = store.commit([
          { type: 'create', key: cm('c1', 'a'), value: 'a' },
          { type: 'create', key: marker, value: 'm', unlogged: true },
        ]);
        expect(obj!.revision).toBe(1);
        expect(row!.revision).toBe(1);
        expect(store.get(marker)).toEqual({ key: marker, value: 'm', revision: 1, createRevision: 1 });
        // A commit of unlogged ops alone takes no revision and tells no watcher.
        store.commit([{ type: 'update', key: marker, value: 'm2', expectedRevision: 1, unlogged: true }]);
        expect(store.currentRevision()).toBe(1);
        expect(store.get(marker)?.value).toBe('m2');
        expect(() => store.commit([{ type: 'create', key: marker, value: 'x', unlogged: true }])).toThrow(KeyExistsError);
        const [removed] = store.commit([
          { type: 'delete', key: marker, unlogged: true },
          { type: 'update', key: cm('c1', 'a'), value: 'a2' },
        ]);
        expect(removed!.prev?.value).toBe('m2');
        expect(store.get(marker)).toBeUndefined();
        expect(store.currentRevision()).toBe(2);
        expect(events).toEqual([`ADDED ${cm('c1', 'a')} 1`, `MODIFIED ${cm('c1', 'a')} 2`]);
        expect(hasKeys(store, '/kcpt/')).toBe(false);
      });
    });

    describe('list', () => {
      const seed = (store: Store) => {
        for (const cluster of ['c1', 'c10', 'c2']) {
          store.commit(['b', 'a', 'c'].map((n) => ({ type: 'create' as const, key: cm(cluster, n), value: `${cluster}/${n}` })));
        }
        store.commit([{ type: 'create', key: '/registry/core/secrets/c1/default/s', value: 's' }]);
      };

      test('a prefix ending in / never mixes sibling clusters (c1 vs c10)', () => {
        const store = newStore();
        seed(store);
        const c1 = store.list(inCluster('c1'));
        expect(c1.items.map((kv) => kv.key)).toEqual([cm('c1', 'a'), cm('c1', 'b'), cm('c1', 'c')]);
        expect(c1.revision).toBe(store.currentRevision());
        expect(c1.more).toBe(false);
        expect(store.count(inCluster('c1'))).toBe(3);
        expect(store.count(inCluster('c10'))).toBe(3);
        expect(store.count('/registry/core/configmaps/')).toBe(9);
        expect(store.count('/registry/')).toBe(10);
        expect(store.count('')).toBe(10);
        expect(store.list('/registry/core/configmaps/').items.map((kv) => kv.value)).toEqual([
          'c1/a', 'c1/b', 'c1/c', 'c10/a', 'c10/b', 'c10/c', 'c2/a', 'c2/b', 'c2/c',
        ]);
        expect(store.list(inCluster('c3')).items).toEqual([]);
      });

      test('pages with startAfter and limit, reporting remaining', () => {
        const store = newStore();
        seed(store);
        const prefix = '/registry/core/configmaps/';
        const first = store.list(prefix, { limit: 4 });
        expect(first.items).toHaveLength(4);
        expect(first).toMatchObject({ more: true, remaining: 5 });
        const seen = [...first.items];
        let page = first;
        while (page.more) {
          page = store.list(prefix, { limit: 4, startAfter: seen[seen.length - 1]!.key });
          seen.push(...page.items);
        }
        expect(page.remaining).toBeUndefined();
        expect(seen.map((kv) => kv.key)).toEqual(store.list(prefix).items.map((kv) => kv.key));
        expect(store.list(prefix, { limit: 9 })).toMatchObject({ more: false });
        expect(store.list(inCluster('c1'), { startAfter: cm('c1', 'a') }).items.map((kv) => kv.value)).toEqual(['c1/b', 'c1/c']);
        // A cursor before the prefix starts at the beginning; one past it yields nothing.
        expect(store.list(inCluster('c10'), { startAfter: '/a' }).items).toHaveLength(3);
        expect(store.list(inCluster('c10'), { startAfter: '/z' }).items).toHaveLength(0);
      });

      test('an existence probe skips counting the rest of the range', () => {
        const store = newStore();
        seed(store);
        const prefix = '/registry/core/configmaps/';
        const probe = store.list(prefix, { limit: 1, countRemaining: false });
        expect(probe.items).toHaveLength(1);
        expect(probe.more).toBe(true);
        expect(probe.remaining).toBeUndefined();
        expect(hasKeys(store, inCluster('c10'))).toBe(true);
        expect(hasKeys(store, inCluster('c3'))).toBe(false);
      });

      test('lists the exact state at a past revision, deleted and updated keys included', () => {
        const store = newStore();
        seed(store);
        const prefix = inCluster('c1');
        const at = store.currentRevision();
        const snapshot = store.list(prefix);
        store.commit([{ type: 'update', key: cm('c1', 'a'), value: 'a2' }]);
        store.commit([{ type: 'delete', key: cm('c1', 'b') }]);
        store.commit([{ type: 'create', key: cm('c1', 'aa'), value: 'new' }]);
        store.commit([{ type: 'update', key: cm('c1', 'c'), value: 'c2' }, { type: 'update', key: cm('c1', 'c'), value: 'c3' }]);
        store.commit([{ type: 'create', key: cm('c10', 'z'), value: 'other cluster' }]);

        const past = store.list(prefix, { revision: at });
        expect(past).toEqual({ ...snapshot, revision: at });
        expect(store.list(prefix).items.map((kv) => kv.value)).toEqual(['a2', 'new', 'c3']);
        // Paging at a past revision walks the same snapshot.
        const page1 = store.list(prefix, { revision: at, limit: 2 });
        expect(page1).toMatchObject({ more: true, remaining: 1, revision: at });
        const page2 = store.list(prefix, { revision: at, limit: 2, startAfter: page1.items[1]!.key });
        expect([...page1.items, ...page2.items]).toEqual(snapshot.items);
        expect(page2.more).toBe(false);
        // Every intermediate revision is exact too.
        const afterUpdate = store.list(prefix, { revision: at + 1 }).items;
        expect(afterUpdate.map((kv) => [kv.value, kv.revision])).toEqual([['a2', at + 1], ['c1/b', 1], ['c1/c', 3]]);
        expect(store.list(prefix, { revision: at + 3 }).items.map((kv) => kv.value)).toEqual(['a2', 'new', 'c1/c']);
        expect(store.list(prefix, { revision: at + 4 }).items.map((kv) => kv.value)).toEqual(['a2', 'new', 'c2']);
        expect(store.list(prefix, { revision: 0 }).items).toEqual([]);
        expect(store.list(prefix, { revision: store.currentRevision() })).toEqual(store.list(prefix));
      });

      test('a revision beyond the current one is FutureRevisionError', () => {
        const store = newStore();
        seed(store);
        const current = store.currentRevision();
        expect(() => store.list('/registry/', { revision: current + 1 })).toThrow(FutureRevisionError);
      });

      test('a compacted revision is CompactedError, the compaction point itself still lists', () => {
        const store = newStore();
        const prefix = inCluster('churn');
        churn(store, 1200);
        while (store.compact(store.currentRevision()) > 0);
        const compacted = store.compactedRevision();
        expect(compacted).toBe(200);
        expect(() => store.list(prefix, { revision: compacted - 1 })).toThrow(CompactedError);
        const atCompaction = store.list(prefix, { revision: compacted }).items;
        expect(atCompaction).toHaveLength(50);
        expect(atCompaction.every((kv) => kv.revision <= compacted)).toBe(true);
        expect(atCompaction.find((kv) => kv.key === cm('churn', 'k0'))?.value).toBe('v150');
      });
    });

    runWatchContract(newStore, test);
  });
}
