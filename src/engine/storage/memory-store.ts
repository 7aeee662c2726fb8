/**
 * The pure-JS backend: same contract as SQLite, nothing on disk. Used for tests and `--storage memory://`, and
 * as the fallback when the native better-sqlite3 binding is missing.
 */
import { collectChanges, pageList, type CurrentRows, type LoggedEvent } from './history.js';
import { assertRevision, COMPACT_MAX_ROWS_PER_CALL, KEEP_NEWEST_REVISIONS } from './keys.js';
import {
  CompactedError,
  FutureRevisionError,
  KeyExistsError,
  KeyNotFoundError,
  RevisionConflictError,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type Store,
  type StoreEvent,
  type WatchHandle,
  type WatchListener,
  type WriteOp,
  type WriteResult,
} from './store.js';
import { SortedKeys } from './sorted-keys.js';
import { WatchHub, type ListenerErrorHandler } from './watch-hub.js';

export interface MemoryStoreOptions {
  onListenerError?: ListenerErrorHandler;
  /** Compaction never drops the newest this-many revisions. Default 1000 (kine's figure). */
  keepNewestRevisions?: number;
}

export interface MemoryStore extends Store {
  /** Newest revision logged strictly before `timestampMs` (compactedRevision() when none): feeds the compactor. */
  latestRevisionBefore(timestampMs: number): number;
}

/** A commit checked against the current rows and given its revisions, not applied yet. */
export interface PreparedCommit {
  results: WriteResult[];
  logged: LoggedEvent[];
  /** Final state of every key the commit touches (null: absent afterwards). */
  staged: Map<string, KeyValue | null>;
  /** The store revision once it is applied. */
  revision: number;
}

/** What a mirror is (re)built from: current rows, the retained log (dense after `compacted`) and the counters. */
export interface MirrorState {
  rows: KeyValue[];
  log: LoggedEvent[];
  revision: number;
  compacted: number;
}

/**
 * The memory store as the in-process mirror of a remote backend (etcd-store.ts): a commit is prepared here, made
 * durable elsewhere, and only then applied and published, so readers never see what the remote did not accept.
 */
export interface MirrorStore extends MemoryStore {
  /** Validates `ops` against the rows (typed errors as commit()) and assigns revisions; changes nothing. */
  prepare(ops: WriteOp[]): PreparedCommit;
  /** Applies a prepared commit (the latest one prepared; no other commit in between) and tells watchers. */
  applyPrepared(prepared: PreparedCommit): void;
  /** Replaces everything with `state` (start-up load); watchers are not told. */
  restore(state: MirrorState): void;
}

const REPLAY_PAGE = 1000;

export function createMemoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  return new InMemoryStore(options);
}

export function createMirrorStore(options: MemoryStoreOptions = {}): MirrorStore {
  return new InMemoryStore(options);
}

class InMemoryStore implements MirrorStore, CurrentRows {
  readonly name = 'memory';
  /** Ordered keys, for range reads. */
  private readonly keys = new SortedKeys();
  private readonly rows = new Map<string, KeyValue>();
  /** The event log; revisions are dense, so log[i].revision === compacted + 1 + i. */
  private log: LoggedEvent[] = [];
  private revision = 0;
  private compacted = 0;
  private lastTs = 0;
  private closed = false;
  private readonly hub: WatchHub;
  private readonly keepNewest: number;

  constructor(options: MemoryStoreOptions) {
    this.hub = new WatchHub(options.onListenerError);
    this.keepNewest = options.keepNewestRevisions ?? KEEP_NEWEST_REVISIONS;
  }

  currentRevision(): number {
    return this.revision;
  }

  compactedRevision(): number {
    return this.compacted;
  }

  get(key: string): KeyValue | undefined {
    this.assertOpen();
    const row = this.rows.get(key);
    return row && { ...row };
  }

  list(prefix: string, options: ListOptions = {}): ListResult {
    this.assertOpen();
    const at = options.revision;
    if (at === undefined || at === this.revision) return pageList(this, prefix, options, this.revision);
    assertRevision(at, 'list revision');
    if (at > this.revision) throw new FutureRevisionError(at, this.revision);
    if (at < this.compacted) throw new CompactedError(at, this.compacted);
    return pageList(this, prefix, options, at, collectChanges(this.eventsAfter(prefix, at, this.revision)));
  }

  count(prefix: string): number {
    this.assertOpen();
    return this.keys.count(prefix);
  }

  commit(ops: WriteOp[]): WriteResult[] {
    const prepared = this.prepare(ops);
    this.applyPrepared(prepared);
    return prepared.results;
  }

