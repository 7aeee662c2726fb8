import { mkdtempSync, rmSync, stat } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StatusError } from '../machinery/status.js';
import { createMemoryStore } from '../storage/memory-store.js';
import { openSqliteStore } from '../storage/sqlite-store.js';
import type { Store, StoreEvent } from '../storage/store.js';
import { createTurn, requestServed, requestStarted, turnCommits, writeInTurn } from './create-turn.js';

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

/** In the describe block it is called in: the create's own request and three others in flight in every test. */
function withRequestsInFlight(): void {
  beforeEach(() => {
    for (let i = 0; i < 4; i++) requestStarted();
  });
  afterEach(() => {
    for (let i = 0; i < 4; i++) requestServed();
  });
}

describe('createTurn, with other requests in flight', () => {
  withRequestsInFlight();

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

const directory = mkdtempSync(join(tmpdir(), 'kcpt-create-turn-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
let files = 0;
const freshStore = () => openSqliteStore(join(directory, `turn-${++files}.db`));
const key = (name: string) => `/registry/core/configmaps/c1/default/${name}`;

/**
 * A create as the resource handler makes it: waits for its turn, then writes through writeInTurn. `write` is given
 * the store and returns what the create's write returns; every outcome (value or error) is logged in `log`.
 */
async function createIn(store: Store, log: string[], name: string, write: () => unknown): Promise<unknown> {
  const turn = createTurn();
  if (turn) await turn;
  try {
    const value = await writeInTurn(store, write);
    log.push(`answer ${name}`);
    return value;
  } catch (err) {
    log.push(`refusal ${name}`);
    throw err;
  }
}

describe('writeInTurn: the writes of one turn\'s creates in one transaction', () => {
  withRequestsInFlight();

  it('commits them together, a refused one alone left out, watchers told in revision order before any answer', async () => {
    const store = freshStore();
    const log: string[] = [];
    const heard: StoreEvent[][] = [];
    store.watch('/registry/', store.currentRevision(), (events) => {
      heard.push(events);
      log.push(`watch ${events.length}`);
    });
    const commit = (name: string) => () => store.commit([{ type: 'create', key: key(name), value: name }])[0]!.revision;
    let outcomes: PromiseSettledResult<unknown>[] = [];
    const before = { ...turnCommits };
    await inIoCallback((until) => {
      const creates = [
        createIn(store, log, 'a', commit('a')),
        // Its key exists by then (a's write, same transaction): refused, and only its own commit is undone.
        createIn(store, log, 'a again', commit('a')),
        createIn(store, log, 'b', () => {
          // What admission reads: the earlier creates of the turn.
          expect(store.count('/registry/core/configmaps/c1/default/')).toBe(1);
          return commit('b')();
        }),
        createIn(store, log, 'c', commit('c')),
      ];
      void Promise.allSettled(creates).then((settled) => {
        outcomes = settled;
        until();
      });
    });
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect(outcomes.filter((o) => o.status === 'fulfilled').map((o) => (o as PromiseFulfilledResult<unknown>).value)).toEqual([1, 2, 3]);
    // One delivery: the three commits became durable together, and no answer (not even the refusal) went before it.
    expect(log).toEqual(['watch 3', 'answer a', 'refusal a again', 'answer b', 'answer c']);
    expect(turnCommits).toEqual({ transactions: before.transactions + 1, writes: before.writes + 4 });
    expect(heard[0]!.map((e) => [e.type, e.key, e.revision])).toEqual([
      ['ADDED', key('a'), 1],
      ['ADDED', key('b'), 2],
      ['ADDED', key('c'), 3],
    ]);
    store.close();
  });

  it('answers every create whose write succeeded with a 500 Status when the transaction cannot be committed, and keeps none of them', async () => {
    const store = freshStore();
    const heard: StoreEvent[] = [];
    store.watch('/registry/', 0, (events) => heard.push(...events));
    // A store whose group's commit fails (a full disk): the writes ran, then the transaction is rolled back.
    const failing: Store = Object.assign(Object.create(store) as Store, {
      group: <T>(fn: () => T): T =>
        store.group!(() => {
          fn();
          throw new Error('database or disk is full');
        }),
    });
    const log: string[] = [];
    let outcomes: PromiseSettledResult<unknown>[] = [];
    await inIoCallback((until) => {
      const creates = ['a', 'b'].map((name) => createIn(failing, log, name, () => store.commit([{ type: 'create', key: key(name), value: name }])));
      creates.push(createIn(failing, log, 'refused', () => {
        throw new StatusError(403, 'Forbidden', 'exceeded quota', {});
      }));
      void Promise.allSettled(creates).then((settled) => {
        outcomes = settled;
        until();
      });
    });
    const errors = outcomes.map((o) => (o as PromiseRejectedResult).reason as StatusError);
    expect(errors.map((e) => e.code)).toEqual([500, 500, 403]);
    expect(errors[0]!.message).toMatch(/could not be committed, the object was not created: database or disk is full/);
    expect(store.get(key('a'))).toBeUndefined();
    expect(store.get(key('b'))).toBeUndefined();
    expect(heard).toEqual([]);
    // The revisions the rolled-back writes took are free again.
    expect(store.commit([{ type: 'create', key: key('d'), value: 'd' }])[0]!.revision).toBe(1);
    store.close();
  });

  it('writes at once when the turn is over (a create that waited on real I/O) or the store has no transactions', async () => {
    const store = freshStore();
    const turn = createTurn()!;
    await turn;
    // Past the immediate that commits the turn's writes.
    await new Promise((resolve) => setImmediate(resolve));
    expect(writeInTurn(store, () => 'now')).toBe('now');
    const memory = createMemoryStore();
    await createTurn();
    expect(writeInTurn(memory, () => 'now')).toBe('now');
    await new Promise((resolve) => setImmediate(resolve));
    store.close();
  });
});

describe('writeInTurn, alone', () => {
  it('writes at once when no turn was let go', () => {
    const store = freshStore();
    requestStarted();
    try {
      expect(createTurn()).toBeUndefined();
      expect(writeInTurn(store, () => store.commit([{ type: 'create', key: key('alone'), value: 'x' }])[0]!.revision)).toBe(1);
    } finally {
      requestServed();
      store.close();
    }
  });
});
