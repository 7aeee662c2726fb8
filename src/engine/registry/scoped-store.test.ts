import { describe, expect, it } from 'vitest';
import { StatusError, forbidden } from '../machinery/status.js';
import { createMemoryStore } from '../storage/memory-store.js';
import type { StoreEvent } from '../storage/store.js';
import { scopedStore, scopePredicate, type StorageScope } from './scoped-store.js';
import type { KubeObject } from './types.js';

const range = '/registry/core/configmaps/';
const key = (cluster: string, name: string) => `${range}${cluster}/ns/${name}`;
const cm = (name: string, labels?: Record<string, string>, data: Record<string, string> = {}) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', ...(labels ? { labels } : {}) }, data });

/** Cluster c1's configmaps labelled share=yes. */
const scope = (readOnly = false): StorageScope => ({
  prefix: range,
  readOnly,
  admits: (cluster, obj) => cluster === 'c1' && obj.metadata?.labels?.share === 'yes',
  refusal: (obj) => forbidden({ group: '', resource: 'configmaps' }, obj?.metadata?.name ?? '', 'object does not match required labels'),
});

function setup(readOnly = false) {
  const inner = createMemoryStore();
  inner.commit([
    { type: 'create', key: key('c1', 'shared'), value: cm('shared', { share: 'yes' }, { k: 'v' }) },
    { type: 'create', key: key('c1', 'private'), value: cm('private', undefined, { password: 'hunter2' }) },
    { type: 'create', key: key('c2', 'other'), value: cm('other', { share: 'yes' }) },
    { type: 'create', key: '/registry/core/namespaces/c1/ns', value: '{"metadata":{"name":"ns"}}' },
  ]);
  return { inner, view: scopedStore(inner, scope(readOnly)) };
}

const names = (items: { value: string }[]) => items.map((kv) => (JSON.parse(kv.value) as KubeObject).metadata!.name);

describe('scopedStore reads', () => {
  it('hides what the scope does not admit from get, list and count, in the range only', () => {
    const { view } = setup();
    expect(view.get(key('c1', 'shared'))).toBeDefined();
    expect(view.get(key('c1', 'private'))).toBeUndefined();
    expect(view.get(key('c2', 'other'))).toBeUndefined();
    expect(view.get('/registry/core/namespaces/c1/ns')).toBeDefined();
    expect(names(view.list(range).items)).toEqual(['shared']);
    expect(names(view.list(`${range}c1/ns/`).items)).toEqual(['shared']);
    expect(view.count(range)).toBe(1);
    expect(view.list('/registry/core/namespaces/').items).toHaveLength(1);
  });

  it('pages past any number of hidden objects and never counts them', () => {
    const { inner, view } = setup();
    inner.commit(Array.from({ length: 1200 }, (_, i) => ({ type: 'create' as const, key: key('c1', `hidden-${String(i).padStart(4, '0')}`), value: cm(`h${i}`) })));
    inner.commit([{ type: 'create', key: key('c1', 'zz-last'), value: cm('zz-last', { share: 'yes' }) }]);
    const first = view.list(`${range}c1/`, { limit: 1 });
    expect(names(first.items)).toEqual(['shared']);
    expect(first.more).toBe(true);
    expect(first.remaining).toBeUndefined();
    const second = view.list(`${range}c1/`, { limit: 1, startAfter: first.items[0]!.key, revision: first.revision });
    expect(names(second.items)).toEqual(['zz-last']);
    expect(second.more).toBe(false);
  });

  it('filters a predicate by the object’s cluster annotation', () => {
    const admits = scopePredicate(scope());
    const obj = (cluster: string, share?: string): KubeObject => ({ metadata: { annotations: { 'kcp.io/cluster': cluster }, labels: share ? { share } : {} } });
    expect([admits(obj('c1', 'yes')), admits(obj('c1')), admits(obj('c2', 'yes')), admits({ metadata: {} })]).toEqual([true, false, false, false]);
  });
});