  prepare(ops: WriteOp[]): PreparedCommit {
    this.assertOpen();
    // Validate against an overlay first, so a failing op leaves nothing behind and later ops see earlier ones.
    const staged = new Map<string, KeyValue | null>();
    const lookup = (key: string) => (staged.has(key) ? (staged.get(key) ?? undefined) : this.rows.get(key));
    const results: WriteResult[] = [];
    const logged: LoggedEvent[] = [];
    let revision = this.revision;
    const ts = (this.lastTs = Math.max(this.lastTs, Date.now()));
    for (const op of ops) {
      const existing = lookup(op.key);
      if (op.type === 'create') {
        if (existing) throw new KeyExistsError(`key ${op.key} already exists`, op.key);
        if (op.unlogged) {
          staged.set(op.key, { key: op.key, value: op.value, revision, createRevision: revision });
          results.push({ key: op.key, revision });
          continue;
        }
        const created = ++revision;
        const first = op.firstValue ?? op.value;
        logged.push({ event: { type: 'ADDED', key: op.key, revision: created, value: first }, prevRevision: 0, createRevision: created, ts });
        if (op.firstValue !== undefined) {
          const event: StoreEvent = { type: 'MODIFIED', key: op.key, revision: ++revision, value: op.value, prevValue: first };
          logged.push({ event, prevRevision: created, createRevision: created, ts });
        }
        staged.set(op.key, { key: op.key, value: op.value, revision, createRevision: created });
        results.push({ key: op.key, revision });
        continue;
      }
      if (!existing) throw new KeyNotFoundError(`key ${op.key} not found`, op.key);
      if (op.expectedRevision !== undefined && op.expectedRevision !== existing.revision) {
        throw new RevisionConflictError(
          `key ${op.key} is at revision ${existing.revision}, expected ${op.expectedRevision}`,
          op.key,
        );
      }
      if (op.unlogged) {
        staged.set(op.key, op.type === 'update' ? { ...existing, value: op.value, revision } : null);
        results.push({ key: op.key, revision, prev: { ...existing } });
        continue;
      }
      revision++;
      let event: StoreEvent;
      if (op.type === 'update') {
        staged.set(op.key, { key: op.key, value: op.value, revision, createRevision: existing.createRevision });
        event = { type: 'MODIFIED', key: op.key, revision, value: op.value, prevValue: existing.value };
      } else {
        staged.set(op.key, null);
        event = { type: 'DELETED', key: op.key, revision, value: existing.value, prevValue: existing.value };
      }
      logged.push({ event, prevRevision: existing.revision, createRevision: existing.createRevision, ts });
      results.push({ key: op.key, revision, prev: { ...existing } });
    }
    return { results, logged, staged, revision };
  }

  applyPrepared({ staged, logged, revision }: PreparedCommit): void {
    this.assertOpen();
    for (const [key, row] of staged) this.setRow(key, row);
    this.revision = revision;
    for (const entry of logged) this.log.push(entry);
    if (logged.length > 0) this.hub.publish(logged.map((entry) => entry.event));
  }

  restore(state: MirrorState): void {
    this.assertOpen();
    for (const key of [...this.rows.keys()]) this.setRow(key, null);
    for (const row of state.rows) this.setRow(row.key, row);
    this.log = state.log.filter((entry) => entry.event.revision > state.compacted);
    this.log.forEach((entry, i) => {
      if (entry.event.revision !== state.compacted + 1 + i) {
        throw new Error(`event log has a gap: revision ${state.compacted + 1 + i} is missing (found ${entry.event.revision})`);
      }
    });
    this.compacted = state.compacted;
    this.revision = Math.max(state.revision, state.compacted + this.log.length);
    this.lastTs = this.log.length > 0 ? this.log[this.log.length - 1]!.ts : 0;
  }

  watch(prefix: string, fromRevision: number, listener: WatchListener): WatchHandle {
    this.assertOpen();
    assertRevision(fromRevision, 'watch fromRevision');
    if (fromRevision < this.compacted) throw new CompactedError(fromRevision, this.compacted);
    const upTo = this.revision;
    return this.hub.subscribe(prefix, fromRevision, upTo, listener, this.replay(prefix, fromRevision, upTo));
  }

  compact(revision: number): number {
    this.assertOpen();
    const target = Math.min(Math.floor(revision), this.revision - this.keepNewest);
    if (!(target > this.compacted)) return 0;
    const removed = Math.min(target - this.compacted, COMPACT_MAX_ROWS_PER_CALL);
    // slice, not splice: drops the old array at once instead of shifting it in place.
    this.log = this.log.slice(removed);
    this.compacted += removed;
    return removed;
  }

  latestRevisionBefore(timestampMs: number): number {
    let lo = 0;
    let hi = this.log.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.log[mid]!.ts < timestampMs) lo = mid + 1;
      else hi = mid;
    }
    return this.compacted + lo;
  }

  close(): void {
    this.closed = true;
    this.hub.clear();
  }

  // CurrentRows: range reads over the ordered keys.
  range(prefix: string, startAfter: string | undefined, limit: number): KeyValue[] {
    const out: KeyValue[] = [];
    for (const key of this.keys.range(prefix, startAfter)) {
      if (limit && out.length >= limit) break;
      out.push({ ...this.rows.get(key)! });
    }
    return out;
  }

  countAfter(prefix: string, after: string): number {
    return this.keys.count(prefix, after);
  }

  private *replay(prefix: string, from: number, upTo: number): Generator<StoreEvent[]> {
    let after = from;
    while (after < upTo) {
      const page: StoreEvent[] = [];
      // Recomputed per page: a listener may compact (shifting indexes) while we are suspended.
      for (let i = Math.max(0, after - this.compacted); i < upTo - this.compacted && page.length < REPLAY_PAGE; i++) {
        const event = this.log[i]!.event;
        after = event.revision;
        if (event.key.startsWith(prefix)) page.push(event);
      }
      if (page.length > 0) yield page;
      else break;
    }
  }

  private *eventsAfter(prefix: string, after: number, upTo: number): Generator<LoggedEvent> {
    for (let i = after - this.compacted; i < upTo - this.compacted; i++) {
      const logged = this.log[i]!;
      if (logged.event.key.startsWith(prefix)) yield logged;
    }
  }

  private setRow(key: string, row: KeyValue | null): void {
    if (row) {
      if (!this.rows.has(key)) this.keys.insert(key);
      this.rows.set(key, row);
    } else if (this.rows.delete(key)) {
      this.keys.delete(key);
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('memory store is closed');
  }
}
