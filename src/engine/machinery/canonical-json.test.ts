import { describe, expect, it } from 'vitest';
import { canonical, canonicalView, ChangeDetector, jsonEqual } from './canonical-json.js';

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

  it('sorts, drops undefined and shares canonical members in every combination of the three', () => {
    const canonicalChild = { a: 1, b: [{ c: 1 }] };
    const cases: Record<string, unknown>[] = [
      // Keys unsorted, members canonical: a sorted copy holding the very same members.
      { z: canonicalChild, a: 'x', m: null },
      // Keys sorted, a member changed: the copy keeps key order, only that member is new.
      { a: canonicalChild, b: { y: 1, x: 2 }, c: 3 },
      // Both, with undefined members next to changed ones, and integer-like keys (enumerated first by JavaScript).
      { z: { b: undefined, a: [{ d: 1, c: 2 }] }, '10': 'ten', '9': 'nine', a: undefined, m: canonicalChild },
      // A changed member deep in a chain of unsorted maps.
      { y: { y: { y: { y: { b: 1, a: 2 }, x: 0 }, x: 0 }, x: 0 }, x: 0 },
    ];
    for (const value of cases) {
      const view = canonicalView(value) as Record<string, unknown>;
      expect(JSON.stringify(view)).toBe(JSON.stringify(canonical(value)));
      expect(view).not.toBe(value);
      for (const key of Object.keys(view)) if (value[key] === canonicalChild) expect(view[key]).toBe(canonicalChild);
    }
  });
});

describe('ChangeDetector', () => {
  it('answers as jsonEqual while within its budget', () => {
    const values: unknown[] = [
      null, undefined, 0, 1, '1', true, false, 'x', [], {}, [1, 2], [2, 1], [null], [undefined], { a: 1, b: 2 }, { b: 2, a: 1 },
      { a: undefined, b: 2 }, { a: null, b: 2 }, { a: [1, { c: 'x' }] }, { a: [1, { c: 'y' }] }, { a: { b: { c: 1 } } }, { a: { b: { c: 1, d: 1 } } },
    ];
    const changes = new ChangeDetector();
    for (const a of values) for (const b of values) expect([a, b, changes.unchanged(a, b)]).toEqual([a, b, jsonEqual(a, b)]);
  });

  it('past its budget every answer is "changed"', () => {
    const changes = new ChangeDetector(10);
    const list = Array.from({ length: 8 }, () => 1);
    expect(changes.unchanged(list, [...list])).toBe(true);
    expect(changes.unchanged(list, [...list])).toBe(false);
    expect(changes.unchanged(1, 1)).toBe(false);
  });
});
