/** Reading stored custom resources as text: the stored text itself when reading changes nothing, else what fromStorage gives. */
import { describe, expect, it } from 'vitest';
import { customResourceTypes } from './cr-types.js';
import type { CustomResourceDefinition } from './crd.js';
import type { KubeObject } from '../registry/types.js';

const schema = {
  type: 'object',
  properties: {
    spec: { type: 'object', properties: { size: { type: 'integer', default: 3 }, name: { type: 'string' } } },
  },
};
const names = { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' };
const versions = ['v1', 'v2'].map((name) => ({ name, served: true, storage: name === 'v1', schema: { openAPIV3Schema: schema } }));
const crd = { metadata: { name: 'widgets.example.com' }, spec: { group: 'example.com', scope: 'Cluster', names, versions }, status: { acceptedNames: names } } as unknown as CustomResourceDefinition;
const [v1, v2] = customResourceTypes(crd);

const stored = (spec: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { resourceVersion: '7', name: 'a', uid: 'ü-\u2028' }, spec, ...extra });
const viaObjects = (rt: typeof v1, json: string) => JSON.stringify(rt!.convert!.fromStorage(JSON.parse(json) as KubeObject));

describe('custom resource fromStorageText', () => {
  it('hands back the stored text itself when reading changes nothing', () => {
    const json = stored({ size: 5, name: 'x "quoted" \\ é' });
    expect(v1!.convert!.fromStorageText!(json)).toBe(json);
    expect(viaObjects(v1, json)).toBe(json);
  });

  it('gives what fromStorage gives when a default applies, a field is pruned or the version differs', () => {
    for (const [rt, json] of [
      [v1, stored({ name: 'x' })],
      [v1, stored({ size: 1 }, { junk: true })],
      [v2, stored({ size: 1 })],
    ] as const) {
      const text = rt!.convert!.fromStorageText!(json);
      expect(text).not.toBe(json);
      expect(text).toBe(viaObjects(rt, json));
    }
  });
});
