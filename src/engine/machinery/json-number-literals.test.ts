import { describe, expect, it } from 'vitest';
import { jsonNumberLiterals } from './json-number-literals.js';

describe('jsonNumberLiterals', () => {
  it('keeps the text of each number JSON.parse cannot print back, by container and key or index', () => {
    const text = '{"a": 1.0, "b": [1, 2e3, {"c": 15.000}], "s": "v1.0", "k\\"q" : 1E3, "f": 1.5, "z": -0, "n": 12345678901234567}';
    const parsed = JSON.parse(text);
    const literals = jsonNumberLiterals(text, parsed)!;
    expect(literals.get(parsed)).toEqual(new Map<string | number, string>([['a', '1.0'], ['k"q', '1E3'], ['z', '-0'], ['n', '12345678901234567']]));
    expect(literals.get(parsed.b)).toEqual(new Map([[1, '2e3']]));
    expect(literals.get(parsed.b[2])).toEqual(new Map([['c', '15.000']]));
  });

  it('walks a repeated key’s earlier value beside the kept one, as Go decodes both (a mismatch is skipped)', () => {
    const text = '{"d": {"x": 1.0}, "d": {"x": 1}, "e": [2.0], "e": {"y": 3}}';
    const parsed = JSON.parse(text);
    const literals = jsonNumberLiterals(text, parsed)!;
    expect(literals.get(parsed.d)).toEqual(new Map([['x', '1.0']]));
    expect(literals.get(parsed.e)).toBeUndefined();
  });

  it('costs nothing for a body without such numbers', () => {
    expect(jsonNumberLiterals('{"a": 1, "s": "x", "t": "2026-11-30T00:00:00Z"}', { a: 1, s: 'x' })).toBeUndefined();
    // A string that looks like one is read as a string.
    const text = '{"image": "nginx:1.25", "a": 2}';
    expect(jsonNumberLiterals(text, JSON.parse(text))).toBeUndefined();
  });
});
