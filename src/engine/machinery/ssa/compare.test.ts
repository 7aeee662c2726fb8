import { describe, expect, it } from 'vitest';
import { compareValues } from './compare.js';
import { configMapType } from '../../builtin/test-support.js';
import { deploymentLikeType } from './test-types.js';

const fields = (c: ReturnType<typeof compareValues>) => ({
  added: c.added.toFieldsV1(),
  modified: c.modified.toFieldsV1(),
  removed: c.removed.toFieldsV1(),
});

describe('compareValues', () => {
  it('a create adds every leaf and every container it brings, as a node', () => {
    const c = compareValues({}, { metadata: { labels: { x: 'y' } }, data: { a: '1' } }, configMapType);
    expect(fields(c)).toEqual({
      added: { 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { '.': {}, 'f:labels': { '.': {}, 'f:x': {} } } },
      modified: {},
      removed: {},
    });
  });

  it('changes inside existing containers are leaves only', () => {
    const c = compareValues({ data: { a: '1', b: '2' } }, { data: { a: '9', c: '3' } }, configMapType);
    expect(fields(c)).toEqual({ added: { 'f:data': { 'f:c': {} } }, modified: { 'f:data': { 'f:a': {} } }, removed: { 'f:data': { 'f:b': {} } } });
  });

  it('list items are compared by identity, not position', () => {
    const c = compareValues(
      { spec: { containers: [{ name: 'a', image: '1' }, { name: 'b', image: '1' }] } },
      { spec: { containers: [{ name: 'b', image: '2' }, { name: 'a', image: '1' }] } },
      deploymentLikeType,
    );
    expect(fields(c)).toEqual({ added: {}, modified: { 'f:spec': { 'f:containers': { 'k:{"name":"b"}': { 'f:image': {} } } } }, removed: {} });
  });

  it('atomic values change as a whole; equal objects compare equal whatever their key order', () => {
    const c = compareValues({ spec: { selector: { a: '1' }, tags: ['x'] } }, { spec: { selector: { a: '2' }, tags: ['x'] } }, deploymentLikeType);
    expect(fields(c).modified).toEqual({ 'f:spec': { 'f:selector': {} } });
    const same = compareValues({ spec: { replicas: 1, config: { a: 1, b: 2 } } }, { spec: { config: { b: 2, a: 1 }, replicas: 1 } }, deploymentLikeType);
    expect(same.added.isEmpty() && same.modified.isEmpty() && same.removed.isEmpty()).toBe(true);
  });
});
