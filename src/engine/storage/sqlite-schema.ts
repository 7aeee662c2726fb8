/**
 * Opening a kcpt SQLite file: loading the native driver lazily, the pragmas, the schema and every prepared
 * statement the store uses. Statements are prepared once; each LIST shape has its own so SQLite always plans an
 * index range scan (a generic `key > ? OR …` statement would fall back to a table scan).
 */
import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import type { ReferenceTable, ValueReference } from './value-codec.js';

export type Synchronous = 'NORMAL' | 'FULL';

export interface SqliteTuning {
  synchronous: Synchronous;
  busyTimeoutMs: number;
  exclusive: boolean;
  walAutocheckpointPages: number;
  cacheSizeKiB: number;
}

/** Event types as stored (small integers keep the log rows short). */
export const EVENT_TYPES = ['ADDED', 'MODIFIED', 'DELETED'] as const;
export const ADDED = 0;
export const MODIFIED = 1;
export const DELETED = 2;

/**
 * 1: every event row carries its value. 2: ADDED and MODIFIED rows logged after the `inline_values_up_to` meta
 * revision leave `value` empty: that version's bytes are stored once, in the key's next event (its prev_value, or
 * the value of a DELETED) or, while it is current, in `objects` (see sqlite-log.ts); and values may be stored
 * compressed against a `value_references` text (value-codec.ts). 3: the log's key index holds only the events after
 * a generation's first (`events_changes`, below) instead of every event (`events_key`).
 */
export const SCHEMA_VERSION = 3;
/** Meta row: events at or below this revision carry their value inline (logged by schema 1). */
export const INLINE_VALUES_UP_TO = 'inline_values_up_to';

const SCHEMA = `
  -- Current state: one row per live key. A rowid table: WITHOUT ROWID triples the size of ~1 KB rows.
  CREATE TABLE IF NOT EXISTS objects (
    key TEXT PRIMARY KEY NOT NULL,
    revision INTEGER NOT NULL,
    create_revision INTEGER NOT NULL,
    value TEXT NOT NULL
  );
  -- Append-only log; revision (the rowid) IS the store revision. No AUTOINCREMENT: the store assigns revisions
  -- itself and compaction never deletes the newest row, so max(revision) is always the current revision, and
  -- skipping sqlite_sequence saves one WAL page per commit.
  CREATE TABLE IF NOT EXISTS events (
    revision INTEGER PRIMARY KEY,
    key TEXT NOT NULL,
    type INTEGER NOT NULL,
    value TEXT NOT NULL,
    prev_value TEXT,
    prev_revision INTEGER NOT NULL,
    create_revision INTEGER NOT NULL,
    ts INTEGER NOT NULL
  );
  -- Lets a narrow prefix find its events without reading the whole log (sqlite-log.ts). Only the events after the
  -- first of a key's generation (MODIFIED, DELETED: create_revision < revision; an ADDED is logged at its
  -- create_revision): a create then writes no index page, and the ADDED events a prefix needs are found from the
  -- generation's later events or its current row, which both carry create_revision. (key, create_revision, rowid)
  -- also finds the event after any version of a key in one seek.
  CREATE INDEX IF NOT EXISTS events_changes ON events (key, create_revision) WHERE create_revision < revision;
  CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY NOT NULL, value INTEGER NOT NULL);
  -- Texts values under a key prefix are compressed against (value-codec.ts). Rows are never changed or removed:
  -- stored values name them by id.
  CREATE TABLE IF NOT EXISTS value_references (id INTEGER PRIMARY KEY, prefix TEXT NOT NULL, text TEXT NOT NULL);
`;

// Not named `require`: the esbuild bundle defines its own top-level `require` in a banner.
const loadCommonJs = createRequire(import.meta.url);

/** Loads better-sqlite3 on first use, so `memory://` keeps working where the native binding is missing. */
export function loadDriver(): typeof Database {
  try {
    return loadCommonJs('better-sqlite3') as typeof Database;
  } catch (error) {
    throw new Error(
      `SQLite storage needs the native module better-sqlite3, which failed to load (${(error as Error).message}). ` +
        'Reinstall it with `npm rebuild better-sqlite3` (or install kcpt with `--allow-scripts=better-sqlite3`), ' +
        'or run without persistence using `--storage memory://`.',
    );
  }
}

