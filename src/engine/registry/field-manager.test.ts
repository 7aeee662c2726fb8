/** FieldManager's create cache: one field set per object shape, never another shape's. */
import { describe, expect, it } from 'vitest';
import { customResourceTypes } from '../apiextensions/cr-types.js';
import type { CustomResourceDefinition } from '../apiextensions/crd.js';
import { rng } from '../../../test/helpers/seeded-random.js';
import { FieldManager } from './field-manager.js';
import type { KubeObject } from './types.js';

const crd = {
  metadata: { name: 'things.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Cluster',
    names: { plural: 'things', singular: 'thing', kind: 'Thing', listKind: 'ThingList' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
  status: { acceptedNames: { plural: 'things', singular: 'thing', kind: 'Thing', listKind: 'ThingList' } },
} as unknown as CustomResourceDefinition;
const thing = customResourceTypes(crd)[0]!;

describe('FieldManager create shapes', () => {
  // The shape key writes each map key as `<length>:<key>`. Keys made of that encoding's own characters (digits,
  // colons, the brackets and the one-letter value marks) must never make two shapes read alike: a create of one
  // shape would be stamped with fields another shape owns (a tenant's object recording fields it does not have).
  const keys = ['', '0', '1', ':', '1:', '1:a', '1:0', 'a', 'b', ',', 'a:0,b', 'a0', 'a0b', '0a', '{', '}', '{b0}', 'u', 'a:0', '0,b'];

  function generate(random: () => number, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const n = Math.floor(random() * 4);
    for (let i = 0; i < n; i++) {
      const key = keys[Math.floor(random() * keys.length)]!;
      const r = random();
      out[key] = depth > 0 && r < 0.25 ? generate(random, depth - 1) : r < 0.3 ? [Math.floor(random() * 2)] : r < 0.35 ? null : 1;
    }
    return out;
  }

  const created = (manager: FieldManager, obj: KubeObject) => {
    const copy = structuredClone(obj);
    manager.recordWrite(thing, undefined, copy, { manager: 'maker' });
    return (copy.metadata!.managedFields as { fieldsV1: unknown }[]).map((e) => e.fieldsV1);
  };

  it('gives every create the fields a fresh computation gives it, over thousands of shapes built from the encoding’s own characters (fails with keys written bare, or as key:value,)', () => {
    const seed = 1129;
    const random = rng(seed);
    const cached = new FieldManager();
    const differ: string[] = [];
    let hits = 0;
    const seen = new Set<string>();
    for (let i = 0; i < 6000; i++) {
      const obj: KubeObject = { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 'x' }, spec: generate(random, 2) };
      if (random() < 0.3) obj.metadata!.annotations = generate(random, 0) as Record<string, string>;
      if (random() < 0.3) obj.metadata!.labels = generate(random, 0) as Record<string, string>;
      const text = JSON.stringify(obj);
      if (seen.has(text)) hits++;
      seen.add(text);
      const got = created(cached, obj);
      if (JSON.stringify(got) !== JSON.stringify(created(new FieldManager(), obj))) differ.push(text);
    }
    expect(differ.slice(0, 3)).toEqual([]);
    // Shapes repeat (the cache is exercised), and most are new (there are collisions to find).
    expect(hits).toBeGreaterThan(50);
    expect(seen.size).toBeGreaterThan(2000);
  });
});
