import { describe, expect, it } from 'vitest';
import { applyDefaults } from './defaults.js';
import type { JSONSchemaProps } from './types.js';

const shared = { nested: { deep: [1, 2] } };
const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      default: {},
      properties: {
        replicas: { type: 'integer', default: 1 },
        obj: { type: 'object', default: shared, properties: { nested: { type: 'object', x: 1 } as JSONSchemaProps } },
        mode: { type: 'string', default: 'a' },
        nul: { type: 'string', nullable: true, default: 'n' },
        items: { type: 'array', items: { type: 'object', properties: { p: { type: 'integer', default: 80 } } } },
        m: { type: 'object', additionalProperties: { type: 'object', properties: { q: { type: 'string', default: 'z' } } } },
      },
    },
  },
};

describe('applyDefaults', () => {
  it('applies defaults recursively, including into defaulted parents', () => {
    const obj: Record<string, unknown> = { apiVersion: 'a/v1' };
    applyDefaults(obj, schema);
    expect(obj.spec).toEqual({ replicas: 1, obj: shared, mode: 'a', nul: 'n' });
  });

  it('deep-clones defaults', () => {
    const a: Record<string, unknown> = {};
    const b: Record<string, unknown> = {};
    applyDefaults(a, schema);
    applyDefaults(b, schema);
    const ao = (a.spec as { obj: typeof shared }).obj;
    expect(ao).not.toBe(shared);
    ao.nested.deep.push(3);
    expect(shared.nested.deep).toEqual([1, 2]);
    expect((b.spec as { obj: typeof shared }).obj.nested.deep).toEqual([1, 2]);
  });

  it('keeps present values and removes non-nullable nulls before defaulting', () => {
    const obj: Record<string, unknown> = { spec: { replicas: 5, mode: null, nul: null } };
    applyDefaults(obj, schema);
    expect(obj.spec).toEqual({ replicas: 5, mode: 'a', nul: null, obj: shared });
  });

  it('defaults inside array items and additionalProperties', () => {
    const obj: Record<string, unknown> = { spec: { items: [{}, { p: 1 }], m: { a: {}, b: { q: 'y' } } } };
    applyDefaults(obj, schema);
    const spec = obj.spec as Record<string, unknown>;
    expect(spec.items).toEqual([{ p: 80 }, { p: 1 }]);
    expect(spec.m).toEqual({ a: { q: 'z' }, b: { q: 'y' } });
  });

  it('removes a non-nullable null with no default', () => {
    const obj: Record<string, unknown> = { spec: { items: null } };
    applyDefaults(obj, schema);
    expect('items' in (obj.spec as object)).toBe(false);
  });
});
