// kcpt's SQLite file as src/engine/storage/sqlite-schema.ts opens it (schema 3, the server's default tuning:
// exclusive locking, WAL, synchronous=NORMAL, checkpoints every 8000 pages, a 16 MiB cache), for the benches that
// write a workspace's rows without kcpt: bench/ws-rows-layout.js and the bare workspace server
// (bench/lib/bare-workspaces.js). `withoutRowid` and `eventIndex` ('changes' as kcpt, 'all', or false) are
// ws-rows-layout.js's variants.
import Database from 'better-sqlite3';

const schema = ({ withoutRowid = false, eventIndex = 'changes' } = {}) => `
  CREATE TABLE objects (key TEXT PRIMARY KEY NOT NULL, revision INTEGER NOT NULL, create_revision INTEGER NOT NULL, value TEXT NOT NULL)${withoutRowid ? ' WITHOUT ROWID' : ''};
  CREATE TABLE events (revision INTEGER PRIMARY KEY, key TEXT NOT NULL, type INTEGER NOT NULL, value TEXT NOT NULL,
    prev_value TEXT, prev_revision INTEGER NOT NULL, create_revision INTEGER NOT NULL, ts INTEGER NOT NULL);
  ${eventIndex === 'changes' ? 'CREATE INDEX events_changes ON events (key, create_revision) WHERE create_revision < revision;' : ''}
  ${eventIndex === 'all' ? 'CREATE INDEX events_key ON events (key);' : ''}
`;

/** A new database file with kcpt's pragmas and tables; `insertObject` and `insertEvent` take kcpt's columns in order. */
export function openKcptSchema(file, layout = {}) {
  const db = new Database(file);
  db.pragma('locking_mode = EXCLUSIVE');
  db.pragma('auto_vacuum = INCREMENTAL');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('wal_autocheckpoint = 8000');
  db.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
  db.pragma(`cache_size = ${-16 * 1024}`);
  db.pragma('temp_store = MEMORY');
  db.exec(schema(layout));
  return {
    db,
    insertObject: db.prepare('INSERT INTO objects (key, revision, create_revision, value) VALUES (?, ?, ?, ?)'),
    insertEvent: db.prepare('INSERT INTO events (revision, key, type, value, prev_value, prev_revision, create_revision, ts) VALUES (?, ?, ?, ?, ?, ?, ?, ?)'),
  };
}
