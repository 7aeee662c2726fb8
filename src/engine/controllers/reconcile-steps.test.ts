import { describe, expect, it } from 'vitest';
import { runSteps, type ReconcileStep, type SyncReconcileStep } from './reconcile-steps.js';

describe('runSteps', () => {
  it('runs steps in order until one stops, synchronously while they are', () => {
    const ran: string[] = [];
    const step = (name: string, result: 'continue' | 'stop'): SyncReconcileStep<string[]> => (log) => {
      log.push(name);
      return result;
    };
    expect(runSteps([step('a', 'continue'), step('b', 'stop'), step('c', 'continue')], ran)).toBeUndefined();
    expect(ran).toEqual(['a', 'b']);
  });

  it('passes a requeue on, and returns nothing when every step continues', () => {
    expect(runSteps([() => 'continue', () => ({ requeueAfterMs: 30 }), () => 'stop'], {})).toEqual({ requeueAfterMs: 30 });
    expect(runSteps([() => 'continue', () => 'continue'], {})).toBeUndefined();
  });

  it('goes on after an asynchronous step, and stops on its result', async () => {
    const ran: string[] = [];
    const steps: ReconcileStep<string[]>[] = [
      (log) => (log.push('sync'), 'continue'),
      async (log) => (log.push('async'), 'continue' as const),
      (log) => (log.push('after'), { requeueAfterMs: 5 }),
      (log) => (log.push('never'), 'stop'),
    ];
    const result = runSteps(steps, ran);
    expect(result).toBeInstanceOf(Promise);
    expect(ran).toEqual(['sync', 'async']);
    await expect(result).resolves.toEqual({ requeueAfterMs: 5 });
    expect(ran).toEqual(['sync', 'async', 'after']);
  });
});
