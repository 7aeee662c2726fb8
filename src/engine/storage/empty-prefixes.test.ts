import { describe, expect, it } from 'vitest';
import { EmptyPrefixes } from './empty-prefixes.js';

describe('EmptyPrefixes', () => {
  it('forgets exactly the prefixes a created key falls under', () => {
    const empty = new EmptyPrefixes(10);
    for (const p of ['/a/', '/a/b/', '/a/bc/', '/ab/', '/x/']) empty.remember(p);
    empty.forgetUnder('/a/b/c');
    expect(['/a/', '/a/b/', '/a/bc/', '/ab/', '/x/'].filter((p) => empty.has(p))).toEqual(['/a/bc/', '/ab/', '/x/']);
  });

  it('keeps only prefixes ending in a slash, and no more than its bound, the oldest going first', () => {
    const empty = new EmptyPrefixes(2);
    empty.remember('/a');
    expect(empty.has('/a')).toBe(false);
    empty.remember('/1/');
    empty.remember('/2/');
    empty.remember('/3/');
    expect(['/1/', '/2/', '/3/'].map((p) => empty.has(p))).toEqual([false, true, true]);
  });
});
