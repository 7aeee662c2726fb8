/**
 * Creates made while other requests are being served wait for the end of the event loop's poll phase, then run one
 * after the other, and their writes are committed together in one storage transaction (writeInTurn). Requests
 * arriving on many connections are otherwise served interleaved (one connection's TLS read, HTTP parse, hooks and
 * create, then the next's), and a create that follows a create runs in about half the CPU of one that follows another
 * request's HTTP work (docs/benchmarks.md, perf-create8); one SQLite transaction with a savepoint per create costs less
 * than a transaction per create (perf-create9). A create with no other request in flight goes on at once: nothing
 * could arrive in its turn to run with it, and the wait measured dearer for a client that sends one create at a time.
 * A request sent without waiting for a create's answer (another HTTP/2 stream, or pipelined after a POST, which
 * RFC 9112 tells clients not to do) may be served before that create, as concurrent requests may be on
 * kube-apiserver.
 */
import { internalError } from '../machinery/status.js';
import type { Store } from '../storage/store.js';

let waiting: Array<() => void> | undefined;
/** The writes of the creates the last release let go, from then until the immediate after it commits them. */
let gathered: GatheredWrite[] | undefined;

interface GatheredWrite {
  store: Store;
  write: () => unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}
/** Requests of this process being served (watches and other long-running requests aside): only a hint. */
let serving = 0;

/** This process's transactions that committed several creates' writes together, and the writes they held (/metrics). */
export const turnCommits = { transactions: 0, writes: 0 };

/** A request (not a long-running one) began being served; requestServed() once it is answered or abandoned. */
export function requestStarted(): void {
  serving++;
}

export function requestServed(): void {
  serving--;
}

/**
 * Undefined when the create may go on at once (no other request in flight, none waiting); otherwise resolves once
 * this turn's I/O callbacks have run, together with every other create that waited in it.
 */
export function createTurn(): Promise<void> | undefined {
  if (serving <= 1 && !waiting) return undefined;
  return new Promise((resolve) => {
    if (!waiting) {
      waiting = [];
      // Queued together, so nothing else runs between the creates' release and the commit of their writes but the
      // microtasks the release sets going (Node drains them after each immediate).
      setImmediate(release);
      setImmediate(commitGathered);
    }
    waiting.push(resolve);
  });
}

function release(): void {
  const ready = waiting!;
  waiting = undefined;
  gathered = [];
  for (const resolve of ready) resolve();
}

/**
 * Runs a create's write (a synchronous call that commits at most once, such as GenericStore.createStored) and gives
 * its outcome. Alone, or once its turn's writes are committed (a create whose body took real I/O to decode), at once.
 * Otherwise with the other creates let go in its turn, in the order they get here, inside one transaction of `store`
 * (Store.group) committed by the immediate after their release: each commit is still atomic on its own (a savepoint
 * of the transaction, so a refused or failing create rolls back alone) and sees the commits before it (quota and
 * object-count admission count them); watchers hear of the commits in revision order once the transaction is
 * committed; and every create's outcome, a refusal too, is given only then. If the transaction cannot be committed,
 * none of its writes persist and each create whose write succeeded gets a 500 Status saying so.
 */
export function writeInTurn<T>(store: Store, write: () => T): T | Promise<T> {
  if (!gathered || !store.group) return write();
  const writes = gathered;
  return new Promise<T>((resolve, reject) => {
    writes.push({ store, write, resolve: resolve as (value: unknown) => void, reject });
  });
}

function commitGathered(): void {
  const writes = gathered!;
  gathered = undefined;
  if (writes.length === 0) return;
  if (writes.length === 1) return settleAlone(writes[0]!);
  // One transaction per store (in one process several servers may share a turn).
  const stores = new Set(writes.map((w) => w.store));
  for (const store of stores) commitTogether(store, stores.size === 1 ? writes : writes.filter((w) => w.store === store));
}

function settleAlone(w: GatheredWrite): void {
  try {
    w.resolve(w.write());
  } catch (err) {
    w.reject(err);
  }
}

function commitTogether(store: Store, writes: GatheredWrite[]): void {
  const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
  try {
    store.group!(() => {
      for (const w of writes) {
        try {
          outcomes.push({ ok: true, value: w.write() });
        } catch (error) {
          outcomes.push({ ok: false, error });
        }
      }
    });
  } catch (err) {
    const message = `the create's storage transaction could not be committed, the object was not created: ${(err as Error)?.message ?? String(err)}`;
    writes.forEach((w, i) => {
      const outcome = outcomes[i];
      w.reject(outcome && !outcome.ok ? outcome.error : internalError(message));
    });
    return;
  }
  turnCommits.transactions++;
  turnCommits.writes += writes.length;
  writes.forEach((w, i) => {
    const outcome = outcomes[i]!;
    if (outcome.ok) w.resolve(outcome.value);
    else w.reject(outcome.error);
  });
}
