import { stat } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createTurn } from './create-turn.js';

/** Runs `fn` inside an I/O callback (as a request's handler runs) and resolves once `until` is called. */
function inIoCallback(fn: (until: () => void) => void): Promise<void> {
  return new Promise((done) => stat(import.meta.filename, () => fn(done)));
}

describe('createTurn', () => {
  it('holds creates until the check phase of their turn, then lets them run back to back in the order they came', async () => {
    const order: string[] = [];
    await inIoCallback((until) => {
      // Scheduled before the first create waits: runs first (a create is never run as a plain microtask).
      setImmediate(() => order.push('earlier immediate'));
      void createTurn().then(() => order.push('create 1'));
      process.nextTick(() => order.push('tick'));
      void Promise.resolve().then(() => order.push('microtask'));
      void createTurn().then(() => order.push('create 2'));
      void createTurn().then(() => order.push('create 3'));
      // Scheduled after: the turn's creates have all run by then, none left for a later turn.
      setImmediate(() => {
        order.push('later immediate');
        until();
      });
    });
    expect(order).toEqual(['tick', 'microtask', 'earlier immediate', 'create 1', 'create 2', 'create 3', 'later immediate']);
  });

  it('starts a new group for creates that wait after a group was let go, and a failing create does not hold the others', async () => {
    const order: string[] = [];
    await createTurn();
    const first = createTurn().then(() => {
      order.push('first');
      throw new Error('refused');
    });
    const second = createTurn().then(() => order.push('second'));
    await expect(first).rejects.toThrow('refused');
    await second;
    // Waited for in a new turn: still answered.
    await createTurn();
    expect(order).toEqual(['first', 'second']);
  });
});