/** What opening (or restoring) a file of a schema this build does not know says. */
export function newerSchemaMessage(path: string, version: number): string {
  return `${path} was written by a newer kcpt (schema ${version}, this build knows ${SCHEMA_VERSION})`;
}

export function openDatabase(path: string, tuning: SqliteTuning): Database.Database {
  const inMemory = path === ':memory:' || path === '';
  if (!inMemory) {
    mkdirSync(dirname(path), { recursive: true });
    // The database holds Secrets: a new file is created private (0600) before SQLite opens it, and SQLite gives its
    // -wal and -shm files the database file's permissions.
    if (!existsSync(path)) closeSync(openSync(path, 'wx', 0o600));
  }
  const Driver = loadDriver();
  const db = new Driver(path, { timeout: tuning.busyTimeoutMs });
  try {
    // Before the first WAL access: no shared-memory index, and a second process cannot write behind our back
    // (our revision counter and watch fan-out live in this process).
    if (tuning.exclusive) db.pragma('locking_mode = EXCLUSIVE');
    // Only takes effect on a new file; lets compaction give pages back without a full VACUUM.
    db.pragma('auto_vacuum = INCREMENTAL');
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${tuning.synchronous}`);
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(tuning.busyTimeoutMs))}`);
    // Checkpointing less often copies hot pages (index roots, the log tail) once per many commits; see options.
    db.pragma(`wal_autocheckpoint = ${Math.max(1, Math.floor(tuning.walAutocheckpointPages))}`);
    // After a checkpoint resets it, the -wal file is truncated back to this size.
    db.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
    db.pragma(`cache_size = ${-Math.max(1024, Math.floor(tuning.cacheSizeKiB))}`);
    db.pragma('temp_store = MEMORY');
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION) throw new Error(newerSchemaMessage(path, version));
    db.exec(SCHEMA);
    if (version < SCHEMA_VERSION) {
      db.transaction(() => {
        if (version < 2) {
          // A schema-1 log keeps its inline values; only events logged from now on store each version once.
          const last = (db.prepare('SELECT max(revision) FROM events').pluck().get() as number | null) ?? 0;
          db.prepare('INSERT OR REPLACE INTO meta (name, value) VALUES (?, ?)').run(INLINE_VALUES_UP_TO, version === 0 ? 0 : last);
        }
        // The schema above built events_changes beside it; nothing reads the index of every event any more.
        db.exec('DROP INDEX IF EXISTS events_key');
        db.pragma(`user_version = ${SCHEMA_VERSION}`);
      }).immediate();
    }
    return db;
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') {
      throw new Error(`${path} is locked by another process (is another kcpt server using the same root directory?)`);
    }
    throw error;
  }
}

/** A current row, shaped by column aliases straight into a KeyValue. */
export interface ObjectRow {
  key: string;
  value: string;
  revision: number;
  createRevision: number;
}

/**
 * A current row as a range read returns it: [key, value, revision, createRevision]. Arrays (`.raw()`), because
 * better-sqlite3 builds a row object through named property sets, which cost a range read of 1,000 rows ~25 %.
 */
export type ObjectTuple = [key: string, value: string, revision: number, createRevision: number];

export interface EventRow {
  revision: number;
  key: string;
  type: number;
  value: string;
  prevValue: string | null;
  prevRevision: number;
  createRevision: number;
  ts: number;
}

/** [revision, create_revision] of a logged change (changesOfPrefix). */
export type RevisionPair = [revision: number, createRevision: number];

/** events_changes' condition, repeated in each query that reads it (SQLite uses a partial index only then). */
const CHANGE = 'create_revision < revision';
const OBJECT_COLUMNS = 'key, value, revision, create_revision AS createRevision';
const OBJECT_TUPLE = 'key, value, revision, create_revision';
const EVENT_COLUMNS =
  'revision, key, type, value, prev_value AS prevValue, prev_revision AS prevRevision, create_revision AS createRevision, ts';

type Stmt<Params extends unknown[], Row = unknown> = Database.Statement<Params, Row>;

