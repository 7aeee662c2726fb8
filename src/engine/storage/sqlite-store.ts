/**
 * The embedded default backend: better-sqlite3 on one connection, WAL.
 *
 * Two tables (see README.md): `objects` holds the current state (what GET and LIST read), `events` is the
 * append-only log whose rowid is the store revision (what watches, exact-revision LISTs and 410 decisions
 * read). A commit writes both in one transaction, then fans its events out in-process.
 */
import type Database from 'better-sqlite3';
import { collectChanges, pageList, type CurrentRows, type LoggedEvent } from './history.js';
import { assertRevision, COMPACT_BATCH_ROWS, COMPACT_MAX_ROWS_PER_CALL, KEEP_NEWEST_REVISIONS, prefixEnd } from './keys.js';
import { readEventPages } from './sqlite-log.js';
import {
  ADDED,
  DELETED,
  MODIFIED,
  openDatabase,
  prepareStatements,
  type Statements,
  type Synchronous,
} from './sqlite-schema.js';
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
import { WatchHub, type ListenerErrorHandler } from './watch-hub.js';

export type { Synchronous } from './sqlite-schema.js';

export interface SqliteStoreOptions {
  /**
   * NORMAL (default) survives a process crash (kill -9): a commit is in the OS before commit() returns. Only
   * FULL (fsync per commit, ~4× slower here) also survives power loss or a kernel crash.
   */
  synchronous?: Synchronous;
  /** How long to wait for a lock held by another connection. Default 5000 ms. */
  busyTimeoutMs?: number;
  /** Hold the file lock for the store's lifetime so no second process can write to it. Default true. */
  exclusive?: boolean;
  /**
   * WAL pages between automatic checkpoints. Default 2000 (8 MiB): a checkpoint costs ~25-40 µs per page here and
   * stalls the writer meanwhile, so this bounds those stalls to ~50 ms while keeping most of the throughput of a
   * large WAL (1000: ~3-5k commits/s; 2000: ~5-6k/s; 10000: ~6-7k/s but 200+ ms stalls).
   */
  walAutocheckpointPages?: number;
  /** Page cache size. Default 16 MiB. */
  cacheSizeKiB?: number;
  /**
   * Revisions behind the head above which log reads (watch replay, past-revision LIST) find the prefix's events
   * through the key index instead of walking the log. Default 500: walking is cheapest for the usual "watch from
   * the list I just did"; the index wins for older resumes of one workspace (measured 0.5 ms vs 9.5 ms, 5000 back).
   */
  logScanLimit?: number;
  onListenerError?: ListenerErrorHandler;
  /** Compaction never drops the newest this-many revisions. Default 1000 (kine's figure). */
  keepNewestRevisions?: number;
}

export interface SqliteStore extends Store {
  readonly path: string;
  /** Newest revision logged strictly before `timestampMs` (compactedRevision() when none): feeds the compactor. */
  latestRevisionBefore(timestampMs: number): number;
}

const COMPACTED = 'compacted_revision';
/**
 * Free pages are reused by later inserts, so giving them back only matters after a big drop; doing it in small
 * steps keeps each compaction slice from filling the WAL (and triggering a checkpoint) by itself.
 */
const VACUUM_THRESHOLD_PAGES = 1024;
const VACUUM_PAGES_PER_CALL = 256;

export function openSqliteStore(path: string, options: SqliteStoreOptions = {}): SqliteStore {
  const db = openDatabase(path, {
    synchronous: options.synchronous ?? 'NORMAL',
    busyTimeoutMs: options.busyTimeoutMs ?? 5000,
    exclusive: options.exclusive ?? true,
    walAutocheckpointPages: options.walAutocheckpointPages ?? 2000,
    cacheSizeKiB: options.cacheSizeKiB ?? 16 * 1024,
  });
  return new SqliteStoreImpl(db, path, options);
}

interface Applied {
  results: WriteResult[];
  events: StoreEvent[];
}

