import { describe, expect, it } from 'vitest';
import { normalizeArgument } from './use.js';

describe("ws use argument normalisation (kcp's preprocessing)", () => {
  const home = '/home/alice';
  it('maps a shell-expanded ~ back to ~ and / to :', () => {
    expect(normalizeArgument('/home/alice', { home, short: false }).name).toBe('~');
    expect(normalizeArgument('/home/alice/sub', { home, short: false }).name).toBe('~:sub');
    expect(normalizeArgument('../foo', { home, short: false }).name).toBe('..:foo');
  });

  it("makes root… absolute with a note, but not with --short", () => {
    const r = normalizeArgument('root:org', { home, short: false });
    expect(r.name).toBe(':root:org');
    expect(r.notes[0]).toMatch(/^Note: Using 'root:' to define an absolute path is no longer supported/);
    expect(normalizeArgument('root', { home, short: true })).toEqual({ name: 'root', notes: [] });
    expect(normalizeArgument('rooty', { home, short: false }).name).toBe('rooty');
  });

  it('turns no argument into ~ with the cd-semantics note', () => {
    const r = normalizeArgument('', { home, short: false });
    expect(r.name).toBe('~');
    expect(r.notes[0]).toMatch(/^Note: 'kubectl ws' now matches 'cd' semantics/);
    expect(normalizeArgument('', { home, short: true }).notes).toEqual([]);
  });
});