export interface Statements {
  get: Stmt<[string], ObjectRow>;
  rangeFrom: Stmt<[string, string, number], ObjectTuple>;
  rangeFromOpen: Stmt<[string, number], ObjectTuple>;
  rangeAfter: Stmt<[string, string, number], ObjectTuple>;
  rangeAfterOpen: Stmt<[string, number], ObjectTuple>;
  /** The same four ranges without LIMIT (see SqliteStoreImpl.range for why both exist). */
  rangeFromAll: Stmt<[string, string], ObjectTuple>;
  rangeFromOpenAll: Stmt<[string], ObjectTuple>;
  rangeAfterAll: Stmt<[string, string], ObjectTuple>;
  rangeAfterOpenAll: Stmt<[string], ObjectTuple>;
  countFrom: Stmt<[string, string], number>;
  countFromOpen: Stmt<[string], number>;
  countAfter: Stmt<[string, string], number>;
  countAfterOpen: Stmt<[string], number>;
  insertObject: Stmt<[string, number, number, string]>;
  updateObject: Stmt<[number, string, string]>;
  /** Deletes a row and answers what it held: one statement where a read and a delete were two. */
  deleteObject: Stmt<[string], ObjectRow>;
  insertEvent: Stmt<[number, string, number, string, string | null, number, number, number]>;
  scanEvents: Stmt<[number, number, string, string, number], EventRow>;
  scanEventsOpen: Stmt<[number, number, string, number], EventRow>;
  changesOfPrefix: Stmt<[string, string, number, number], RevisionPair>;
  changesOfPrefixOpen: Stmt<[string, number, number], RevisionPair>;
  currentOfPrefix: Stmt<[string, string, number], number>;
  currentOfPrefixOpen: Stmt<[string, number], number>;
  eventsByRevision: Stmt<[string], EventRow>;
  nextEventOfKey: Stmt<[string, number, number], Pick<EventRow, 'type' | 'value' | 'prevValue'>>;
  firstEventTsAtOrAfter: Stmt<[number], number>;
  lastEvent: Stmt<[], { revision: number; ts: number }>;
  maxRevision: Stmt<[], number | null>;
  deleteEvents: Stmt<[number, number]>;
  readMeta: Stmt<[string], number>;
  writeMeta: Stmt<[string, number]>;
}

