import { describe, expect, it } from 'vitest';
import { configMapType } from '../../builtin/test-support.js';
import { deploymentLikeType } from './test-types.js';
import { toFieldSet } from './to-field-set.js';

describe('toFieldSet (the fields an applied configuration sets)', () => {
  it('owns map entries and leaves, not the declared struct fields around them', () => {
    const { set, undeclared } = toFieldSet(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', labels: { a: 'b' } }, data: { a: '1' } },
      configMapType,
    );
    expect(undeclared).toEqual([]);
    expect(set.toFieldsV1()).toEqual({
      'f:apiVersion': {},
      'f:data': { 'f:a': {} },
      'f:kind': {},
      'f:metadata': { 'f:labels': { 'f:a': {} }, 'f:name': {} },
    });
  });

  it('owns list items as nodes with their fields; atomic lists and maps as one leaf', () => {
    const { set } = toFieldSet(
      {
        metadata: { finalizers: ['f1'] },
        spec: {
          containers: [{ name: 'nginx', image: 'nginx:1', args: ['a', 'b'], ports: [{ containerPort: 80, protocol: 'TCP' }] }],
          selector: { a: 'b' },
          tags: ['x', 'y'],
        },
      },
      deploymentLikeType,
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
        'f:selector': {},
        'f:tags': { 'v:"x"': {}, 'v:"y"': {} },
      },
    });
  });

  it('owns untyped (preserve-unknown-fields) entries as nodes, and empty or null values as leaves', () => {
    const { set } = toFieldSet({ spec: { config: { a: { b: 1 } }, replicas: null, containers: [] } }, deploymentLikeType);
    expect(set.toFieldsV1()).toEqual({
      'f:spec': { 'f:config': { 'f:a': { '.': {}, 'f:b': {} } }, 'f:replicas': {} },
    });
  });

  it('reports fields the schema does not declare, as upstream words it', () => {
    const { undeclared } = toFieldSet({ data: { a: '1' }, dta: { b: '2' } }, configMapType);
    expect(undeclared).toEqual(['.dta: field not declared in schema']);
    expect(toFieldSet({ spec: { containers: [{ name: 'c', imag: 'x' }] } }, deploymentLikeType).undeclared).toEqual([
      '.spec.containers[name="c"].imag: field not declared in schema',
    ]);
  });

  it('reports an item a set or map list repeats, as structured-merge-diff words it; atomic lists may repeat', () => {
    const { undeclared } = toFieldSet(
      {
        spec: {
          containers: [{ name: 'a', image: '1' }, { name: 'b' }, { name: 'a', image: '2' }],
          tags: ['x', 'x'],
          selector: { k: 'v' },
        },
        metadata: { finalizers: ['f', 'g'] },
      },
      deploymentLikeType,
    );
    expect(undeclared).toEqual(['.spec.containers: duplicate entries for key [name="a"]', '.spec.tags: duplicate entries for key [="x"]']);
    const ports = toFieldSet({ spec: { containers: [{ name: 'a', args: ['x', 'x'], ports: [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 80, protocol: 'TCP' }] }] } }, deploymentLikeType);
    expect(ports.undeclared).toEqual(['.spec.containers[name="a"].ports: duplicate entries for key [containerPort=80,protocol="TCP"]']);
  });

  it('reports values of the wrong shape or scalar type as structured-merge-diff words them (null fits all)', () => {
    expect(toFieldSet({ data: 'garbage' }, configMapType).undeclared).toEqual(['.data: expected map, got &{garbage}']);
    expect(toFieldSet({ data: ['a', 1] }, configMapType).undeclared).toEqual(['.data: expected map, got &{[a 1]}']);
    expect(toFieldSet({ data: { a: 5 } }, configMapType).undeclared).toEqual(['.data.a: expected string, got &value.valueUnstructured{Value:5}']);
    expect(toFieldSet({ immutable: 'yes' }, configMapType).undeclared).toEqual(['.immutable: expected boolean, got &{yes}']);
    expect(toFieldSet({ metadata: { finalizers: { a: 'b' } } }, configMapType).undeclared).toEqual(['.metadata.finalizers: expected list, got &{map[a:b]}']);
    expect(toFieldSet({ data: null, immutable: null, metadata: { finalizers: null } }, configMapType).undeclared).toEqual([]);
  });
});
