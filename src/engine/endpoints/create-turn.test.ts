import { stat } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTurn, requestServed, requestStarted } from './create-turn.js';

/** Runs `fn` inside an I/O callback (as a request's handler runs) and resolves once `until` is called. */
function inIoCallback(fn: (until: () => void) => void): Promise<void> {
  return new Promise((done) => stat(import.meta.filename, () => fn(done)));
}

/** A create waited for as the resource handler does (at once when createTurn needs no wait). */
async function create(order: string[], name: string): Promise<void> {
  const turn = createTurn();
  if (turn) await turn;
  order.push(name);
}

describe('createTurn, with other requests in flight', () => {
  // The create's own request and three others.
  beforeEach(() => {
    for (let i = 0; i < 4; i++) requestStarted();
  });
  afterEach(() => {
    for (let i = 0; i < 4; i++) requestServed();
  });

  it('holds creates until the check phase of their turn, then lets them run back to back in the order they came', async () => {
    const order: string[] = [];
    await inIoCallback((until) => {
      // Scheduled before the first create waits: runs first (a create is never run as a plain microtask).
      setImmediate(() => order.push('earlier immediate'));
      void create(order, 'create 1');
      process.nextTick(() => order.push('tick'));
      void Promise.resolve().then(() => order.push('microtask'));
      void create(order, 'create 2');
      void create(order, 'create 3');
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
    const first = createTurn()!.then(() => {
      order.push('first');
      throw new Error('refused');
    });
    const second = createTurn()!.then(() => order.push('second'));
    await expect(first).rejects.toThrow('refused');
    await second;
    await createTurn();
    expect(order).toEqual(['first', 'second']);
  });
});

describe('createTurn, alone', () => {
  it('lets a create go on at once when its request is the only one in flight, and waits again once others are', async () => {
    requestStarted();
    try {
      expect(createTurn()).toBeUndefined();
      const order: string[] = [];
      await inIoCallback((until) => {
        setImmediate(() => order.push('immediate'));
        void create(order, 'alone');
        setImmediate(until);
      });
      expect(order).toEqual(['alone', 'immediate']);
      requestStarted();
      const turn = createTurn();
      expect(turn).toBeInstanceOf(Promise);
      await turn;
      requestServed();
    } finally {
      requestServed();
    }
    expect(createTurn()).toBeUndefined();
  });
});
