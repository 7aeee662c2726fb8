import { describe, expect, it } from 'vitest';
import { generateName, MAX_GENERATED_NAME_LENGTH, NAME_ALPHABET } from './generate-name.js';

describe('generateName', () => {
  it('appends five characters from the kube alphabet', () => {
    const name = generateName('web-');
    expect(name).toMatch(/^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it('truncates the base so the name fits in 63 characters', () => {
    const base = 'a'.repeat(100);
    const name = generateName(base);
    expect(name).toHaveLength(63);
    expect(name.startsWith('a'.repeat(MAX_GENERATED_NAME_LENGTH))).toBe(true);
    expect(generateName('a'.repeat(58))).toHaveLength(63);
    expect(generateName('a'.repeat(57))).toHaveLength(62);
  });

  it('uses every alphabet character and nothing else over many draws', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) for (const c of generateName('').split('')) seen.add(c);
    expect([...seen].sort().join('')).toBe([...NAME_ALPHABET].sort().join(''));
  });

  it('works with an empty base', () => {
    expect(generateName('')).toHaveLength(5);
  });
});
