import { describe, expect, it } from 'vitest';
import { newClusterName } from './kcp-names.js';

describe('newClusterName', () => {
  it('gives kcp-shaped names (16 lower-case base-36 characters), all different', () => {
    const names = Array.from({ length: 20_000 }, () => newClusterName());
    for (const name of names.slice(0, 100)) expect(name).toMatch(/^[0-9a-z]{16}$/);
    expect(new Set(names).size).toBe(names.length);
  });

  it('sorts a name made later after one made earlier, so new clusters append to the key ranges', async () => {
    const earlier = Array.from({ length: 50 }, () => newClusterName());
    await new Promise((resolve) => setTimeout(resolve, 5));
    const later = Array.from({ length: 50 }, () => newClusterName());
    for (const a of earlier) for (const b of later) expect(a < b).toBe(true);
  });
});
