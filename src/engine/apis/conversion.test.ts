import { describe, expect, it } from 'vitest';
import { bindingToV1alpha1, bindingToV1alpha2, exportToV1alpha1, exportToV1alpha2, resourceFromSchemaName } from './conversion.js';

const v2Export = (spec: Record<string, unknown>) => ({ apiVersion: 'apis.kcp.io/v1alpha2', kind: 'APIExport', metadata: { name: 'e' }, spec });

describe('APIExport conversion', () => {
  it('splits a schema name into resource and group', () => {
    expect(resourceFromSchemaName('v260522-2bf05df66.workspaces.tenancy.kcp.io')).toEqual({
      name: 'workspaces',
      group: 'tenancy.kcp.io',
      schema: 'v260522-2bf05df66.workspaces.tenancy.kcp.io',
      storage: { crd: {} },
    });
  });

  it('turns latestResourceSchemas into resources and back', () => {
    const v1 = { apiVersion: 'apis.kcp.io/v1alpha1', kind: 'APIExport', metadata: { name: 'e' }, spec: { latestResourceSchemas: ['a.widgets.example.com'] } };
    const v2 = exportToV1alpha2(v1);
    expect(v2.spec).toEqual({ resources: [{ name: 'widgets', group: 'example.com', schema: 'a.widgets.example.com', storage: { crd: {} } }] });
    const back = exportToV1alpha1(v2);
    expect(back.spec).toEqual({ latestResourceSchemas: ['a.widgets.example.com'] });
    expect(back.metadata?.annotations).toBeUndefined();
  });

  it('keeps resources v1alpha1 cannot express in an annotation, so a round trip loses nothing', () => {
    const stored = v2Export({ resources: [{ name: 'gadgets', group: 'other.io', schema: 'a.widgets.example.com', storage: { crd: {} } }] });
    const v1 = exportToV1alpha1(stored);
    expect(v1.metadata?.annotations?.['apis.v1alpha2.kcp.io/resource-schemas']).toBeDefined();
    expect(exportToV1alpha2(v1).spec).toEqual(stored.spec);
    expect(exportToV1alpha2(v1).metadata?.annotations).toBeUndefined();
  });

  it('converts claims: all ↔ verbs ["*"], other verbs kept through the annotation', () => {
    const v1 = exportToV1alpha2({ apiVersion: 'apis.kcp.io/v1alpha1', metadata: {}, spec: { permissionClaims: [{ group: '', resource: 'configmaps', all: true }] } });
    expect(v1.spec).toEqual({ permissionClaims: [{ group: '', resource: 'configmaps', verbs: ['*'] }] });
    const stored = v2Export({ permissionClaims: [{ group: '', resource: 'secrets', verbs: ['get', 'list'] }] });
    const served = exportToV1alpha1(stored);
    expect(served.spec).toEqual({ permissionClaims: [{ group: '', resource: 'secrets', all: true }] });
    expect(exportToV1alpha2(served).spec).toEqual(stored.spec);
  });
});

describe('APIBinding conversion', () => {
  it('converts accepted claims with matchAll both ways, keeping the state', () => {
    const stored = {
      apiVersion: 'apis.kcp.io/v1alpha2',
      metadata: { name: 'b' },
      spec: {
        reference: { export: { path: 'root:p', name: 'e' } },
        permissionClaims: [{ group: '', resource: 'configmaps', verbs: ['*'], selector: { matchAll: true }, state: 'Accepted' }],
      },
    };
    const v1 = bindingToV1alpha1(stored);
    expect(v1.apiVersion).toBe('apis.kcp.io/v1alpha1');
    expect((v1.spec as { permissionClaims: unknown[] }).permissionClaims).toEqual([{ group: '', resource: 'configmaps', all: true, state: 'Accepted' }]);
    expect(bindingToV1alpha2(v1).spec).toEqual(stored.spec);
  });
});
