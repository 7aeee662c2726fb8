/**
 * One way to write a controller: a name, what feeds its work queue, and the reconcile of one key. Starting,
 * stopping and waiting for it to settle are the same for every controller, so they live here once.
 *
 * ```ts
 * export function serviceAccountController(deps): Controller {
 *   return defineController({
 *     name: 'serviceaccount',
 *     store: deps.store,
 *     watches: (feed) => feed.watch(namespacesPrefix, (e) => { if (e.type === 'ADDED') feed.add(keyOf(e)); }),
 *     reconcile: (key) => ensureDefaultAccount(deps, key),
 *   });
 * }
 * ```
 *
 * The server starts its controllers from one list (server/controllers.ts).
 */
import type { Store, StoreEvent, WatchHandle } from '../storage/store.js';
import { WorkQueue, type Group, type ReconcileResult } from './work-queue.js';

/** Where follow-up keys go: the controller's own queue (coalesced; ignored once stopped). */
export interface ControllerQueue {
  add(key: string): void;
}

/** What `watches` gets at start to feed the queue. */
export interface ControllerFeed extends ControllerQueue {
  /**
   * Follows a storage prefix from the revision current when the controller started; `onEvent` runs inside each
   * commit, so it only files keys (string work, no reads of other keys when it can help it).
   */
  watch(prefix: string, onEvent: (event: StoreEvent, index: number, batch: readonly StoreEvent[]) => void): void;
  /**
   * Subscribes to another part's change notifications (which cannot be unsubscribed): the listener runs only while
   * the controller runs.
   */
  listen<A extends unknown[]>(subscribe: (listener: (...args: A) => void) => void, listener: (...args: A) => void): void;
}

export type ControllerReconcile = (
  key: string,
  queue: ControllerQueue,
) => ReconcileResult | void | Promise<ReconcileResult | void>;

export interface ControllerDefinition {
  /** The queue's name, in error messages. */
  name: string;
  /** The store `feed.watch` follows. */
  store?: Store;
  /**
   * Called at start: sets up what feeds the queue (storage watches, other parts' listeners) and queues the work a
   * restart left behind (found through marker keys, never by a scan).
   */
  watches(feed: ControllerFeed): void;
  /** One key's work; throwing retries it with backoff, `{requeueAfterMs}` looks again later. */
  reconcile: ControllerReconcile;
  onError?(controller: string, key: string, err: unknown): void;
  /** Given: the synchronous part of each drain's reconciles runs as one storage transaction (Store.group). */
  group?: Group;
}

export interface Controller {
  readonly name: string;
  start(): void;
  /** Cancels the watches, silences the listeners and drops queued work; a reconcile already running finishes. */
  stop(): void;
  /** Resolves once nothing is queued or running (tests, orderly shutdown). */
  idle(): Promise<void>;
  /** Queues a key from outside (another part noticed something this controller acts on). */
  add(key: string): void;
}

export function defineController(definition: ControllerDefinition): Controller {
  const { name, store } = definition;
  const queue = new WorkQueue(name, definition.reconcile, definition.onError, definition.group);
  const watches: WatchHandle[] = [];
  let state: 'new' | 'running' | 'stopped' = 'new';
  const running = () => state === 'running';
  return {
    name,
    start() {
      if (state !== 'new') throw new Error(`controller ${name} was started before`);
      state = 'running';
      const from = store?.currentRevision() ?? 0;
      definition.watches({
        add: (key) => queue.add(key),
        watch(prefix, onEvent) {
          if (!store) throw new Error(`controller ${name} watches ${prefix} but was given no store`);
          watches.push(
            store.watch(prefix, from, (events) => {
              for (let i = 0; i < events.length; i++) onEvent(events[i]!, i, events);
            }),
          );
        },
        listen(subscribe, listener) {
          subscribe((...args) => {
            if (running()) listener(...args);
          });
        },
      });
    },
    stop() {
      state = 'stopped';
      for (const w of watches.splice(0)) w.cancel();
      queue.stop();
    },
    idle: () => queue.idle(),
    add: (key) => queue.add(key),
  };
}
