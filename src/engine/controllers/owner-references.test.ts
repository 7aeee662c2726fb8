import { describe, expect, it } from 'vitest';
import { builtinResourceTypes } from '../builtin/index.js';
import { StaticCatalog } from '../registry/catalog.js';
import { createMemoryStore } from '../storage/index.js';
import { namespaceOfKey, OwnerResolver } from './owner-references.js';

function resolver() {
  const store = createMemoryStore();
  const catalog = new StaticCatalog(builtinResourceTypes(), 't');
  return { store, owners: new OwnerResolver(store, () => catalog) };
}

describe('OwnerResolver', () => {
  it('finds a namespaced owner in the dependent namespace and a cluster-scoped one anywhere', () => {
    const { owners } = resolver();
    expect(owners.ownerKey('c1', 'ns1', { apiVersion: 'v1', kind: 'ConfigMap', name: 'o' })).toBe('/registry/core/configmaps/c1/ns1/o');
    expect(owners.ownerKey('c1', 'ns1', { apiVersion: 'v1', kind: 'Namespace', name: 'ns1' })).toBe('/registry/core/namespaces/c1/ns1');
    // Any version of the kind names the same object.
    expect(owners.ownerKey('c1', 'ns1', { apiVersion: 'v7', kind: 'ConfigMap', name: 'o' })).toBe('/registry/core/configmaps/c1/ns1/o');
  });

  it('cannot resolve unknown kinds, or a namespaced owner of a cluster-scoped dependent', () => {
    const { owners } = resolver();
    const ref = { apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: 'u' };
    expect(owners.lookup('c1', 'ns1', ref)).toEqual({ state: 'unresolvable' });
    expect(owners.lookup('c1', '', { apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'u' })).toEqual({ state: 'unresolvable' });
  });

  it('an owner counts only with a matching uid', () => {
    const { store, owners } = resolver();
    store.commit([{ type: 'create', key: '/registry/core/configmaps/c1/ns1/o', value: JSON.stringify({ metadata: { name: 'o', uid: 'u1' } }) }]);
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'u1' };
    expect(owners.lookup('c1', 'ns1', ref).state).toBe('present');
    expect(owners.lookup('c1', 'ns1', { ...ref, uid: 'u2' }).state).toBe('absent');
    expect(owners.lookup('c2', 'ns1', ref).state).toBe('absent');
  });

  it('writes a stored object back through the type it is stored as', () => {
    const { owners } = resolver();
    const rt = owners.typeOf('c1', '/registry/core/events/c1/ns1/e', { apiVersion: 'v1', kind: 'Event' });
    expect([rt?.group, rt?.version, rt?.kind]).toEqual(['', 'v1', 'Event']);
    expect(namespaceOfKey('/registry/core/events/c1/ns1/e')).toBe('ns1');
    expect(namespaceOfKey('/registry/core/namespaces/c1/ns1')).toBe('');
  });
});
