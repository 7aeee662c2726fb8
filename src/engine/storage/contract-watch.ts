/**
 * Watch and compaction cases of the storage conformance suite (run through runStoreContract in contract.ts).
 */
import { describe, expect, vi } from 'vitest';
import { churn, cm, inCluster } from './contract-support.js';
import { CompactedError, type Store, type StoreEvent } from './store.js';

type Case = (title: string, body: () => void) => void;

/** A listener that records every call (one call = one batch). */
function recorder() {
  const calls: StoreEvent[][] = [];
  const listener = (events: StoreEvent[]) => void calls.push(events);
  const events = () => calls.flat();
  const summary = () => events().map((e) => `${e.type} ${e.key.split('/').slice(4).join('/')} @${e.revision}`);
  return { calls, listener, events, summary };
}

export function runWatchContract(newStore: () => Store, test: Case): void {
  describe('watch', () => {
    const history = (store: Store) => {
      store.commit([{ type: 'create', key: cm('c1', 'a'), value: 'a1' }]); // 1
      store.commit([{ type: 'create', key: cm('c10', 'a'), value: 'x' }]); // 2
      store.commit([{ type: 'update', key: cm('c1', 'a'), value: 'a2' }]); // 3
      store.commit([{ type: 'create', key: cm('c1', 'b'), value: 'b1' }]); // 4
      store.commit([{ type: 'delete', key: cm('c1', 'a') }]); // 5
    };

    test('from 0 replays all logged events of the prefix, then live ones', () => {
      const store = newStore();
      history(store);
      const rec = recorder();
      store.watch(inCluster('c1'), 0, rec.listener);
      expect(rec.summary()).toEqual(['ADDED c1/default/a @1', 'MODIFIED c1/default/a @3', 'ADDED c1/default/b @4', 'DELETED c1/default/a @5']);
      store.commit([{ type: 'update', key: cm('c1', 'b'), value: 'b2' }]);
      store.commit([{ type: 'update', key: cm('c10', 'a'), value: 'y' }]);
      expect(rec.summary().slice(4)).toEqual(['MODIFIED c1/default/b @6']);
    });

    test('from N replays only revisions after N', () => {
      const store = newStore();
      history(store);
      const rec = recorder();
      store.watch(inCluster('c1'), 3, rec.listener);
      expect(rec.summary()).toEqual(['ADDED c1/default/b @4', 'DELETED c1/default/a @5']);
      const current = recorder();
      store.watch(inCluster('c1'), store.currentRevision(), current.listener);
      expect(current.calls).toEqual([]);
    });

    test('events carry values: prevValue on MODIFIED, the delete revision and last value on DELETED', () => {
      const store = newStore();
      history(store);
      const rec = recorder();
      store.watch(inCluster('c1'), 0, rec.listener);
      const [added, modified, , deleted] = rec.events();
      expect(added).toMatchObject({ type: 'ADDED', key: cm('c1', 'a'), revision: 1, value: 'a1' });
      expect(added!.prevValue).toBeUndefined();
      expect(modified).toMatchObject({ type: 'MODIFIED', revision: 3, value: 'a2', prevValue: 'a1' });
      expect(deleted).toMatchObject({ type: 'DELETED', key: cm('c1', 'a'), revision: 5, value: 'a2' });
      // Live events look exactly like replayed ones.
      const live = recorder();
      const fresh = newStore();
      fresh.watch(inCluster('c1'), 0, live.listener);
      history(fresh);
      expect(live.events()).toEqual(rec.events());
    });

    test('live events arrive synchronously, one call per commit, in revision order', () => {
      const store = newStore();
      const rec = recorder();
      store.watch('/registry/core/configmaps/', 0, rec.listener);
      const results = store.commit([
        { type: 'create', key: cm('c2', 'z'), value: 'z' },
        { type: 'create', key: cm('c1', 'y'), value: 'y' },
        { type: 'create', key: '/registry/core/secrets/c1/default/s', value: 's' },
        { type: 'update', key: cm('c2', 'z'), value: 'z2' },
      ]);
      expect(rec.calls).toHaveLength(1);
      expect(rec.calls[0]!.map((e) => e.revision)).toEqual([results[0]!.revision, results[1]!.revision, results[3]!.revision]);
    });

    test('cancel stops delivery; other watchers keep theirs', () => {
      const store = newStore();
      const a = recorder();
      const b = recorder();
      const handle = store.watch(inCluster('c1'), 0, a.listener);
      store.watch(inCluster('c1'), 0, b.listener);
      store.commit([{ type: 'create', key: cm('c1', 'a'), value: '1' }]);
      handle.cancel();
      handle.cancel();
      store.commit([{ type: 'create', key: cm('c1', 'b'), value: '2' }]);
      expect(a.events()).toHaveLength(1);
      expect(b.events()).toHaveLength(2);
    });

    test('a throwing listener breaks neither the commit nor other watchers', () => {
      const store = newStore();
      const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
      try {
        const good = recorder();
        store.watch(inCluster('c1'), 0, () => {
          throw new Error('listener bug');
        });
        store.watch(inCluster('c1'), 0, good.listener);
        const [result] = store.commit([{ type: 'create', key: cm('c1', 'a'), value: '1' }]);
        expect(result!.revision).toBe(1);
        expect(store.get(cm('c1', 'a'))?.value).toBe('1');
        expect(good.events()).toHaveLength(1);
      } finally {
        warn.mockRestore();
      }
    });

    test('commits made by a listener are delivered to everyone in revision order, without duplicates', () => {
      const store = newStore();
      const late = recorder();
      const observer = recorder();
      store.watch(inCluster('c1'), 0, observer.listener);
      store.watch(inCluster('c1'), 0, (events) => {
        for (const event of events) {
          if (event.type === 'ADDED' && event.key === cm('c1', 'a')) {
            store.commit([{ type: 'create', key: cm('c1', 'reaction'), value: 'r' }]);
            // A watch opened mid-delivery replays what is logged and then sees each later event exactly once.
            store.watch(inCluster('c1'), 0, late.listener);
          }
        }
      });
      store.commit([{ type: 'create', key: cm('c1', 'a'), value: '1' }]);
      store.commit([{ type: 'create', key: cm('c1', 'b'), value: '2' }]);
      const expected = ['ADDED c1/default/a @1', 'ADDED c1/default/reaction @2', 'ADDED c1/default/b @3'];
      expect(observer.summary()).toEqual(expected);
      expect(late.summary()).toEqual(expected);
    });

    test('a revision that is not a non-negative integer is a RangeError, not a silent empty watch', () => {
      const store = newStore();
      for (const bad of [Number.NaN, -1, 1.5]) {
        expect(() => store.watch('/registry/', bad, () => undefined)).toThrow(RangeError);
        expect(() => store.list('/registry/', { revision: bad })).toThrow(RangeError);
      }
    });

    test('a watch from a future revision starts after it', () => {
      const store = newStore();
      const rec = recorder();
      store.watch(inCluster('c1'), 2, rec.listener);
      store.commit([{ type: 'create', key: cm('c1', 'a'), value: '1' }]);
      store.commit([{ type: 'create', key: cm('c1', 'b'), value: '2' }]);
      store.commit([{ type: 'create', key: cm('c1', 'c'), value: '3' }]);
      expect(rec.summary()).toEqual(['ADDED c1/default/c @3']);
    });
  });

  describe('compaction', () => {
    test('keeps the newest 1000 revisions', () => {
      const store = newStore();
      churn(store, 10);
      expect(store.compact(10)).toBe(0);
      expect(store.compactedRevision()).toBe(0);
      const rec = recorder();
      store.watch(inCluster('churn'), 0, rec.listener);
      expect(rec.events()).toHaveLength(10);
    });

    test('drops history at or below the revision in bounded slices; older resumes throw CompactedError', () => {
      const store = newStore();
      const last = churn(store, 3000);
      let removed = 0;
      let calls = 0;
      for (let n = store.compact(2500); n > 0; n = store.compact(2500)) {
        removed += n;
        calls++;
      }
      expect(calls).toBeGreaterThan(0);
      expect(store.compactedRevision()).toBe(2000);
      expect(removed).toBe(2000);
      expect(store.compact(1500)).toBe(0);
      expect(() => store.watch(inCluster('churn'), 1999, () => undefined)).toThrow(CompactedError);
      expect(() => store.watch(inCluster('churn'), 0, () => undefined)).toThrow(CompactedError);
      const rec = recorder();
      store.watch(inCluster('churn'), 2000, rec.listener);
      const revisions = rec.events().map((e) => e.revision);
      expect(revisions).toHaveLength(1000);
      expect(revisions[0]).toBe(2001);
      expect(revisions[999]).toBe(last);
      expect(revisions.every((r, i) => i === 0 || r === revisions[i - 1]! + 1)).toBe(true);
      // Values of current objects are untouched by compaction.
      expect(store.list(inCluster('churn')).items).toHaveLength(50);
      expect(store.get(cm('churn', 'k49'))?.value).toBe('v2999');
    });

    test('CompactedError tells the requested and the compacted revision', () => {
      const store = newStore();
      churn(store, 1100);
      while (store.compact(100) > 0);
      try {
        store.watch('/registry/', 5, () => undefined);
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(CompactedError);
        expect(error).toMatchObject({ requested: 5, compacted: 100 });
      }
    });
  });
}
