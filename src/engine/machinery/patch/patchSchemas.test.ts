import { describe, expect, it } from 'vitest';
import { builtinResourceTypes } from '../../builtin/index.js';
import { patchSchemaFor } from '../../builtin/test-support.js';
import { genericPatchSchema, objectMetaPatchSchema } from './patchSchemas.js';
import { listPatchExtensions } from './schema.js';

describe('patchSchemaFor', () => {
  it.each([
    ['', 'ConfigMap', genericPatchSchema],
    ['rbac.authorization.k8s.io', 'Role', genericPatchSchema],
    ['coordination.k8s.io', 'Lease', genericPatchSchema],
    ['apps', 'Service', genericPatchSchema],
    ['example.com', 'Widget', genericPatchSchema],
    ['', 'constructor', genericPatchSchema],
    ['', '__proto__', genericPatchSchema],
  ])('%s %s', (group, kind, expected) => {
    expect(patchSchemaFor(group, kind)).toBe(expected);
  });

  it('every built-in kind knows ObjectMeta', () => {
    for (const rt of builtinResourceTypes()) {
      expect((rt.patchSchema ?? genericPatchSchema).fields?.metadata).toBe(objectMetaPatchSchema);
    }
  });

  it('is read-only shared data', () => {
    const withOwn = builtinResourceTypes().filter((rt) => rt.patchSchema);
    expect(withOwn.map((rt) => rt.kind).sort()).toEqual(['Namespace', 'ServiceAccount']);
    for (const rt of withOwn) expect(Object.isFrozen(rt.patchSchema)).toBe(true);
    expect(Object.isFrozen(patchSchemaFor('', 'ServiceAccount').fields!.secrets)).toBe(true);
    expect(Object.isFrozen(patchSchemaFor('', 'Service').fields!.spec!.fields!.ports)).toBe(true);
    expect(Object.isFrozen(objectMetaPatchSchema.fields!.ownerReferences)).toBe(true);
  });
});

describe('listPatchExtensions (what the OpenAPI writer publishes)', () => {
  it('Service', () => {
    expect(listPatchExtensions(patchSchemaFor('', 'Service'))).toEqual([
      { path: '.metadata.ownerReferences', 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'uid' },
      { path: '.metadata.finalizers', 'x-kubernetes-patch-strategy': 'merge' },
      { path: '.spec.ports', 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'port' },
      { path: '.status.conditions', 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'type' },
    ]);
  });

  it('ServiceAccount and Namespace', () => {
    expect(listPatchExtensions(patchSchemaFor('', 'ServiceAccount')).map((e) => e.path)).toEqual([
      '.metadata.ownerReferences',
      '.metadata.finalizers',
      '.secrets',
    ]);
    expect(listPatchExtensions(patchSchemaFor('', 'Namespace')).map((e) => e.path)).toContain('.status.conditions');
  });

  it('nested items and map values', () => {
    const schema = { fields: { spec: { items: { fields: { env: { patchStrategy: 'merge' as const, patchMergeKey: 'name' } } } } } };
    expect(listPatchExtensions(schema)).toEqual([
      { path: '.spec[*].env', 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'name' },
    ]);
  });
});
