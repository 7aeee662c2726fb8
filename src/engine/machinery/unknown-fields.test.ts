import { describe, expect, it } from 'vitest';
import { pruneUnknownFields } from './unknown-fields.js';

const schemas = {
  Meta: { type: 'object', properties: { name: { type: 'string' }, labels: { type: 'object', additionalProperties: { type: 'string' } } } },
  Item: { type: 'object', properties: { a: { type: 'string' } } },
  Thing: {
    type: 'object',
    properties: {
      metadata: { allOf: [{ $ref: '#/components/schemas/Meta' }] },
      data: { type: 'object', additionalProperties: { type: 'string' } },
      items: { type: 'array', items: { $ref: '#/components/schemas/Item' } },
      free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    },
  },
};

describe('pruneUnknownFields', () => {
  it('reports and drops undeclared fields with kube-style paths, keeping declared maps and free-form nodes', () => {
    const obj = {
      apiVersion: 'v1',
      kind: 'Thing',
      metadata: { name: 'x', labels: { a: 'b' }, bogus: 1 },
      data: { anything: 'goes' },
      items: [{ a: 'ok', b: 'no' }],
      free: { whatever: { deep: true } },
      spec: { foo: 1 },
    };
    const found = pruneUnknownFields(obj, schemas.Thing, schemas);
    expect(found).toEqual(['metadata.bogus', 'items[0].b', 'spec']);
    expect(obj).toEqual({
      apiVersion: 'v1',
      kind: 'Thing',
      metadata: { name: 'x', labels: { a: 'b' } },
      data: { anything: 'goes' },
      items: [{ a: 'ok' }],
      free: { whatever: { deep: true } },
    });
  });

  it('reports fields at any depth with their whole path, through maps of objects, and never an inherited name', () => {
    const nested = {
      Leaf: { type: 'object', properties: { keep: { type: 'string' } } },
      Root: {
        type: 'object',
        properties: {
          byName: { type: 'object', additionalProperties: { $ref: '#/components/schemas/Leaf' } },
          list: { type: 'array', items: { type: 'object', properties: { inner: { $ref: '#/components/schemas/Leaf' } } } },
          scalar: { type: 'string' },
        },
      },
    };
    const obj: Record<string, unknown> = {
      apiVersion: 'v1',
      kind: 'Root',
      scalar: 'plain',
      byName: { one: { keep: 'k', drop: 1 }, two: 'not an object' },
      list: [{ inner: { keep: 'k' } }, { inner: { keep: 'k', constructor: 'x' }, toString: 'y' }],
    };
    expect(pruneUnknownFields(obj, nested.Root, nested)).toEqual(['byName.one.drop', 'list[1].inner.constructor', 'list[1].toString']);
    expect(obj.byName).toEqual({ one: { keep: 'k' }, two: 'not an object' });
    expect(obj.list).toEqual([{ inner: { keep: 'k' } }, { inner: { keep: 'k' } }]);
  });
});