export function prepareStatements(db: Database.Database): Statements {
  const bounded = (where: string) =>
    db.prepare<[string, string, number], ObjectTuple>(`SELECT ${OBJECT_TUPLE} FROM objects WHERE ${where} ORDER BY key LIMIT ?`).raw();
  const open = (where: string) =>
    db.prepare<[string, number], ObjectTuple>(`SELECT ${OBJECT_TUPLE} FROM objects WHERE ${where} ORDER BY key LIMIT ?`).raw();
  const unlimited = <P extends unknown[]>(where: string) =>
    db.prepare<P, ObjectTuple>(`SELECT ${OBJECT_TUPLE} FROM objects WHERE ${where} ORDER BY key`).raw();
  const countBounded = (where: string) => db.prepare<[string, string], number>(`SELECT count(*) FROM objects WHERE ${where}`).pluck();
  const countOpen = (where: string) => db.prepare<[string], number>(`SELECT count(*) FROM objects WHERE ${where}`).pluck();
  return {
    get: db.prepare<[string], ObjectRow>(`SELECT ${OBJECT_COLUMNS} FROM objects WHERE key = ?`),
    // Range reads: [from-inclusive | after-exclusive] × [bounded | unbounded prefix].
    rangeFrom: bounded('key >= ? AND key < ?'),
    rangeFromOpen: open('key >= ?'),
    rangeAfter: bounded('key > ? AND key < ?'),
    rangeAfterOpen: open('key > ?'),
    rangeFromAll: unlimited<[string, string]>('key >= ? AND key < ?'),
    rangeFromOpenAll: unlimited<[string]>('key >= ?'),
    rangeAfterAll: unlimited<[string, string]>('key > ? AND key < ?'),
    rangeAfterOpenAll: unlimited<[string]>('key > ?'),
    countFrom: countBounded('key >= ? AND key < ?'),
    countFromOpen: countOpen('key >= ?'),
    countAfter: countBounded('key > ? AND key < ?'),
    countAfterOpen: countOpen('key > ?'),

    insertObject: db.prepare<[string, number, number, string]>(
      'INSERT INTO objects (key, revision, create_revision, value) VALUES (?, ?, ?, ?)',
    ),
    updateObject: db.prepare<[number, string, string]>('UPDATE objects SET revision = ?, value = ? WHERE key = ?'),
    deleteObject: db.prepare<[string], ObjectRow>(`DELETE FROM objects WHERE key = ? RETURNING ${OBJECT_COLUMNS}`),
    insertEvent: db.prepare<[number, string, number, string, string | null, number, number, number]>(
      'INSERT INTO events (revision, key, type, value, prev_value, prev_revision, create_revision, ts) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ),

    // Walking the log in revision order, filtered by key range (rowid range scan, never the key index).
    scanEvents: db.prepare<[number, number, string, string, number], EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM events NOT INDEXED WHERE revision > ? AND revision <= ? AND key >= ? AND key < ? ORDER BY revision LIMIT ?`,
    ),
    scanEventsOpen: db.prepare<[number, number, string, number], EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM events NOT INDEXED WHERE revision > ? AND revision <= ? AND key >= ? ORDER BY revision LIMIT ?`,
    ),
    // Finding a narrow prefix's events through the changes index (covering: reads no rows): the revisions of its
    // changes after `after`, each with its generation's create revision (the generation's ADDED; sqlite-log.ts).
    changesOfPrefix: db
      .prepare<[string, string, number, number], RevisionPair>(
        `SELECT revision, create_revision FROM events INDEXED BY events_changes WHERE key >= ? AND key < ? AND ${CHANGE} AND revision > ? AND create_revision <= ?`,
      )
      .raw(),
    changesOfPrefixOpen: db
      .prepare<[string, number, number], RevisionPair>(
        `SELECT revision, create_revision FROM events INDEXED BY events_changes WHERE key >= ? AND ${CHANGE} AND revision > ? AND create_revision <= ?`,
      )
      .raw(),
    // The ADDED of each current generation of a prefix (its create_revision), up to a number of rows.
    currentOfPrefix: db.prepare<[string, string, number], number>('SELECT create_revision FROM objects WHERE key >= ? AND key < ? LIMIT ?').pluck(),
    currentOfPrefixOpen: db.prepare<[string, number], number>('SELECT create_revision FROM objects WHERE key >= ? LIMIT ?').pluck(),
    eventsByRevision: db.prepare<[string], EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM events WHERE revision IN (SELECT value FROM json_each(?)) ORDER BY revision`,
    ),
    // Where a version logged without its value lives: the next event of its generation (one seek on key,
    // create_revision, rowid; a generation's events after its first are all in the changes index).
    nextEventOfKey: db.prepare<[string, number, number], Pick<EventRow, 'type' | 'value' | 'prevValue'>>(
      `SELECT type, value, prev_value AS prevValue FROM events INDEXED BY events_changes WHERE key = ? AND create_revision = ? AND ${CHANGE} AND revision > ? ORDER BY revision LIMIT 1`,
    ),
    firstEventTsAtOrAfter: db
      .prepare<[number], number>('SELECT ts FROM events WHERE revision >= ? ORDER BY revision LIMIT 1')
      .pluck(),
    lastEvent: db.prepare<[], { revision: number; ts: number }>(
      'SELECT revision, ts FROM events ORDER BY revision DESC LIMIT 1',
    ),
    maxRevision: db.prepare<[], number | null>('SELECT max(revision) FROM events').pluck(),

    deleteEvents: db.prepare<[number, number]>('DELETE FROM events WHERE revision > ? AND revision <= ?'),
    readMeta: db.prepare<[string], number>('SELECT value FROM meta WHERE name = ?').pluck(),
    writeMeta: db.prepare<[string, number]>(
      'INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
    ),
  };
}


/** The `value_references` table, as value-codec.ts needs it. */
export function referenceTable(db: Database.Database): ReferenceTable {
  return {
    all: () => db.prepare<[], ValueReference>('SELECT id, prefix, text FROM value_references ORDER BY id').all(),
    insert: (prefix, text) => {
      const id = db.prepare<[], number>('SELECT ifnull(max(id) + 1, 0) FROM value_references').pluck().get()!;
      db.prepare('INSERT INTO value_references (id, prefix, text) VALUES (?, ?, ?)').run(id, prefix, text);
      return id;
    },
  };
}
