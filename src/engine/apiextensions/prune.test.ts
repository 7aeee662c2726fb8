import { describe, expect, it } from 'vitest';
import { prune } from './prune.js';
import type { JSONSchemaProps } from './types.js';

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        a: { type: 'string' },
        list: { type: 'array', items: { type: 'object', properties: { n: { type: 'string' } } } },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        labels: { type: 'object', additionalProperties: { type: 'object', properties: { v: { type: 'string' } } } },
        template: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: { spec: { type: 'object', properties: { b: { type: 'string' } } } },
        },
      },
    },
  },
};

describe('prune', () => {
  it('drops undeclared fields and reports their paths', () => {
    const obj: Record<string, unknown> = {
      apiVersion: 'x/v1',
      kind: 'X',
      metadata: { name: 'a', labels: { k: 'v' }, bogus: 1 },
      spec: {
        a: 'x',
        foo: 1,
        list: [{ n: 'a', extra: true }],
        free: { anything: { goes: 1 } },
        labels: { k1: { v: 'x', w: 'y' } },
        template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { b: 'x', c: 'y' }, other: 1 },
      },
      status: { x: 1 },
    };
    const pruned = prune(obj, schema);
    expect(pruned.sort()).toEqual(
      [
        'metadata.bogus',
        'spec.foo',
        'spec.list[0].extra',
        'spec.labels.k1.w',
        'spec.template.spec.c',
        'spec.template.other',
        'status',
      ].sort(),
    );
    expect(obj).toEqual({
      apiVersion: 'x/v1',
      kind: 'X',
      metadata: { name: 'a', labels: { k: 'v' } },
      spec: {
        a: 'x',
        list: [{ n: 'a' }],
        free: { anything: { goes: 1 } },
        labels: { k1: { v: 'x' } },
        template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { b: 'x' } },
      },
    });
  });

  it('keeps everything under a root with x-kubernetes-preserve-unknown-fields', () => {
    const obj = { apiVersion: 'a/v1', kind: 'A', spec: { z: 1 } };
    expect(prune(obj, { type: 'object', 'x-kubernetes-preserve-unknown-fields': true })).toEqual([]);
    expect(obj.spec).toEqual({ z: 1 });
  });

  it('keeps additionalProperties: true maps', () => {
    const obj = { spec: { m: { a: 1 } } };
    expect(
      prune(obj, { type: 'object', properties: { spec: { type: 'object', properties: { m: { type: 'object', additionalProperties: true } } } } }),
    ).toEqual([]);
  });
});
