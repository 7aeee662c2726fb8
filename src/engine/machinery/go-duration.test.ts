import { describe, expect, it } from 'vitest';
import { parseGoDuration } from './go-duration.js';

const ms = (text: string) => Number(parseGoDuration(text)) / 1e6;
const error = (text: string) => {
  try {
    parseGoDuration(text);
  } catch (err) {
    return (err as Error).message;
  }
  return undefined;
};

describe("Go's time.ParseDuration", () => {
  it('reads what Go reads', () => {
    expect(ms('32s')).toBe(32_000);
    expect(ms('1m30s')).toBe(90_000);
    expect(ms('1.5h')).toBe(5_400_000);
    expect(ms('.5s')).toBe(500);
    expect(ms('300ms')).toBe(300);
    expect(ms('1500us')).toBe(1.5);
    expect(ms('1500µs')).toBe(1.5);
    expect(ms('-2s')).toBe(-2000);
    expect(ms('+2s')).toBe(2000);
    expect(ms('0')).toBe(0);
    expect(ms('-0')).toBe(0);
  });

  it("refuses what Go refuses, in Go's words", () => {
    expect(error('abc')).toBe('time: invalid duration "abc"');
    expect(error('')).toBe('time: invalid duration ""');
    expect(error('-')).toBe('time: invalid duration "-"');
    expect(error('.s')).toBe('time: invalid duration ".s"');
    expect(error('10')).toBe('time: missing unit in duration "10"');
    expect(error('1.5.5s')).toBe('time: missing unit in duration "1.5.5s"');
    expect(error('3x')).toBe('time: unknown unit "x" in duration "3x"');
    expect(error('1s2')).toBe('time: missing unit in duration "1s2"');
    expect(error('9999999999999999999h')).toBe('time: invalid duration "9999999999999999999h"');
  });
});
