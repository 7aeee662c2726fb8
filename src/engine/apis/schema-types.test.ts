import { describe, expect, it } from 'vitest';
import { resourceTypesForSchema } from './schema-types.js';
import type { APIResourceSchema } from './types.js';

const hash = 'a'.repeat(64);

function widgets(): APIResourceSchema {
  return {
    apiVersion: 'apis.kcp.io/v1alpha1',
    kind: 'APIResourceSchema',
    metadata: { name: 'v1.widgets.example.com', uid: 'u-1' },
    spec: {
      group: 'example.com',
      names: { plural: 'widgets', kind: 'Widget' },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer', default: 3 } } } } },
          additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
        },
        { name: 'v1beta1', served: false, storage: false },
      ],
    },
  };
}

describe('resourceTypesForSchema', () => {
  it('serves each served version like a CRD, stored under the export identity', () => {
    const types = resourceTypesForSchema(widgets(), hash);
    expect(types.map((t) => t.version)).toEqual(['v1']);
    const [rt] = types;
    expect(rt).toMatchObject({
      group: 'example.com',
      resource: 'widgets',
      kind: 'Widget',
      singular: 'widget',
      listKind: 'WidgetList',
      namespaced: true,
      storagePrefix: `example.com/widgets:${hash}`,
      storageVersion: 'v1',
      isCustomResource: true,
    });
    expect(rt!.printer!.columns.map((c) => c.name)).toContain('Size');
  });

  it('validates and defaults objects with the schema', () => {
    const [rt] = resourceTypesForSchema(widgets(), hash);
    const obj = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: {} as Record<string, unknown> };
    rt!.strategy.defaults!(obj, { cluster: 'c' });
    expect(obj.spec.size).toBe(3);
    const errors = rt!.strategy.validate!({ ...obj, spec: { size: 'big' } }, { cluster: 'c' });
    expect(errors.length).toBeGreaterThan(0);
  });

  it('stores core-group resources under core/', () => {
    const schema = widgets();
    schema.spec.group = '';
    expect(resourceTypesForSchema(schema, hash)[0]!.storagePrefix).toBe(`core/widgets:${hash}`);
  });
});
