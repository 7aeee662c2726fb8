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
import { readEventPages, type ValueSource } from './sqlite-log.js';
import { EmptyPrefixes } from './empty-prefixes.js';
import { RowCache } from './row-cache.js';
import { openValueCodec, type ValueCodec, type WantedReference } from './value-codec.js';
import {
  ADDED,
  DELETED,
  INLINE_VALUES_UP_TO,
  MODIFIED,
  openDatabase,
  prepareStatements,
  referenceTable,
  type ObjectTuple,
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
   * WAL pages between automatic checkpoints. Default 8000 (32 MiB). A checkpoint stalls the commit that crosses the
   * limit, mostly on its two fsyncs, so fewer, larger checkpoints cost less in all (docs/benchmarks.md, "WAL
   * checkpoints every 8000 pages").
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
  /** Texts to compress the values under a key prefix against (value-codec.ts); recorded in the file once used. */
  valueReferences?: readonly WantedReference[];
  /**
   * Bytes of recently read current values kept in memory, so a repeated GET skips SQLite and the value decode.
   * Default 4 MiB, counted in characters (text outside Latin-1 takes up to twice that); 0 turns it off. It is
   * shared by every workspace of the store and never grows past this.
   */
  readCacheBytes?: number;
}

export interface SqliteStore extends Store {
  readonly path: string;
  /** Newest revision logged strictly before `timestampMs` (compactedRevision() when none): feeds the compactor. */
  latestRevisionBefore(timestampMs: number): number;
  group<T>(fn: () => T): T;
  backup(destination: string): Promise<void>;
}

export const COMPACTED = 'compacted_revision';
/** Pages up to this many rows are read without a bound LIMIT (see range). */
const SMALL_PAGE = 16;
type RangeStatement = Database.Statement<unknown[], ObjectTuple>;
/**
 * Free pages are reused by later inserts, so giving them back only matters after a big drop; doing it in small
 * steps keeps each compaction slice from filling the WAL (and triggering a checkpoint) by itself.
 */
const VACUUM_THRESHOLD_PAGES = 1024;
const VACUUM_PAGES_PER_CALL = 256;
const READ_CACHE_BYTES = 4 * 1024 * 1024;
const READ_CACHE_MAX_ROW_BYTES = 64 * 1024;
/** Empty prefixes remembered (a namespace's quota prefix each: ~100 bytes apiece). */
const EMPTY_PREFIXES_KEPT = 8192;

export function openSqliteStore(path: string, options: SqliteStoreOptions = {}): SqliteStore {
  const db = openDatabase(path, {
    synchronous: options.synchronous ?? 'NORMAL',
    busyTimeoutMs: options.busyTimeoutMs ?? 5000,
    exclusive: options.exclusive ?? true,
    walAutocheckpointPages: options.walAutocheckpointPages ?? 8000,
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
  private readonly values: ValueSource;
  private readonly codec: ValueCodec;
  private readonly decode = (stored: string): string => (stored.charCodeAt(0) === 1 ? this.codec.decode(stored) : stored);
  private revision: number;
  /** Revision of the last event watchers were given (behind `revision` only inside a group). */
  private published: number;
  /** Events of the group being run, published once it commits. */
  private deferred?: StoreEvent[];
  private readonly runGroup: Database.Transaction<(fn: () => unknown) => unknown>;
  /** Whether a group() is running (a group inside it is part of it). */
  private inGroup = false;
  private compacted: number;
  private lastTs: number;
  private closed = false;
  /**
   * Committed current rows by key (decoded), filled by get() outside groups only (a group's reads may see what it
   * then rolls back) and dropped by writeOps for every key it writes, before the write: a rollback can only leave
   * a key uncached. This connection is the file's only writer (exclusive lock), so nothing else can make it stale.
   */
  private readonly readCache?: RowCache;
  /** Prefixes count() found empty, under the same rules as readCache (see empty-prefixes.ts). */
  private readonly emptyPrefixes?: EmptyPrefixes;

  constructor(
    private readonly db: Database.Database,
    readonly path: string,
    options: SqliteStoreOptions,
  ) {
    this.statements = prepareStatements(db);
    const cacheBytes = options.readCacheBytes ?? READ_CACHE_BYTES;
    if (cacheBytes > 0 && options.exclusive !== false) {
      this.readCache = new RowCache(cacheBytes, READ_CACHE_MAX_ROW_BYTES);
      this.emptyPrefixes = new EmptyPrefixes(EMPTY_PREFIXES_KEPT);
    }
    this.hub = new WatchHub(options.onListenerError);
    this.logScanLimit = options.logScanLimit ?? 500;
    this.keepNewest = options.keepNewestRevisions ?? KEEP_NEWEST_REVISIONS;
    this.compacted = this.statements.readMeta.get(COMPACTED) ?? 0;
    this.revision = Math.max(this.statements.maxRevision.get() ?? 0, this.compacted);
    this.published = this.revision;
    this.lastTs = this.statements.lastEvent.get()?.ts ?? 0;
    this.codec = openValueCodec(referenceTable(db), options.valueReferences ?? []);
    this.values = {
      inlineUpTo: this.statements.readMeta.get(INLINE_VALUES_UP_TO) ?? 0,
      statements: this.statements,
      current: (key) => this.statements.get.get(key)?.value,
    };
    // Inside a group, each commit is a savepoint of the group's transaction (better-sqlite3 nests them).
    this.applyOps = db.transaction((ops: WriteOp[], ts: number) => this.writeOps(ops, ts));
    this.runGroup = db.transaction((fn: () => unknown) => fn());
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
    const cached = this.readCache?.get(key);
    // A copy: callers may change the row they are given.
    if (cached) return { key: cached.key, value: cached.value, revision: cached.revision, createRevision: cached.createRevision };
    const row = this.statements.get.get(key);
    if (!row) return undefined;
    row.value = this.decode(row.value);
    if (this.readCache && !this.inGroup) {
      this.readCache.set({ key: row.key, value: row.value, revision: row.revision, createRevision: row.createRevision });
    }
    return row;
  }

  list(prefix: string, options: ListOptions = {}): ListResult {
    this.assertOpen();
    const at = options.revision;
    if (at === undefined || at === this.revision) return pageList(this, prefix, options, this.revision);
    assertRevision(at, 'list revision');
    if (at > this.revision) throw new FutureRevisionError(at, this.revision);
    if (at < this.compacted) throw new CompactedError(at, this.compacted);
    const events = readEventPages(this.statements, prefix, at, this.revision, this.logScanLimit, this.decode);
    return pageList(this, prefix, options, at, collectChanges(flatten(events)));
  }

  count(prefix: string): number {
    this.assertOpen();
    if (this.emptyPrefixes?.has(prefix)) return 0;
    const end = prefixEnd(prefix);
    const count = end === undefined ? this.statements.countFromOpen.get(prefix)! : this.statements.countFrom.get(prefix, end)!;
    if (count === 0 && !this.inGroup) this.emptyPrefixes?.remember(prefix);
    return count;
  }

  commit(ops: WriteOp[]): WriteResult[] {
    this.assertOpen();
    if (ops.length === 0) return [];
    // SQLite rolls a whole transaction back on some errors (a full disk, an I/O error): a commit after that inside
    // the group would otherwise be durable on its own while the group it belongs to is reported as failed.
    if (this.inGroup && !this.db.inTransaction) throw new Error("the group's transaction was rolled back by an earlier error");
    const ts = (this.lastTs = Math.max(this.lastTs, Date.now()));
    // IMMEDIATE: take the write lock up front instead of upgrading a read lock mid-transaction (inside a group
    // this is a savepoint).
    const { results, events } = this.applyOps.immediate(ops, ts);
    if (events.length === 0) return results; // unlogged ops only
    this.revision = events[events.length - 1]!.revision;
    if (this.deferred) this.deferred.push(...events);
    else this.publish(events);
    return results;
  }

  group<T>(fn: () => T): T {
    this.assertOpen();
    if (this.inGroup) return fn();
    this.inGroup = true;
    try {
      return this.groupAlone(fn);
    } finally {
      this.inGroup = false;
    }
  }

  /** A group of its own: one transaction, its events published once it is committed. */
  private groupAlone<T>(fn: () => T): T {
    const deferred: StoreEvent[] = (this.deferred = []);
    let result: T;
    try {
      result = this.runGroup.immediate(fn) as T;
    } catch (error) {
      // Rolled back as a whole: the revisions its commits took are free again, and nobody heard of them.
      this.resetRevision();
      throw error;
    } finally {
      this.deferred = undefined;
    }
    if (deferred.length > 0) this.publish(deferred);
    return result;
  }

  /** Back to the newest revision in the file, after a rollback freed the ones above it. */
  private resetRevision(): void {
    this.revision = Math.max(this.statements.maxRevision.get() ?? 0, this.compacted);
  }

  private publish(events: StoreEvent[]): void {
    this.published = events[events.length - 1]!.revision;
    this.hub.publish(events);
  }

  /**
   * Runs inside the transaction; throwing rolls everything back and leaves this.revision untouched. Rows hold
   * stored (possibly compressed) values; what goes back to callers and watchers is decoded.
   */
  private writeOps(ops: WriteOp[], ts: number): Applied {
    const s = this.statements;
    const { codec, decode } = this;
    const results: WriteResult[] = [];
    const events: StoreEvent[] = [];
    // Revisions are assigned here: the file lock makes this process the only writer, and a stale counter would
    // hit the primary key instead of silently reusing a revision.
    let revision = this.revision;
    for (const op of ops) {
      this.readCache?.delete(op.key);
      if (op.type === 'create') this.emptyPrefixes?.forgetUnder(op.key);
      if (op.unlogged) {
        results.push(this.writeUnlogged(op, revision));
        continue;
      }
      if (op.type === 'create') {
        revision++;
        const created = revision;
        if (op.firstValue !== undefined) revision++;
        // The primary key finds an existing key; no read first.
        try {
          s.insertObject.run(op.key, revision, created, codec.encode(op.key, op.value));
        } catch (error) {
          if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
            throw new KeyExistsError(`key ${op.key} already exists`, op.key);
          }
          throw error;
        }
        // The value is stored once: in objects now, in the next event of this key later (sqlite-log.ts).
        s.insertEvent.run(created, op.key, ADDED, '', null, 0, created, ts);
        if (op.firstValue === undefined) {
          events.push({ type: 'ADDED', key: op.key, revision, value: op.value });
        } else {
          // The first value lives only in the log, as the previous value of the MODIFIED that follows it.
          s.insertEvent.run(revision, op.key, MODIFIED, '', codec.encode(op.key, op.firstValue), created, created, ts);
          events.push({ type: 'ADDED', key: op.key, revision: created, value: op.firstValue });
          events.push({ type: 'MODIFIED', key: op.key, revision, value: op.value, prevValue: op.firstValue });
        }
        results.push({ key: op.key, revision });
        continue;
      }
      // A delete removes the row and reads it in one statement; a failed check below throws, which rolls the
      // transaction (or the group's savepoint) back, the row included.
      const existing = op.type === 'delete' ? s.deleteObject.get(op.key) : s.get.get(op.key);
      if (!existing) throw new KeyNotFoundError(`key ${op.key} not found`, op.key);
      if (op.expectedRevision !== undefined && op.expectedRevision !== existing.revision) {
        throw new RevisionConflictError(
          `key ${op.key} is at revision ${existing.revision}, expected ${op.expectedRevision}`,
          op.key,
        );
      }
      revision++;
      // Decoded once: the event and the result share it.
      const previous = decode(existing.value);
      if (op.type === 'update') {
        s.insertEvent.run(revision, op.key, MODIFIED, '', existing.value, existing.revision, existing.createRevision, ts);
        s.updateObject.run(revision, codec.encode(op.key, op.value), op.key);
        events.push({ type: 'MODIFIED', key: op.key, revision, value: op.value, prevValue: previous });
      } else {
        // A delete logs the last value (watchers and past-revision LISTs need it); prev_value stays NULL.
        s.insertEvent.run(revision, op.key, DELETED, existing.value, null, existing.revision, existing.createRevision, ts);
        events.push({ type: 'DELETED', key: op.key, revision, value: previous, prevValue: previous });
      }
      results.push({ key: op.key, revision, prev: { ...existing, value: previous } });
    }
    return { results, events };
  }

  /** A row change with no event (store.ts `unlogged`): the row takes the revision of the last event before it. */
  private writeUnlogged(op: WriteOp, revision: number): WriteResult {
    const s = this.statements;
    if (op.type === 'create') {
      try {
        s.insertObject.run(op.key, revision, revision, this.codec.encode(op.key, op.value));
      } catch (error) {
        if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') throw new KeyExistsError(`key ${op.key} already exists`, op.key);
        throw error;
      }
      return { key: op.key, revision };
    }
    const existing = op.type === 'delete' ? s.deleteObject.get(op.key) : s.get.get(op.key);
    if (!existing) throw new KeyNotFoundError(`key ${op.key} not found`, op.key);
    if (op.expectedRevision !== undefined && op.expectedRevision !== existing.revision) {
      throw new RevisionConflictError(`key ${op.key} is at revision ${existing.revision}, expected ${op.expectedRevision}`, op.key);
    }
    if (op.type === 'update') s.updateObject.run(revision, this.codec.encode(op.key, op.value), op.key);
    return { key: op.key, revision, prev: { ...existing, value: this.decode(existing.value) } };
  }

  watch(prefix: string, fromRevision: number, listener: WatchListener): WatchHandle {
    this.assertOpen();
    assertRevision(fromRevision, 'watch fromRevision');
    if (fromRevision < this.compacted) throw new CompactedError(fromRevision, this.compacted);
    // A watch opened inside a group replays what watchers were given; the group's own events follow on publish.
    const upTo = this.published;
    const pages = readEventPages(this.statements, prefix, fromRevision, upTo, this.logScanLimit, this.decode, this.values);
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

  async backup(destination: string): Promise<void> {
    this.assertOpen();
    if (this.db.memory) throw new Error('an in-memory SQLite store has no file to back up; export its rows instead');
    // Commits made while the backup runs (same connection) are carried into the copy: it is the state at its end.
    await this.db.backup(destination);
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
    this.readCache?.clear();
    this.emptyPrefixes?.clear();
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
    const from = startAfter ?? prefix;
    const args: [string] | [string, string] = end === undefined ? [from] : [from, end];
    // A bound `LIMIT ?` costs ~12 µs per run on this SQLite build (STAT4 re-plans the statement for each binding),
    // more than the whole index seek of an existence probe or a small page. Small pages step through the statement
    // without LIMIT and stop early; big ones pay the fixed cost once for many rows.
    const shape = startAfter === undefined ? (end === undefined ? 'FromOpen' : 'From') : end === undefined ? 'AfterOpen' : 'After';
    const unlimited = s[`range${shape}All`] as RangeStatement;
    let tuples: ObjectTuple[];
    if (limit <= 0) tuples = unlimited.all(...args);
    else if (limit <= SMALL_PAGE) tuples = firstRows(unlimited.iterate(...args), limit);
    else tuples = (s[`range${shape}`] as RangeStatement).all(...args, limit);
    const rows: KeyValue[] = new Array(tuples.length);
    for (let i = 0; i < tuples.length; i++) {
      const t = tuples[i]!;
      const stored = t[1];
      rows[i] = { key: t[0], value: stored.charCodeAt(0) === 1 ? this.codec.decode(stored) : stored, revision: t[2], createRevision: t[3] };
    }
    return rows;
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

/** Up to `limit` rows of a statement's iterator (leaving the loop early resets the statement). */
function firstRows<T>(rows: IterableIterator<T>, limit: number): T[] {
  const out: T[] = [];
  for (const row of rows) {
    out.push(row);
    if (out.length >= limit) break;
  }
  return out;
}

function* flatten<T>(pages: Iterable<T[]>): Generator<T> {
  for (const page of pages) yield* page;
}

function* eventsOf(pages: Iterable<LoggedEvent[]>): Generator<StoreEvent[]> {
  for (const page of pages) yield page.map((logged) => logged.event);
}
