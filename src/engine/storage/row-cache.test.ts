import { describe, expect, it } from 'vitest';
import { RowCache } from './row-cache.js';

const row = (key: string, bytes: number, revision = 1) => ({ key, value: 'x'.repeat(bytes), revision, createRevision: 1 });

describe('RowCache', () => {
  it('never holds more than its byte budget, pushing out the oldest rows first', () => {
    const cache = new RowCache(10_000, 4_000);
    for (let i = 0; i < 100; i++) {
      cache.set(row(`k${i}`, 900));
      expect(cache.usedBytes).toBeLessThanOrEqual(10_000);
    }
    expect(cache.get('k99')?.value.length).toBe(900);
    expect(cache.get('k0')).toBeUndefined();
    expect(cache.size).toBe(Math.floor(10_000 / (900 + 2 + 96)));
  });

  it('keeps no row bigger than its row limit, and forgets the older version of a row it replaces', () => {
    const cache = new RowCache(10_000, 4_000);
    cache.set(row('a', 100));
    cache.set(row('a', 5_000));
    expect(cache.get('a')).toBeUndefined();
    expect(cache.usedBytes).toBe(0);
    cache.set(row('b', 100, 1));
    cache.set(row('b', 200, 2));
    expect(cache.get('b')?.revision).toBe(2);
    expect(cache.usedBytes).toBe(1 + 200 + 96);
    cache.delete('b');
    cache.delete('b');
    expect(cache.usedBytes).toBe(0);
  });
});
