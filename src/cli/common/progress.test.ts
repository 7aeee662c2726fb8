import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Io } from './io.js';
import { withProgress } from './progress.js';

function pipeIo(): Io & { errors: string[] } {
  const errors: string[] = [];
  return { out: () => {}, err: (t) => void errors.push(t), stdoutIsTTY: false, stderrIsTTY: false, stdinIsTTY: false, env: {}, errors };
}

describe('withProgress without a terminal', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('says nothing during a quick wait', async () => {
    const io = pipeIo();
    await withProgress(io, 'Waiting', async (p) => {
      p.update('waiting: step 1');
      await vi.advanceTimersByTimeAsync(500);
    });
    expect(io.errors).toEqual([]);
  });

  it('after a second, prints what it waits for, once per change', async () => {
    const io = pipeIo();
    await withProgress(io, 'Waiting', async (p) => {
      p.update('waiting: step 1');
      await vi.advanceTimersByTimeAsync(1000);
      p.update('waiting: step 1');
      p.update('waiting: step 2');
    });
    expect(io.errors).toEqual(['waiting: step 1\n', 'waiting: step 2\n']);
  });
});
