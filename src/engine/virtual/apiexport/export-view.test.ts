import { describe, expect, it } from 'vitest';
import { resourceTypesForSchema } from '../../apis/schema-types.js';
import { StaticCatalog } from '../../registry/catalog.js';
import { createMemoryStore } from '../../storage/memory-store.js';
import { ExportBindings } from './export-bindings.js';
import { ExportViews } from './export-view.js';

const schema = {
  apiVersion: 'apis.kcp.io/v1alpha1',
  kind: 'APIResourceSchema',
  metadata: { name: 'v1.widgets.example.io', uid: 'u1' },
  spec: {
    group: 'example.io',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    scope: 'Namespaced',
    versions: [{ name: 'v1', served: true, storage: true, schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }],
  },
};
const exported = (identityHash?: string) =>
  JSON.stringify({
    apiVersion: 'apis.kcp.io/v1alpha2',
    kind: 'APIExport',
    metadata: { name: 'widgets' },
    spec: {
      resources: [{ group: 'example.io', name: 'widgets', schema: 'v1.widgets.example.io' }],
      permissionClaims: [
        { group: '', resource: 'configmaps', verbs: ['get'] },
        { group: 'example.io', resource: 'widgets', verbs: ['get'] },
      ],
    },
    ...(identityHash ? { status: { identityHash } } : {}),
  });

describe('ExportViews', () => {
  const store = createMemoryStore({});
  const views = new ExportViews({
    store,
    bindings: new ExportBindings(store),
    catalogFor: () => new StaticCatalog([], 'empty'),
    typesForSchema: resourceTypesForSchema,
  });

  it('types the export’s resources under its identity once it has one and its schemas exist', () => {
    store.commit([{ type: 'create', key: '/registry/apis.kcp.io/apiexports/prov/widgets', value: exported() }]);
    expect(views.get('prov', 'widgets')!.boundTypes).toEqual([]);
    const kv = store.get('/registry/apis.kcp.io/apiexports/prov/widgets')!;
    store.commit([{ type: 'update', key: kv.key, value: exported('abc'), expectedRevision: kv.revision }]);
    // The schema is not there yet: nothing typed, and the view is not kept.
    expect(views.get('prov', 'widgets')!.complete).toBe(false);
    store.commit([{ type: 'create', key: '/registry/apis.kcp.io/apiresourceschemas/prov/v1.widgets.example.io', value: JSON.stringify(schema) }]);
    const view = views.get('prov', 'widgets')!;
    expect(view.boundTypes.map((t) => `${t.group}/${t.version}/${t.resource} @ ${t.storagePrefix}`)).toEqual(['example.io/v1/widgets @ example.io/widgets:abc']);
    expect(views.get('prov', 'widgets')).toBe(view);
  });

  it('drops claims on its own resources (kcp ignores them)', () => {
    expect(views.get('prov', 'widgets')!.claims.map((c) => c.resource)).toEqual(['configmaps']);
  });

  it('knows no export that is not stored', () => {
    expect(views.get('prov', 'nope')).toBeUndefined();
  });
});
