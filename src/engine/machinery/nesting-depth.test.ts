import { describe, expect, it } from 'vitest';
import { MAX_NESTING_DEPTH, nestingTooDeep } from './nesting-depth.js';

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
