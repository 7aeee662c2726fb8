/** A wildcard list of a type that names its clusters reads only their key ranges and pages like a whole-prefix list. */
import { describe, expect, it } from 'vitest';
import { configMaps } from '../builtin/core/resources.js';
import { createMemoryStore, type Store } from '../storage/index.js';
import { listObjects } from './list.js';
import { everything } from './predicates.js';
import { objectKey } from './stored-object.js';
import type { KubeObject, ResourceType } from './types.js';

// `a-b/` sorts before `a/` in the store although `a` < `a-b`: the ranges must follow the keys.
const CLUSTERS = ['a', 'a-b', 'b', 'c', 'zz'];
const ACCEPTED = new Set(['a', 'a-b', 'zz']);

function seeded(): { store: Store; reads: string[] } {
  const store = createMemoryStore();
  for (const cluster of CLUSTERS) {
    for (const ns of ['default', 'kube-system']) {
      for (const name of ['one', 'two', 'three']) {
        const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, annotations: { 'kcp.io/cluster': cluster } } };
        store.commit([{ type: 'create', key: objectKey(configMaps, cluster, ns, name), value: JSON.stringify(obj) }]);
      }
    }
  }
  const reads: string[] = [];
  const list = store.list.bind(store);
  store.list = (prefix, options) => {
    reads.push(prefix);
    return list(prefix, options);
  };
  return { store, reads };
}

const scoped: ResourceType = {
  ...configMaps,
  servedIn: (cluster) => (ACCEPTED.has(cluster) ? { namespaced: true } : undefined),
  servedClusters: () => ACCEPTED,
};
const scanned: ResourceType = { ...configMaps, servedIn: scoped.servedIn };

const names = (items: string[]) =>
  items.map((text) => {
    const obj = JSON.parse(text) as KubeObject;
    return `${obj.metadata!.annotations!['kcp.io/cluster']}/${obj.metadata!.namespace}/${obj.metadata!.name}`;
  });

async function pages(store: Store, rt: ResourceType, namespace: string, limit: number): Promise<{ items: string[]; rvs: Set<string> }> {
  const items: string[] = [];
  const rvs = new Set<string>();
  let continueToken: string | undefined;
  do {
    const page = await listObjects(store, rt, undefined, namespace, everything, { limit, continueToken });
    items.push(...page.items);
    rvs.add(page.resourceVersion);
    continueToken = page.continueToken;
    if (continueToken) expect(page.items).toHaveLength(limit);
  } while (continueToken);
  return { items, rvs };
}

describe('wildcard list over the clusters a type names', () => {
  it('returns what a whole-prefix scan with the same filter returns, in the same order, without reading other clusters', async () => {
    const { store, reads } = seeded();
    const full = await listObjects(store, scanned, undefined, '', everything, {});
    reads.length = 0;
    const ranged = await listObjects(store, scoped, undefined, '', everything, {});
    expect(names(ranged.items)).toEqual(names(full.items));
    expect(names(ranged.items)).toHaveLength(18);
    expect(reads.every((prefix) => ['a/', 'a-b/', 'zz/'].some((c) => prefix.endsWith(`/${c}`)))).toBe(true);
  });

  it('pages with limit/continue across range boundaries, one resourceVersion throughout, nothing lost or repeated', async () => {
    const { store } = seeded();
    const full = await listObjects(store, scanned, undefined, '', everything, {});
    for (const limit of [1, 2, 5, 6, 7, 17, 18]) {
      const { items, rvs } = await pages(store, scoped, '', limit);
      expect(names(items)).toEqual(names(full.items));
      expect(rvs.size).toBe(1);
    }
  });

  it('a continued list reads at the first page’s revision even after writes to a listed cluster', async () => {
    const { store } = seeded();
    const first = await listObjects(store, scoped, undefined, '', everything, { limit: 4 });
    const late = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'zz-late', namespace: 'default', annotations: { 'kcp.io/cluster': 'zz' } } };
    store.commit([{ type: 'create', key: objectKey(configMaps, 'zz', 'default', 'zz-late'), value: JSON.stringify(late) }]);
    const rest = await listObjects(store, scoped, undefined, '', everything, { continueToken: first.continueToken });
    expect(rest.resourceVersion).toBe(first.resourceVersion);
    expect(names(rest.items)).not.toContain('zz/default/zz-late');
    expect(first.items.length + rest.items.length).toBe(18);
  });

  it('narrows each range to the namespace asked for, and a last full page has no continue token', async () => {
    const { store } = seeded();
    const page = await listObjects(store, scoped, undefined, 'kube-system', everything, { limit: 9 });
    expect(names(page.items).every((n) => n.includes('/kube-system/'))).toBe(true);
    expect(page.items).toHaveLength(9);
    expect(page.continueToken).toBeUndefined();
  });
});
