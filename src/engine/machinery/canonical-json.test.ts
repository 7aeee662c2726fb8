import { describe, expect, it } from 'vitest';
import { canonical, canonicalView } from './canonical-json.js';

describe('canonicalView', () => {
  it('serialises exactly like canonical(), reusing what is already canonical', () => {
    const sorted = { a: 1, b: { c: [1, { d: 2, e: null }], f: 'x' } };
    expect(canonicalView(sorted)).toBe(sorted);
    const cases: unknown[] = [
      { b: 1, a: 2 },
      { a: undefined, b: [undefined, { z: 1, y: 2 }] },
      { meta: { labels: { z: 'z', a: 'a' } }, spec: sorted },
      [{ b: 1, a: 1 }, 'x', 3, null],
      'plain',
      null,
    ];
    for (const value of cases) expect(JSON.stringify(canonicalView(value))).toBe(JSON.stringify(canonical(value)));
    const mixed = { a: sorted, z: { y: 1, x: 2 } };
    const view = canonicalView(mixed) as { a: unknown; z: unknown };
    expect(view).not.toBe(mixed);
    expect(view.a).toBe(sorted);
    expect(Object.keys(view.z as object)).toEqual(['x', 'y']);
    expect(Object.keys(mixed.z)).toEqual(['y', 'x']);
  });
});
