import { describe, expect, it } from 'vitest';
import { defaultAPIBindingName } from './default-binding-names.js';

describe('defaultAPIBindingName (kcp generateAPIBindingName)', () => {
  it('is the export name and five lower-case base-62 characters of sha224(cluster|path|export)', () => {
    // Cross-checked with an independent big-integer implementation of Go's big.Int.Text(62).
    expect(defaultAPIBindingName('2x8k1q0v9m3fgh7a', 'root:provider', 'widgets')).toBe('widgets-5lok4');
    expect(defaultAPIBindingName('abc', 'root', 'tenancy.kcp.io')).toBe('tenancy.kcp.io-6pdv0');
  });

  it('differs per consumer cluster and per export path, so each workspace gets its own stable name', () => {
    const a = defaultAPIBindingName('c1', 'root:p', 'widgets');
    expect(defaultAPIBindingName('c1', 'root:p', 'widgets')).toBe(a);
    expect(defaultAPIBindingName('c2', 'root:p', 'widgets')).not.toBe(a);
    expect(defaultAPIBindingName('c1', 'root:q', 'widgets')).not.toBe(a);
  });

  it('cuts export names longer than 247 characters so the name fits 253', () => {
    const kept = defaultAPIBindingName('root:some:ws', 'root:some:export:ws', 'a'.repeat(247));
    expect(kept).toMatch(/^a{247}-[0-9a-z]{5}$/);
    const cut = defaultAPIBindingName('root:some:ws', 'root:some:export:ws', 'a'.repeat(248));
    expect(cut).toMatch(/^a{247}-[0-9a-z]{5}$/);
    const long1 = defaultAPIBindingName('root:some:ws', 'root:some:export:ws', `${'x'.repeat(250)}one`);
    const long2 = defaultAPIBindingName('root:some:ws', 'root:some:export:ws', `${'x'.repeat(250)}two`);
    expect(long1).toHaveLength(253);
    expect(long1).not.toBe(long2);
  });
});
