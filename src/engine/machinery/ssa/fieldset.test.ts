import { describe, expect, it } from 'vitest';
import { FieldSet, pathString } from './fieldset.js';
import { keyElement, listItemElement } from './list-items.js';

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
  it('hasChildrenOf follows members added and deleted after it was asked', () => {
    const s = new FieldSet([['f:a', 'f:b', 'f:c']]);
    expect(s.hasChildrenOf(['f:a', 'f:b'])).toBe(true);
    expect(s.hasChildrenOf(['f:x'])).toBe(false);
    s.add(['f:x', 'f:y']);
    expect(s.hasChildrenOf(['f:x'])).toBe(true);
    s.delete(['f:a', 'f:b', 'f:c']);
    expect(s.hasChildrenOf(['f:a'])).toBe(false);
    expect(s.hasChildrenOf(['f:a', 'f:b'])).toBe(false);
    const copy = s.clone().union(new FieldSet([['f:q', 'f:r']]));
    expect(copy.hasChildrenOf(['f:q'])).toBe(true);
    expect(s.hasChildrenOf(['f:q'])).toBe(false);
    expect(copy.difference(new FieldSet([['f:x', 'f:y']])).hasChildrenOf(['f:x'])).toBe(false);
  });
});

describe('pathString', () => {
  it.each([
    [['f:data', 'f:a'], '.data.a'],
    [['f:spec', 'f:containers', keyElement({ name: 'nginx', image: 'i' }, ['name']), 'f:image'], '.spec.containers[name="nginx"].image'],
    [['f:spec', 'f:ports', keyElement({ protocol: 'TCP', containerPort: 80 }, ['protocol', 'containerPort'])], '.spec.ports[containerPort=80,protocol="TCP"]'],
    [['f:metadata', 'f:finalizers', listItemElement('x', { kind: 'list', listType: 'set' }, 0)], '.metadata.finalizers[="x"]'],
  ])('%j -> %s', (p, want) => {
    expect(pathString(p as string[])).toBe(want);
  });
});

describe('hasPrefixOf', () => {
  it('is true for a member and for anything above one', () => {
    const s = new FieldSet([['f:a', 'f:b']]);
    expect(s.hasPrefixOf(['f:a'])).toBe(true);
    expect(s.hasPrefixOf(['f:a', 'f:b'])).toBe(true);
    expect(s.hasPrefixOf(['f:a', 'f:b', 'f:c'])).toBe(false);
    expect(s.hasPrefixOf(['f:b'])).toBe(false);
  });
});
