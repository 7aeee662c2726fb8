import { describe, expect, it } from 'vitest';
import { FieldSet, fromObject, pathString, keyPE, valuePE } from './fieldset.js';
import { withObjectMeta, type TypeNode } from './type-info.js';

const podSpec: TypeNode = {
  kind: 'struct',
  fields: {
    spec: {
      kind: 'struct',
      fields: {
        containers: {
          kind: 'list',
          listType: 'map',
          keys: ['name'],
          elem: {
            kind: 'struct',
            fields: {
              ports: { kind: 'list', listType: 'map', keys: ['containerPort', 'protocol'], elem: { kind: 'struct' } },
              args: { kind: 'list', listType: 'atomic', elem: { kind: 'scalar' } },
            },
          },
        },
        nodeSelector: { kind: 'map', mapType: 'atomic', elem: { kind: 'scalar' } },
        tags: { kind: 'list', listType: 'set', elem: { kind: 'scalar' } },
      },
    },
  },
};
const pod = withObjectMeta(podSpec);

describe('FieldsV1 encode/decode', () => {
  const cases: Array<[string, FieldsV1Like]> = [
    ['simple leaves', { 'f:data': { 'f:a': {}, 'f:b': {} } }],
    ['node marker', { 'f:metadata': { 'f:labels': { '.': {}, 'f:x': {} } } }],
    ['map list', { 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } }],
    ['set list', { 'f:metadata': { 'f:finalizers': { 'v:"a"': {}, 'v:"b"': {} } } }],
  ];
  type FieldsV1Like = Record<string, unknown>;
  it.each(cases)('%s round-trips', (_n, f) => {
    const set = FieldSet.fromFieldsV1(f as never);
    expect(set.toFieldsV1()).toEqual(f);
  });

  it('decodes node markers and leaves into paths', () => {
    const set = FieldSet.fromFieldsV1({ 'f:metadata': { 'f:labels': { '.': {}, 'f:x': {} } } });
    expect(set.has(['f:metadata', 'f:labels'])).toBe(true);
    expect(set.has(['f:metadata', 'f:labels', 'f:x'])).toBe(true);
    expect(set.has(['f:metadata'])).toBe(false);
    expect(set.size).toBe(2);
  });

  it('sorts keys with . first', () => {
    const set = new FieldSet([['f:b'], ['f:a', 'f:z'], ['f:a']]);
    expect(JSON.stringify(set.toFieldsV1())).toBe('{"f:a":{".":{},"f:z":{}},"f:b":{}}');
  });
});

describe('set operations', () => {
  const a = new FieldSet([['f:x'], ['f:y']]);
  const b = new FieldSet([['f:y'], ['f:z']]);
  it.each([
    ['union', a.union(b), [['f:x'], ['f:y'], ['f:z']]],
    ['difference', a.difference(b), [['f:x']]],
    ['intersection', a.intersection(b), [['f:y']]],
  ])('%s', (_n, got, want) => {
    expect(got.equals(new FieldSet(want as string[][]))).toBe(true);
  });
  it('hasChildrenOf', () => {
    const s = new FieldSet([['f:a', 'f:b']]);
    expect(s.hasChildrenOf(['f:a'])).toBe(true);
    expect(s.hasChildrenOf(['f:ab'])).toBe(false);
    expect(s.hasChildrenOf(['f:a', 'f:b'])).toBe(false);
  });
});

describe('fromObject', () => {
  it('tracks configmap data and skips untracked metadata', () => {
    const set = fromObject(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'x', namespace: 'd', uid: 'u', resourceVersion: '1', labels: { a: 'b' }, managedFields: [] },
        data: { a: '1' },
      },
      withObjectMeta(undefined),
    );
    expect(set.toFieldsV1()).toEqual({ 'f:data': { 'f:a': {} }, 'f:metadata': { 'f:labels': { 'f:a': {} } } });
  });

  it('uses list semantics from the type info', () => {
    const set = fromObject(
      {
        metadata: { finalizers: ['f1'] },
        spec: {
          containers: [{ name: 'nginx', image: 'nginx:1', args: ['a', 'b'], ports: [{ containerPort: 80, protocol: 'TCP' }] }],
          nodeSelector: { a: 'b' },
          tags: ['x', 'y'],
          unknownList: [1, 2],
        },
      },
      pod,
    );
    expect(set.toFieldsV1()).toEqual({
      'f:metadata': { 'f:finalizers': { 'v:"f1"': {} } },
      'f:spec': {
        'f:containers': {
          'k:{"name":"nginx"}': {
            '.': {},
            'f:args': {},
            'f:image': {},
            'f:name': {},
            'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {}, 'f:protocol': {} } },
          },
        },
        'f:nodeSelector': {},
        'f:tags': { 'v:"x"': {}, 'v:"y"': {} },
        'f:unknownList': {},
      },
    });
  });

  it('records map nodes for Update semantics', () => {
    const set = fromObject({ data: { a: '1' }, metadata: { labels: { x: 'y' } } }, withObjectMeta(undefined), { mapNodes: true });
    expect(set.toFieldsV1()).toEqual({ 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:x': {} } } });
  });
});

describe('pathString', () => {
  it.each([
    [['f:data', 'f:a'], '.data.a'],
    [['f:spec', 'f:containers', keyPE({ name: 'nginx', image: 'i' }, ['name']), 'f:image'], '.spec.containers[name="nginx"].image'],
    [['f:spec', 'f:ports', keyPE({ protocol: 'TCP', containerPort: 80 }, ['protocol', 'containerPort'])], '.spec.ports[containerPort=80,protocol="TCP"]'],
    [['f:metadata', 'f:finalizers', valuePE('x')], '.metadata.finalizers[="x"]'],
  ])('%j -> %s', (p, want) => {
    expect(pathString(p as string[])).toBe(want);
  });
});
