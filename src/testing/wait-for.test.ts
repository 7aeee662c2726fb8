import { describe, expect, it } from 'vitest';
import { waitFor } from './wait-for.js';

describe('waitFor', () => {
  it('retries while the condition throws or returns false, and returns what it returns then', async () => {
    let n = 0;
    expect(await waitFor(() => (++n >= 3 ? `after ${n}` : false), { interval: 1 })).toBe('after 3');
    let m = 0;
    await waitFor(() => expect(++m).toBe(2), { interval: 1 });
    expect(m).toBe(2);
  });

  it('on timeout throws the last failure, saying how long it waited and for what', async () => {
    await expect(waitFor(() => expect(1 + 1).toBe(3), { timeout: 30, interval: 5, message: 'the sum' })).rejects.toThrow(
      /^waitFor timed out after 30 ms waiting for the sum: expected 2 to be 3/,
    );
    await expect(waitFor(() => false, { timeout: 20, interval: 5 })).rejects.toThrow(
      'waitFor timed out after 20 ms: the condition returned false',
    );
  });
});
