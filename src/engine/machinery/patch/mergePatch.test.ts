import { describe, expect, it } from 'vitest';
import { StatusError } from '../status.js';
import { applyMergePatch } from './mergePatch.js';

describe('applyMergePatch', () => {
  // RFC 7386 appendix A, the cases whose target and patch are objects.
  it.each([
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ])('RFC 7386: %j + %j', (target, patch, expected) => {
    expect(applyMergePatch(target, patch)).toEqual(expected);
  });

  it.each([
    ['kubectl label', { metadata: { labels: { env: 'prod' } } }, { name: 'x', labels: { app: 'a', env: 'prod' } }],
    ['kubectl label env-', { metadata: { labels: { app: null } } }, { name: 'x', labels: {} }],
    ['kubectl annotate', { metadata: { annotations: { 'example.com/a': 'b' } } }, { name: 'x', labels: { app: 'a' }, annotations: { 'example.com/a': 'b' } }],
    ['lists are replaced, never merged', { metadata: { finalizers: ['z'] } }, { name: 'x', labels: { app: 'a' }, finalizers: ['z'] }],
  ])('%s', (_name, patch, metadata) => {
    expect(applyMergePatch({ metadata: { name: 'x', labels: { app: 'a' } } }, patch)).toEqual({ metadata });
  });

  it('keeps nulls inside arrays, which are taken verbatim', () => {
    expect(applyMergePatch({}, { list: [{ a: null }, null] })).toEqual({ list: [{ a: null }, null] });
  });

  it('treats keys such as __proto__ and constructor as data', () => {
    const patch = JSON.parse('{"data":{"__proto__":{"polluted":1},"constructor":"c"},"__proto__":{"x":1}}');
    const out = applyMergePatch({ data: {} }, patch);
    expect(Object.keys(out)).toEqual(['data', '__proto__']);
    expect(JSON.stringify(out)).toBe('{"data":{"__proto__":{"polluted":1},"constructor":"c"},"__proto__":{"x":1}}');
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('never modifies its inputs and never shares structure with them', () => {
    const obj = { metadata: { labels: { a: 'b' } }, spec: { list: [1] } };
    const patch = { metadata: { labels: { c: 'd' } }, status: { list: [2] } };
    const before = structuredClone({ obj, patch });
    const out = applyMergePatch(obj, patch) as any;
    out.spec.list.push(9);
    out.status.list.push(9);
    expect({ obj, patch }).toEqual(before);
  });

  it.each([
    ['an array', ['c'], 'got array'],
    ['null', null, 'got null'],
    ['a string', 'bar', 'got string'],
    ['a number', 1, 'got number'],
  ])('rejects %s as a patch with 400', (_name, patch, detail) => {
    expect(() => applyMergePatch({ a: 'b' }, patch)).toThrow(StatusError);
    expect(() => applyMergePatch({ a: 'b' }, patch)).toThrow(`error decoding patch: a JSON merge patch must be a JSON object, ${detail}`);
    try {
      applyMergePatch({ a: 'b' }, patch);
    } catch (err) {
      expect((err as StatusError).code).toBe(400);
    }
  });
});
