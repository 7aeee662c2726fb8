import { describe, expect, it } from 'vitest';
import { StaticCatalog } from '../registry/catalog.js';
import { createMemoryStore } from '../storage/index.js';
import type { Store } from '../storage/store.js';
import { tenancyResourceType } from '../tenancy/crds.js';
import { CRDCatalogs } from './crd-catalogs.js';

const prefix = '/registry/apiextensions.k8s.io/customresourcedefinitions/';

function crd(plural: string, schemaNote = 'a') {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.example.com` },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural, singular: plural.slice(0, -1), kind: 'Thing', listKind: 'ThingList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', description: schemaNote } } }],
    },
    status: {
      acceptedNames: { plural, singular: plural.slice(0, -1), kind: 'Thing', listKind: 'ThingList' },
      conditions: [{ type: 'Established', status: 'True' }],
    },
  };
}

/** A store that records every prefix it is asked to list. */
function recording(store: Store): { store: Store; lists: string[] } {
  const lists: string[] = [];
  return {
    lists,
    store: new Proxy(store, {
      get(target, prop, receiver) {
        if (prop === 'list') return (p: string, o?: unknown) => (lists.push(p), target.list(p, o as never));
        const value = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }),
  };
}

function setup() {
  const raw = createMemoryStore();
  for (const cluster of ['a', 'b', 'c']) {
    raw.commit([{ type: 'create', key: `${prefix}${cluster}/things.example.com`, value: JSON.stringify(crd('things', cluster === 'c' ? 'other' : 'a')) }]);
  }
  const { store, lists } = recording(raw);
  const builtin = new StaticCatalog([], 'builtin');
  const catalogs = new CRDCatalogs(store, { baseFor: () => builtin, widest: () => builtin, widestBelowRoot: () => builtin });
  catalogs.start();
  return { raw, lists, catalogs, builtin };
}

describe('CRDCatalogs', () => {
  it('reads nothing at start-up and one cluster’s CRDs when that cluster is first used', () => {
    const { lists, catalogs } = setup();
    expect(lists).toEqual([]);
    expect(catalogs.catalogFor('a').find('example.com', 'v1', 'things')).toBeDefined();
    catalogs.catalogFor('a');
    expect(lists).toEqual([`${prefix}a/`]);
  });

  it('finds a cluster’s content through its own catalog when it has CRDs, else through the widest set below root, unread', () => {
    const raw = createMemoryStore();
    raw.commit([{ type: 'create', key: `${prefix}a/things.example.com`, value: JSON.stringify(crd('things')) }]);
    const base = (name: string) => new StaticCatalog([], name);
    const [served, wide, belowRoot] = [base('served'), base('wide'), base('below-root')];
    const asked: string[] = [];
    const boundType = tenancyResourceType('workspaces');
    const bound = {
      typesIn: (cluster: string) => (cluster === 'd' ? { hash: 'h', types: [boundType] } : undefined),
      mayBindIn: (cluster: string) => cluster === 'd',
      onChange: () => {},
    };
    const catalogs = new CRDCatalogs(raw, { baseFor: (cluster) => (asked.push(cluster), served), widest: () => wide, widestBelowRoot: () => belowRoot }, bound);
    catalogs.start();
    expect(catalogs.contentCatalogFor('a').find('example.com', 'v1', 'things')).toBeDefined();
    expect(catalogs.contentCatalogFor('b')).toBe(belowRoot);
    expect(catalogs.contentCatalogFor('d').find(boundType.group, boundType.version, boundType.resource)).toBe(boundType);
    // Root serves Shards, which no other cluster does: its own catalog.
    expect(catalogs.contentCatalogFor('root')).toBe(served);
    expect(asked).toEqual(['a', 'd', 'root']);
    // A CRD appearing later is seen, cached or not.
    raw.commit([{ type: 'create', key: `${prefix}b/gadgets.example.com`, value: JSON.stringify(crd('gadgets')) }]);
    expect(catalogs.contentCatalogFor('b').find('example.com', 'v1', 'gadgets')).toBeDefined();
  });

  it('shares compiled types between clusters holding the same CRD, not between different ones', () => {
    const { catalogs } = setup();
    const a = catalogs.catalogFor('a');
    const b = catalogs.catalogFor('b');
    const c = catalogs.catalogFor('c');
    expect(b.find('example.com', 'v1', 'things')).toBe(a.find('example.com', 'v1', 'things'));
    expect(b.revision).toBe(a.revision);
    expect(c.find('example.com', 'v1', 'things')).not.toBe(a.find('example.com', 'v1', 'things'));
  });

  it('follows changes for cached clusters and reads uncached ones fresh', () => {
    const { raw, catalogs, builtin } = setup();
    expect(catalogs.catalogFor('a').find('example.com', 'v1', 'things')).toBeDefined();
    raw.commit([{ type: 'delete', key: `${prefix}a/things.example.com` }]);
    raw.commit([{ type: 'delete', key: `${prefix}b/things.example.com` }]);
    expect(catalogs.catalogFor('a')).toBe(builtin);
    expect(catalogs.catalogFor('b')).toBe(builtin);
    raw.commit([{ type: 'create', key: `${prefix}a/gadgets.example.com`, value: JSON.stringify(crd('gadgets')) }]);
    expect(catalogs.catalogFor('a').find('example.com', 'v1', 'gadgets')).toBeDefined();
  });

  it('keeps a cluster cached across LogicalCluster updates that leave its API set alone, and forgets it when it changes', () => {
    const { raw, lists, catalogs } = setup();
    const lcKey = '/registry/core.kcp.io/logicalclusters/a/cluster';
    const lc = (apis: string, extra: Record<string, string> = {}, deleting = false) =>
      JSON.stringify({
        apiVersion: 'core.kcp.io/v1alpha1',
        kind: 'LogicalCluster',
        metadata: { annotations: { 'internal.kcpt.dev/apis': apis, ...extra }, ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}), name: 'cluster' },
        status: { phase: deleting ? 'Deleting' : 'Ready' },
      });
    raw.commit([{ type: 'create', key: lcKey, value: lc('tenancy.kcp.io') }]);
    catalogs.catalogFor('a');
    const listsOfA = () => lists.filter((p) => p === `${prefix}a/`).length;
    expect(listsOfA()).toBe(1);
    // Marked deleted: the annotations' text is unchanged.
    raw.commit([{ type: 'update', key: lcKey, value: lc('tenancy.kcp.io', {}, true) }]);
    catalogs.catalogFor('a');
    expect(listsOfA()).toBe(1);
    // Another annotation changes, the API set does not (the texts differ: parsed and compared).
    raw.commit([{ type: 'update', key: lcKey, value: lc('tenancy.kcp.io', { 'x.example.com/note': 'a "quoted} value' }, true) }]);
    catalogs.catalogFor('a');
    expect(listsOfA()).toBe(1);
    // The API set changes: the cluster is read again.
    raw.commit([{ type: 'update', key: lcKey, value: lc('', { 'x.example.com/note': 'a "quoted} value' }, true) }]);
    catalogs.catalogFor('a');
    expect(listsOfA()).toBe(2);
  });

  it('the wildcard sees every cluster’s CRDs, and a change anywhere is visible to it', () => {
    const { raw, catalogs } = setup();
    expect(catalogs.catalogFor('*').find('example.com', 'v1', 'things')).toBeDefined();
    raw.commit([{ type: 'create', key: `${prefix}z/gadgets.example.com`, value: JSON.stringify(crd('gadgets')) }]);
    expect(catalogs.catalogFor('*').find('example.com', 'v1', 'gadgets')).toBeDefined();
  });
});
