import { describe, expect, it } from 'vitest';
import { apiVersionOf } from '../registry/types.js';
import { builtinResourceTypes } from './index.js';

describe('builtinResourceTypes', () => {
  const types = builtinResourceTypes();

  it('lists core first, then the groups in kube’s priority order, then kcp', () => {
    const groups = [...new Set(types.map((t) => t.group))];
    expect(groups).toEqual(['', 'events.k8s.io', 'rbac.authorization.k8s.io', 'coordination.k8s.io', 'core.kcp.io']);
    expect(types.filter((t) => t.group === '').map((t) => t.resource)).toEqual([
      'configmaps', 'events', 'limitranges', 'namespaces', 'resourcequotas', 'secrets', 'serviceaccounts',
    ]);
  });

  it('serve no workload kinds (kcp drops them) and no unstored review kinds', () => {
    const resources = types.map((t) => `${t.resource}.${t.group}`);
    for (const absent of ['pods.', 'services.', 'deployments.apps', 'selfsubjectaccessreviews.authorization.k8s.io']) {
      expect(resources).not.toContain(absent);
    }
  });

  it('give every type a unique resource, short names, a printer and kube’s storage layout', () => {
    const seen = new Set<string>();
    for (const t of types) {
      const gvr = `${apiVersionOf(t)}/${t.resource}`;
      expect(seen.has(gvr), gvr).toBe(false);
      seen.add(gvr);
      expect(t.listKind).toBe(`${t.kind}List`);
      expect(t.printer, gvr).toBeDefined();
      expect(t.openapiSchemaName, gvr).toMatch(/^io\.(k8s\.api|kcp)\./);
      expect(t.storageVersionHash, gvr).toMatch(/^[A-Za-z0-9+/]{11}=$/);
      expect(t.verbs).toEqual(expect.arrayContaining(['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']));
      expect(t.printer!.columns[0]!.name === 'Name' || t.resource === 'events').toBe(true);
    }
    const prefixes = Object.fromEntries(types.map((t) => [`${t.resource}.${t.group}`, t.storagePrefix]));
    expect(prefixes).toMatchObject({
      'configmaps.': 'core/configmaps',
      'events.': 'core/events',
      'events.events.k8s.io': 'core/events',
      'roles.rbac.authorization.k8s.io': 'rbac.authorization.k8s.io/roles',
      'leases.coordination.k8s.io': 'coordination.k8s.io/leases',
      'logicalclusters.core.kcp.io': 'core.kcp.io/logicalclusters',
    });
    const shortNames = Object.fromEntries(types.map((t) => [`${t.resource}.${t.group}`, t.shortNames ?? []]));
    expect(shortNames).toMatchObject({
      'namespaces.': ['ns'],
      'configmaps.': ['cm'],
      'serviceaccounts.': ['sa'],
      'events.': ['ev'],
      'limitranges.': ['limits'],
      'resourcequotas.': ['quota'],
      'secrets.': [],
      'events.events.k8s.io': ['ev'],
    });
  });

  it('gives only events.k8s.io a storage conversion', () => {
    expect(types.filter((t) => t.convert).map((t) => `${t.resource}.${t.group}`)).toEqual(['events.events.k8s.io']);
  });
});
