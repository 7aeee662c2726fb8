/**
 * Random objects and random patches, built from the vocabulary that trips patch code (directives, prototype
 * member names, lists of every kind): whatever a client sends, the patch functions return an object or throw a
 * StatusError that is not a 500, leave their inputs alone and never reach Object.prototype.
 */
import { describe, expect, it } from 'vitest';
import { StatusError } from '../status.js';
import { applyJsonPatch } from './jsonPatch.js';
import type { JsonObject } from './json.js';
import { applyMergePatch } from './mergePatch.js';
import { patchSchemaFor } from '../../builtin/test-support.js';
import { applyStrategicMergePatch } from './strategic.js';
import { rng } from '../../../../test/helpers/seeded-random.js';

const KEYS = [
  'metadata', 'finalizers', 'ownerReferences', 'labels', 'spec', 'ports', 'secrets', 'data', 'uid', 'name', 'port', 'type',
  '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '$patch', '$retainKeys', '$setElementOrder/finalizers',
  '$setElementOrder/ownerReferences', '$setElementOrder/ports', '$deleteFromPrimitiveList/finalizers', '$setElementOrder', '$x',
];
const SCALARS: unknown[] = [null, 'delete', 'replace', 'merge', 'u1', 'u2', 'a', 80, 443, true, 0, ''];

function value(r: () => number, depth: number): unknown {
  const pick = r();
  if (depth <= 0 || pick < 0.4) return SCALARS[Math.floor(r() * SCALARS.length)];
  if (pick < 0.7) return Array.from({ length: Math.floor(r() * 4) }, () => value(r, depth - 1));
  return object(r, depth - 1);
}

function object(r: () => number, depth: number): JsonObject {
  const out: JsonObject = {};
  const n = Math.floor(r() * 5);
  for (let i = 0; i < n; i++) {
    Object.defineProperty(out, KEYS[Math.floor(r() * KEYS.length)]!, { value: value(r, depth), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

const POINTERS = ['', '/metadata', '/metadata/hasOwnProperty', '/spec', '/metadata/finalizers/0', '/metadata/finalizers/-', '/spec/ports/1', '/constructor', '/constructor/prototype/x', '/data/__proto__', '/a~1b', '/x~2', 'nope', '/metadata/labels/toString'];

function jsonOps(r: () => number): unknown {
  if (r() < 0.1) return value(r, 2);
  return Array.from({ length: Math.floor(r() * 4) }, () => {
    const op: JsonObject = { op: ['add', 'remove', 'replace', 'move', 'copy', 'test', 'bogus'][Math.floor(r() * 7)] };
    if (r() < 0.95) op.path = POINTERS[Math.floor(r() * POINTERS.length)];
    if (r() < 0.6) op.from = POINTERS[Math.floor(r() * POINTERS.length)];
    if (r() < 0.8) op.value = value(r, 2);
    return op;
  });
}

const baseObject = (r: () => number): JsonObject => ({
  ...object(r, 3),
  metadata: { name: 'x', finalizers: ['a', 'b'], ownerReferences: [{ uid: 'u1' }, { uid: 'u2', name: 'n' }], labels: { a: 'b' } },
  spec: { ports: [{ port: 80 }, { port: 443, name: 'https' }] },
});

function check(fn: () => JsonObject, inputs: unknown[], run: number): void {
  const before = JSON.stringify(inputs);
  try {
    const out = fn();
    expect(typeof out === 'object' && out !== null && !Array.isArray(out), `run ${run}`).toBe(true);
    JSON.stringify(out);
  } catch (err) {
    expect(err, `run ${run}: ${String(err)}`).toBeInstanceOf(StatusError);
    expect((err as StatusError).code, `run ${run}: ${(err as Error).message}`).not.toBe(500);
  }
  expect(JSON.stringify(inputs), `run ${run} modified its input`).toBe(before);
  expect(Object.getOwnPropertyNames(Object.prototype), `run ${run}`).toEqual(PROTOTYPE_NAMES);
}

const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype);
const RUNS = 1500;

describe('random patches', () => {
  const schemas = [patchSchemaFor('', 'Service'), patchSchemaFor('', 'ServiceAccount'), patchSchemaFor('', 'ConfigMap')];

  it('strategic merge patch', () => {
    for (let run = 1; run <= RUNS; run++) {
      const r = rng(run);
      const obj = baseObject(r);
      const patch = r() < 0.05 ? value(r, 2) : object(r, 4);
      const schema = schemas[run % schemas.length]!;
      check(() => applyStrategicMergePatch(obj, patch, schema), [obj, patch], run);
    }
  });

  it('JSON merge patch', () => {
    for (let run = 1; run <= RUNS; run++) {
      const r = rng(run);
      const obj = baseObject(r);
      const patch = r() < 0.05 ? value(r, 2) : object(r, 4);
      check(() => applyMergePatch(obj, patch), [obj, patch], run);
    }
  });

  it('JSON patch', () => {
    for (let run = 1; run <= RUNS; run++) {
      const r = rng(run);
      const obj = baseObject(r);
      const ops = jsonOps(r);
      check(() => applyJsonPatch(obj, ops), [obj, ops], run);
    }
  });

  it('deeply nested input is a 400, not a crash', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    const patch = { spec: deep };
    for (const fn of [() => applyMergePatch({}, patch), () => applyStrategicMergePatch({}, patch, schemas[0]!)]) {
      try {
        fn();
      } catch (err) {
        expect(err).toBeInstanceOf(StatusError);
        expect((err as StatusError).code).toBe(400);
      }
    }
  });
});
