import { describe, expect, it } from 'vitest';
import { fieldType, itemType, listTypeOf, isAtomicMap, typeFromOpenAPI } from './type-info.js';

const components = {
  'io.k8s.api.core.v1.PodSpec': {
    type: 'object',
    properties: {
      containers: {
        type: 'array',
        items: { allOf: [{ $ref: '#/components/schemas/io.k8s.api.core.v1.Container' }] },
        'x-kubernetes-patch-merge-key': 'name',
        'x-kubernetes-patch-strategy': 'merge',
      },
      nodeSelector: { type: 'object', additionalProperties: { type: 'string' }, 'x-kubernetes-map-type': 'atomic' },
      tolerations: { type: 'array', items: { type: 'object' } },
      finalizerLike: { type: 'array', items: { type: 'string' }, 'x-kubernetes-patch-strategy': 'merge' },
    },
  },
  'io.k8s.api.core.v1.Container': {
    type: 'object',
    properties: {
      name: { type: 'string' },
      ports: {
        type: 'array',
        items: { $ref: '#/components/schemas/io.k8s.api.core.v1.ContainerPort' },
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['containerPort', 'protocol'],
        'x-kubernetes-patch-merge-key': 'containerPort',
      },
      args: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'atomic' },
      tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
    },
  },
  'io.k8s.api.core.v1.ContainerPort': { type: 'object', properties: { containerPort: { type: 'integer' } } },
  Recursive: { type: 'object', properties: { child: { $ref: '#/components/schemas/Recursive' }, name: { type: 'string' } } },
};

describe('typeFromOpenAPI', () => {
  const t = typeFromOpenAPI({ type: 'object', properties: { spec: { $ref: '#/components/schemas/io.k8s.api.core.v1.PodSpec' } } }, components);
  const spec = fieldType(t, 'spec');
  const containers = fieldType(spec, 'containers');
  const container = itemType(containers);

  it('patch merge key makes a map list', () => {
    expect(listTypeOf(containers)).toBe('map');
    expect(containers!.keys).toEqual(['name']);
  });
  it('list-map-keys win over patch merge key', () => {
    const ports = fieldType(container, 'ports');
    expect(listTypeOf(ports)).toBe('map');
    expect(ports!.keys).toEqual(['containerPort', 'protocol']);
  });
  it.each([
    ['args', 'atomic'],
    ['tags', 'set'],
  ])('%s is %s', (f, lt) => {
    expect(listTypeOf(fieldType(container, f))).toBe(lt);
  });
  it('defaults unknown lists to atomic; merge strategy without key is a set', () => {
    expect(listTypeOf(fieldType(spec, 'tolerations'))).toBe('atomic');
    expect(listTypeOf(fieldType(spec, 'finalizerLike'))).toBe('set');
    expect(listTypeOf(undefined)).toBe('atomic');
  });
  it('atomic maps', () => {
    expect(isAtomicMap(fieldType(spec, 'nodeSelector'))).toBe(true);
    expect(fieldType(spec, 'nodeSelector')!.kind).toBe('map');
  });
  it('resolves recursive refs', () => {
    const r = typeFromOpenAPI({ $ref: '#/components/schemas/Recursive' }, components);
    expect(fieldType(fieldType(r, 'child'), 'child')).toBe(fieldType(r, 'child'));
    expect(fieldType(r, 'name')!.kind).toBe('scalar');
  });
});
