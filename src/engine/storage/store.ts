/**
 * The storage contract: keys, bytes and revisions, nothing about Kubernetes (kine-like).
 *
 * Keys look like `/registry/<group>/<resource>/<cluster>/<namespace>/<name>` (cluster-scoped objects have no
 * namespace segment), so one ordered range serves a LIST inside one logical cluster and a wildcard LIST across
 * all of them. One global monotonic revision per store is every object's resourceVersion; every write appends
 * an event that watches can resume from until it is compacted.
 */

export interface KeyValue {
  key: string;
  /** The stored bytes (JSON text of the object, as sent back to clients). */
  value: string;
  /** Revision of the last write to this key (its resourceVersion). */
  revision: number;
  /** Revision that created this key. */
  createRevision: number;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoreEvent {
  type: WatchEventType;
  key: string;
  /** Revision of this event; for DELETED, the revision of the delete. */
  revision: number;
  /** New value; for DELETED, the last value before the delete. */
  value: string;
  /** Value before this event (undefined for ADDED, or when compacted away). */
  prevValue?: string;
}

export interface ListOptions {
  /** Return keys strictly greater than this key (pagination). */
  startAfter?: string;
  /** Maximum number of items; 0 or undefined = no limit. */
  limit?: number;
  /**
   * Read the state exactly as of this revision. Undefined = latest. Throws CompactedError when the history
   * needed is gone, FutureRevisionError when it is beyond the current revision.
   */
  revision?: number;
  /**
   * False: leave `remaining` out, so a page of a big prefix costs only the page (counting the rest is a scan of the
   * whole range; an existence probe with `limit: 1` must not pay it).
   */
  countRemaining?: boolean;
}

export interface ListResult {
  items: KeyValue[];
  /** The revision the list was read at. */
  revision: number;
  /** True when more keys follow the last returned one. */
  more: boolean;
  /** Number of keys after the returned page (only when `more`). */
  remaining?: number;
}

/**
 * An op with `unlogged: true` changes the current row only: no event, no revision of its own (the row carries the
 * revision of the commit's last logged event before it), so no watch ever sees it and a past-revision read of its
 * prefix shows today's rows. For the server's own bookkeeping keys that are only ever read as they are now (a
 * workspace's pending marker, the access-subjects index): an event row per write would be disk and CPU for nobody.
 * Once a generation of a key (create to delete) has a logged write, its later writes are logged too: the log keeps
 * a version's value in the generation's next event, which an unlogged write would not add. (Deletion markers start
 * unlogged and turn logged when the garbage collector must hear of them; object-rules.ts.)
 */
export type WriteOp =
  | {
      type: 'create';
      key: string;
      value: string;
      unlogged?: boolean;
      /**
       * Created at `firstValue` and changed to `value` in the same commit: watchers and the log see ADDED (firstValue)
       * then MODIFIED (value) on two consecutive revisions, while the row is written once, at its final size (no page
       * split from a row that grows right after its insert). The result's revision is the MODIFIED one.
       */
      firstValue?: string;
    }
  | { type: 'update'; key: string; value: string; expectedRevision?: number; unlogged?: boolean }
  | { type: 'delete'; key: string; expectedRevision?: number; unlogged?: boolean };

export interface WriteResult {
  key: string;
  revision: number;
  /** For updates and deletes: the value that was replaced. */
  prev?: KeyValue;
}

export type WatchListener = (events: StoreEvent[]) => void;

export interface WatchHandle {
  /** Stop delivering events. */
  cancel(): void;
}

export interface Store {
  readonly name: string;
  currentRevision(): number;
  /** Oldest revision a watch can resume after (events after it are all retained). */
  compactedRevision(): number;
  get(key: string): KeyValue | undefined;
  list(prefix: string, options?: ListOptions): ListResult;
  count(prefix: string): number;
  /**
   * Apply all ops atomically, or none. Each op gets its own revision (in order).
   * Throws KeyExistsError, KeyNotFoundError or RevisionConflictError naming the failing key.
   */
  commit(ops: WriteOp[]): WriteResult[];
  /**
   * Optional: runs `fn` (synchronous) with every commit it makes folded into one storage transaction, so a burst
   * of small commits (a controller draining its queue) pays the transaction's fixed cost once. Inside `fn` each
   * commit is still atomic on its own and reads see earlier ones; watchers hear of them, in revision order, once
   * the group is durable. If `fn` throws (or the group cannot be made durable), none of its commits persist and
   * no watcher hears of them. Groups do not nest: a group inside a group is part of the outer one.
   */
  group?<T>(fn: () => T): T;
  /**
   * Deliver every event with revision > fromRevision whose key starts with prefix, then live events, in
   * revision order, synchronously after each commit (after its group, for commits made in a group). Throws
   * CompactedError if fromRevision < compactedRevision().
   */
  watch(prefix: string, fromRevision: number, listener: WatchListener): WatchHandle;
  /** Drop event history at or below `revision` (bounded work per call; returns rows removed). */
  compact(revision: number): number;
  /**
   * Optional: writes a consistent copy of the whole store, in the backend's own file format, to `destination` while
   * the store stays in use (SQLite: the online backup API). Backends without a file format leave it out; callers
   * then export the rows (snapshot JSON lines).
   */
  backup?(destination: string): Promise<void>;
  close(): void;
}

export class StorageError extends Error {
  constructor(
    message: string,
    readonly key: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}
export class KeyExistsError extends StorageError {}
export class KeyNotFoundError extends StorageError {}
export class RevisionConflictError extends StorageError {}
/** The backing store cannot take writes now (etcd without quorum or unreachable); nothing was written. */
export class StorageUnavailableError extends Error {
  constructor(
    message: string,
    /** When a client should try again. */
    readonly retryAfterSeconds = 1,
  ) {
    super(message);
    this.name = new.target.name;
  }
}
export class CompactedError extends Error {
  constructor(
    readonly requested: number,
    readonly compacted: number,
  ) {
    super(`revision ${requested} has been compacted (oldest available ${compacted + 1})`);
  }
}
export class FutureRevisionError extends Error {
  constructor(
    readonly requested: number,
    readonly current: number,
  ) {
    super(`revision ${requested} is in the future (current ${current})`);
  }
}

/** Whether any current key starts with `prefix`: one index seek, whatever the size of the range. */
export function hasKeys(store: Pick<Store, 'list'>, prefix: string): boolean {
  return store.list(prefix, { limit: 1, countRemaining: false }).items.length > 0;
}
