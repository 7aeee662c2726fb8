// The bare server's SQLite table (bench/raw-server.js): one rowid table keyed by (cluster, resource, namespace,
// name), WAL, synchronous=NORMAL, one upsert per write. Shared with bench/wal-frames.js --bare, which counts what
// that write puts in the WAL.
import Database from 'better-sqlite3';

export function openRawTable(file) {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`CREATE TABLE objects (cluster TEXT NOT NULL, resource TEXT NOT NULL, namespace TEXT NOT NULL, name TEXT NOT NULL,
  revision INTEGER NOT NULL, value TEXT NOT NULL, PRIMARY KEY (cluster, resource, namespace, name))`);
  const upsert = db.prepare(
    'INSERT INTO objects VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (cluster, resource, namespace, name) DO UPDATE SET revision = excluded.revision, value = excluded.value',
  );
  return { db, upsert };
}
