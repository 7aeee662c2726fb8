/**
 * Whole SQLite store files for snapshots, with no server running: copying a stopped server's database (the online
 * backup API, which also folds in a `-wal` left by a crash), checking that a file is a kcpt store, and writing a new
 * store from exported rows with their revisions kept (a memory server's JSON-lines snapshot becomes a database).
 */
import { existsSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { loadDriver, newerSchemaMessage, openDatabase, prepareStatements, SCHEMA_VERSION } from './sqlite-schema.js';
import { COMPACTED } from './sqlite-store.js';
import type { KeyValue } from './store.js';

const REQUIRED_TABLES = ['objects', 'events', 'meta'];

/** What a store file holds, as far as a restore needs to know. */
export interface StoreFileSummary {
  /** The revision a server opening it would continue from. */
  revision: number;
  objects: number;
}

function openReadOnly(path: string): Database.Database {
  if (!existsSync(path)) throw new Error(`${path} does not exist`);
  const Driver = loadDriver();
  return new Driver(path, { readonly: true, fileMustExist: true });
}

/**
 * Throws with a message a person can act on unless `path` is an intact kcpt SQLite store. Opened read-only: a file
 * some other program is writing is reported, not changed.
 */
export function checkStoreFile(path: string): StoreFileSummary {
  let db: Database.Database;
  try {
    db = openReadOnly(path);
  } catch (error) {
    throw new Error(`${path} is not a readable SQLite database: ${(error as Error).message}`);
  }
  try {
    let tables: string[];
    try {
      tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
    } catch (error) {
      throw new Error(`${path} is not a SQLite database: ${(error as Error).message}`);
    }
    const missing = REQUIRED_TABLES.filter((t) => !tables.includes(t));
    if (missing.length > 0) throw new Error(`${path} is a SQLite database but not a kcpt store (no ${missing.join(', ')} table)`);
    // Refused here rather than by the `kcpt start` after the restore, which would find it unreadable.
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION) throw new Error(`${newerSchemaMessage(path, version)}: restore it with that kcpt or a newer one`);
    const check = db.pragma('quick_check', { simple: true }) as string;
    if (check !== 'ok') throw new Error(`${path} is damaged (SQLite quick_check: ${check})`);
    const maxEvent = (db.prepare('SELECT max(revision) FROM events').pluck().get() as number | null) ?? 0;
    const compacted = (db.prepare('SELECT value FROM meta WHERE name = ?').pluck().get(COMPACTED) as number | undefined) ?? 0;
    const objects = db.prepare('SELECT count(*) FROM objects').pluck().get() as number;
    return { revision: Math.max(maxEvent, compacted), objects };
  } finally {
    db.close();
  }
}

/** Copies the store at `source` (no server may be using it) to `destination` as one consistent file. */
export async function copyStoreFile(source: string, destination: string): Promise<StoreFileSummary> {
  const summary = checkStoreFile(source);
  const db = openReadOnly(source);
  try {
    await db.backup(destination);
  } finally {
    db.close();
  }
  return summary;
}

/**
 * Creates a new store file at `path` holding exactly `rows`, each with its revision and create revision, continuing
 * from `revision`. It has no event history: a watch from before `revision` gets 410 Gone and relists, as after a
 * compaction.
 */
export function writeStoreFile(path: string, rows: Iterable<KeyValue>, revision: number): StoreFileSummary {
  if (existsSync(path)) throw new Error(`${path} already exists`);
  const db = openDatabase(path, { synchronous: 'NORMAL', busyTimeoutMs: 5000, exclusive: true, walAutocheckpointPages: 2000, cacheSizeKiB: 16 * 1024 });
  try {
    const statements = prepareStatements(db);
    let objects = 0;
    db.transaction(() => {
      for (const row of rows) {
        if (row.revision > revision) throw new Error(`row ${row.key} has revision ${row.revision}, after the snapshot's revision ${revision}`);
        // The value codec reads a leading \x01 as "encoded": such a value is stored escaped (value-codec.ts).
        const stored = row.value.charCodeAt(0) === 1 ? `\x01 ${row.value}` : row.value;
        statements.insertObject.run(row.key, row.revision, row.createRevision, stored);
        objects++;
      }
      statements.writeMeta.run(COMPACTED, revision);
    }).immediate();
    db.pragma('wal_checkpoint(TRUNCATE)');
    return { revision, objects };
  } finally {
    db.close();
  }
}
