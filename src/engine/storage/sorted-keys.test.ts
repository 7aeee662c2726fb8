import { describe, expect, it } from 'vitest';
import { SortedKeys } from './sorted-keys.js';

describe('SortedKeys', () => {
  it('agrees with a plain sorted array under random inserts, deletes and range reads', () => {
    let seed = 42;
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    const keys = new SortedKeys();
    const reference = new Set<string>();
    const prefixes = ['', '/r/', '/r/a/', '/r/a1/', '/r/b/', '/r/a', '/s/'];
    for (let step = 0; step < 20000; step++) {
      const key = `/${random(3) ? 'r' : 's'}/${['a', 'a1', 'b'][random(3)]}/${random(3000)}`;
      if (random(3) === 0) {
        keys.delete(key);
        reference.delete(key);
      } else {
        keys.insert(key);
        reference.add(key);
      }
      if (step % 997 === 0) {
        const sorted = [...reference].sort();
        expect(keys.size).toBe(sorted.length);
        for (const prefix of prefixes) {
          const expected = sorted.filter((k) => k.startsWith(prefix));
          expect([...keys.range(prefix)]).toEqual(expected);
          expect(keys.count(prefix)).toBe(expected.length);
          const after = expected[Math.floor(expected.length / 3)];
          if (after !== undefined) {
            const rest = expected.filter((k) => k > after);
            expect([...keys.range(prefix, after)]).toEqual(rest);
            expect(keys.count(prefix, after)).toBe(rest.length);
          }
          expect([...keys.range(prefix, '/')]).toEqual(expected);
        }
      }
    }
  });
});