class SqliteStoreImpl implements SqliteStore, CurrentRows {
  readonly name = 'sqlite';
  private readonly statements: Statements;
  private readonly hub: WatchHub;
  private readonly applyOps: Database.Transaction<(ops: WriteOp[], ts: number) => Applied>;
  private readonly deleteSlice: Database.Transaction<(from: number, upTo: number) => number>;
  private readonly logScanLimit: number;
  private readonly keepNewest: number;
  private revision: number;
  private compacted: number;
  private lastTs: number;
  private closed = false;

  constructor(
    private readonly db: Database.Database,
    readonly path: string,
    options: SqliteStoreOptions,
  ) {
    this.statements = prepareStatements(db);
    this.hub = new WatchHub(options.onListenerError);
    this.logScanLimit = options.logScanLimit ?? 500;
    this.keepNewest = options.keepNewestRevisions ?? KEEP_NEWEST_REVISIONS;
    this.compacted = this.statements.readMeta.get(COMPACTED) ?? 0;
    this.revision = Math.max(this.statements.maxRevision.get() ?? 0, this.compacted);
    this.lastTs = this.statements.lastEvent.get()?.ts ?? 0;
    this.applyOps = db.transaction((ops: WriteOp[], ts: number) => this.writeOps(ops, ts));
    this.deleteSlice = db.transaction((from: number, upTo: number) => {
      const removed = this.statements.deleteEvents.run(from, upTo).changes;
      this.statements.writeMeta.run(COMPACTED, upTo);
      return removed;
    });
  }

  currentRevision(): number {
    return this.revision;
  }

  compactedRevision(): number {
    return this.compacted;
  }

  get(key: string): KeyValue | undefined {
    this.assertOpen();
    return this.statements.get.get(key);
  }

  list(prefix: string, options: ListOptions = {}): ListResult {
    this.assertOpen();
    const at = options.revision;
    if (at === undefined || at === this.revision) return pageList(this, prefix, options, this.revision);
    assertRevision(at, 'list revision');
    if (at > this.revision) throw new FutureRevisionError(at, this.revision);
    if (at < this.compacted) throw new CompactedError(at, this.compacted);
    const events = readEventPages(this.statements, prefix, at, this.revision, this.logScanLimit);
    return pageList(this, prefix, options, at, collectChanges(flatten(events)));
  }

  count(prefix: string): number {
    this.assertOpen();
    const end = prefixEnd(prefix);
    return end === undefined ? this.statements.countFromOpen.get(prefix)! : this.statements.countFrom.get(prefix, end)!;
  }

  commit(ops: WriteOp[]): WriteResult[] {
    this.assertOpen();
    if (ops.length === 0) return [];
    const ts = (this.lastTs = Math.max(this.lastTs, Date.now()));
    // IMMEDIATE: take the write lock up front instead of upgrading a read lock mid-transaction.
    const { results, events } = this.applyOps.immediate(ops, ts);
    this.revision = events[events.length - 1]!.revision;
    this.hub.publish(events);
    return results;
  }

  /** Runs inside the transaction; throwing rolls everything back and leaves this.revision untouched. */
  private writeOps(ops: WriteOp[], ts: number): Applied {
    const s = this.statements;
    const results: WriteResult[] = [];
    const events: StoreEvent[] = [];
    // Revisions are assigned here: the file lock makes this process the only writer, and a stale counter would
    // hit the primary key instead of silently reusing a revision.
    let revision = this.revision;
    for (const op of ops) {
      const existing = s.get.get(op.key);
      if (op.type === 'create') {
        if (existing) throw new KeyExistsError(`key ${op.key} already exists`, op.key);
        revision++;
        s.insertEvent.run(revision, op.key, ADDED, op.value, null, 0, revision, ts);
        s.insertObject.run(op.key, revision, revision, op.value);
        results.push({ key: op.key, revision });
        events.push({ type: 'ADDED', key: op.key, revision, value: op.value });
        continue;
      }
      if (!existing) throw new KeyNotFoundError(`key ${op.key} not found`, op.key);
      if (op.expectedRevision !== undefined && op.expectedRevision !== existing.revision) {
        throw new RevisionConflictError(
          `key ${op.key} is at revision ${existing.revision}, expected ${op.expectedRevision}`,
          op.key,
        );
      }
      revision++;
      if (op.type === 'update') {
        s.insertEvent.run(revision, op.key, MODIFIED, op.value, existing.value, existing.revision, existing.createRevision, ts);
        s.updateObject.run(revision, op.value, op.key);
        events.push({ type: 'MODIFIED', key: op.key, revision, value: op.value, prevValue: existing.value });
      } else {
        // A delete logs the last value (watchers and past-revision LISTs need it); prev_value stays NULL.
        s.insertEvent.run(revision, op.key, DELETED, existing.value, null, existing.revision, existing.createRevision, ts);
        s.deleteObject.run(op.key);
        events.push({ type: 'DELETED', key: op.key, revision, value: existing.value, prevValue: existing.value });
      }
      results.push({ key: op.key, revision, prev: existing });
    }
    return { results, events };
  }

