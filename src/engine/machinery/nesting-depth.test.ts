import { describe, expect, it } from 'vitest';
import { MAX_NESTING_DEPTH, nestingTooDeep, yamlTooDeep } from './nesting-depth.js';

const nested = (depth: number) => JSON.parse(`${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`) as unknown;

describe('nestingTooDeep', () => {
  it('accepts up to the limit and refuses one level more, for objects and arrays', () => {
    expect(nestingTooDeep(nested(MAX_NESTING_DEPTH))).toBeUndefined();
    expect(nestingTooDeep(nested(MAX_NESTING_DEPTH + 1))).toBe(`exceeded max depth of ${MAX_NESTING_DEPTH} nested objects or arrays`);
    expect(nestingTooDeep(JSON.parse(`${'['.repeat(MAX_NESTING_DEPTH + 1)}${']'.repeat(MAX_NESTING_DEPTH + 1)}`))).toMatch(/exceeded max depth/);
    expect(nestingTooDeep('scalar')).toBeUndefined();
  });

  it('walks a 100,000-level value without overflowing its own stack', () => {
    let value: unknown = 1;
    for (let i = 0; i < 100_000; i++) value = [value];
    expect(nestingTooDeep(value)).toMatch(/exceeded max depth/);
  });
});

describe('yamlTooDeep', () => {
  const seq = (n: number) => `${'- '.repeat(n)}x`;
  const flow = (n: number) => `a: ${'['.repeat(n)}${']'.repeat(n)}`;
  const indented = (n: number) => Array.from({ length: n }, (_, i) => `${' '.repeat(i)}k:`).join('\n') + ' 1';

  it('passes documents nested up to the bound, block or flow, and refuses one level more', () => {
    for (const shape of [seq, flow, indented]) {
      expect(yamlTooDeep(shape(400), 500), shape.name).toBeUndefined();
      expect(yamlTooDeep(shape(600), 500), shape.name).toBe('exceeded max depth of 500 nested collections');
    }
    expect(yamlTooDeep('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  script: |\n    - - - - [[[[ {{{{\n')).toBeUndefined();
  });

  it('stops early and never recurses: a 3 MB wall of brackets is refused without a stack overflow', () => {
    expect(yamlTooDeep('['.repeat(3 * 1024 * 1024))).toMatch(/exceeded max depth/);
    expect(yamlTooDeep(seq(200_000))).toMatch(/exceeded max depth/);
  });
});