describe('scopedStore watch', () => {
  it('turns moving out into DELETED with the last admitted content, moving in into ADDED, and hides the rest', () => {
    const { inner, view } = setup();
    const seen: StoreEvent[] = [];
    const handle = view.watch(range, inner.currentRevision(), (events) => seen.push(...events));
    const update = (k: string, value: string) => inner.commit([{ type: 'update', key: k, value }]);
    update(key('c1', 'private'), cm('private', undefined, { password: 'changed' }));
    update(key('c1', 'private'), cm('private', { share: 'yes' }, { password: 'now-shared' }));
    update(key('c1', 'shared'), cm('shared', { share: 'no' }, { k: 'secret-after-leaving' }));
    update(key('c2', 'other'), cm('other', { share: 'yes' }, { x: '1' }));
    inner.commit([{ type: 'delete', key: key('c1', 'private') }]);
    inner.commit([{ type: 'delete', key: key('c1', 'shared') }]);
    handle.cancel();
    expect(seen.map((e) => [e.type, (JSON.parse(e.value) as KubeObject).metadata!.name, JSON.stringify((JSON.parse(e.value) as KubeObject).data)])).toEqual([
      ['ADDED', 'private', '{"password":"now-shared"}'],
      ['DELETED', 'shared', '{"k":"v"}'],
      ['DELETED', 'private', '{"password":"now-shared"}'],
    ]);
    expect(seen.some((e) => e.prevValue?.includes('secret-after-leaving') || e.value.includes('secret-after-leaving'))).toBe(false);
  });
});

describe('scopedStore writes', () => {
  it('finds nothing to change or delete outside the scope, and refuses to store an object outside it', () => {
    const { inner, view } = setup();
    const refused = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        return err instanceof StatusError ? `${err.code} ${err.message}` : (err as Error).name;
      }
      return 'written';
    };
    expect(refused(() => view.commit([{ type: 'update', key: key('c1', 'private'), value: cm('private', { share: 'yes' }) }]))).toBe('KeyNotFoundError');
    expect(refused(() => view.commit([{ type: 'delete', key: key('c1', 'private') }]))).toBe('KeyNotFoundError');
    expect(refused(() => view.commit([{ type: 'delete', key: key('c2', 'other') }]))).toBe('KeyNotFoundError');
    expect(refused(() => view.commit([{ type: 'create', key: key('c1', 'planted'), value: cm('planted', { share: 'no' }) }]))).toBe(
      '403 configmaps "planted" is forbidden: object does not match required labels',
    );
    expect(refused(() => view.commit([{ type: 'create', key: key('c1', 'two'), value: cm('two', { share: 'yes' }), firstValue: cm('two') }]))).toMatch(/^403 /);
    expect(refused(() => view.commit([{ type: 'update', key: key('c1', 'shared'), value: cm('shared', { share: 'no' }) }]))).toMatch(/^403 /);
    // A commit is all or nothing: a refused op leaves the others unwritten.
    expect(
      refused(() =>
        view.commit([
          { type: 'create', key: '/kcpt/other/x', value: '{}' },
          { type: 'delete', key: key('c1', 'private') },
        ]),
      ),
    ).toBe('KeyNotFoundError');
    expect(inner.get('/kcpt/other/x')).toBeUndefined();
    expect(refused(() => view.commit([{ type: 'update', key: key('c1', 'shared'), value: cm('shared', { share: 'yes' }, { k: 'w' }) }]))).toBe('written');
    expect(refused(() => view.commit([{ type: 'create', key: '/kcpt/other/y', value: '{}' }]))).toBe('written');
    expect(inner.get(key('c1', 'private'))).toBeDefined();
  });

  it('refuses every write in the range when read-only', () => {
    const { view } = setup(true);
    expect(() => view.commit([{ type: 'update', key: key('c1', 'shared'), value: cm('shared', { share: 'yes' }, { k: 'w' }) }])).toThrow(StatusError);
    expect(() => view.commit([{ type: 'delete', key: key('c1', 'shared') }])).toThrow(StatusError);
  });

  it('never closes or compacts the store it views', () => {
    const { inner, view } = setup();
    expect(() => view.close()).toThrow();
    expect(() => view.compact(1)).toThrow();
    expect(inner.get(key('c1', 'shared'))).toBeDefined();
  });
});