  watch(prefix: string, fromRevision: number, listener: WatchListener): WatchHandle {
    this.assertOpen();
    assertRevision(fromRevision, 'watch fromRevision');
    if (fromRevision < this.compacted) throw new CompactedError(fromRevision, this.compacted);
    const upTo = this.revision;
    const pages = readEventPages(this.statements, prefix, fromRevision, upTo, this.logScanLimit);
    return this.hub.subscribe(prefix, fromRevision, upTo, listener, eventsOf(pages));
  }

  compact(revision: number): number {
    this.assertOpen();
    const target = Math.min(Math.floor(revision), this.revision - this.keepNewest);
    let removed = 0;
    // Several short transactions rather than one long one: each slice holds the write lock for a few ms.
    while (this.compacted < target && removed < COMPACT_MAX_ROWS_PER_CALL) {
      const upTo = Math.min(target, this.compacted + COMPACT_BATCH_ROWS);
      removed += this.deleteSlice.immediate(this.compacted, upTo);
      this.compacted = upTo;
    }
    if (removed > 0) this.reclaimSpace(this.compacted >= target);
    return removed;
  }

  /** Keeps the file and the WAL from growing without bound under create/delete churn (kine's N2/N4 failures). */
  private reclaimSpace(finished: boolean): void {
    if (this.db.memory) return;
    const free = this.db.pragma('freelist_count', { simple: true }) as number;
    if (free > VACUUM_THRESHOLD_PAGES) this.db.pragma(`incremental_vacuum(${VACUUM_PAGES_PER_CALL})`);
    // PASSIVE never waits for anyone; it just copies what it can back into the main file.
    if (finished) this.db.pragma('wal_checkpoint(PASSIVE)');
  }

  latestRevisionBefore(timestampMs: number): number {
    this.assertOpen();
    // ts never decreases with revision, so binary-search the revision range by point lookups.
    let lo = this.compacted + 1;
    let hi = this.revision + 1;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      const ts = this.statements.firstEventTsAtOrAfter.get(mid);
      if (ts !== undefined && ts < timestampMs) lo = mid + 1;
      else hi = mid;
    }
    return lo - 1;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.hub.clear();
    try {
      if (!this.db.memory) this.db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      this.db.close();
    }
  }

  // CurrentRows: index range reads.
  range(prefix: string, startAfter: string | undefined, limit: number): KeyValue[] {
    const s = this.statements;
    const end = prefixEnd(prefix);
    const max = limit > 0 ? limit : -1;
    if (startAfter === undefined) {
      return end === undefined ? s.rangeFromOpen.all(prefix, max) : s.rangeFrom.all(prefix, end, max);
    }
    return end === undefined ? s.rangeAfterOpen.all(startAfter, max) : s.rangeAfter.all(startAfter, end, max);
  }

  countAfter(prefix: string, after: string): number {
    const end = prefixEnd(prefix);
    const from = after >= prefix ? after : undefined;
    if (from === undefined) return this.count(prefix);
    return end === undefined ? this.statements.countAfterOpen.get(from)! : this.statements.countAfter.get(from, end)!;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error(`sqlite store ${this.path} is closed`);
  }
}

function* flatten<T>(pages: Iterable<T[]>): Generator<T> {
  for (const page of pages) yield* page;
}

function* eventsOf(pages: Iterable<LoggedEvent[]>): Generator<StoreEvent[]> {
  for (const page of pages) yield page.map((logged) => logged.event);
}
