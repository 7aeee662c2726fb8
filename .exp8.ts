import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
function open(withEvents: boolean, withIndex: boolean) {
  const db = new Database(path.join(mkdtempSync(path.join(os.tmpdir(), 'kcpt-c-')), 'x.db'));
  db.pragma('journal_mode = WAL'); db.pragma('synchronous = NORMAL'); db.pragma('wal_autocheckpoint = 8000');
  db.exec(`CREATE TABLE objects (key TEXT PRIMARY KEY NOT NULL, revision INTEGER NOT NULL, create_revision INTEGER NOT NULL, value TEXT NOT NULL);
    CREATE TABLE events (revision INTEGER PRIMARY KEY, key TEXT NOT NULL, type INTEGER NOT NULL, value TEXT NOT NULL, prev_value TEXT, prev_revision INTEGER NOT NULL, create_revision INTEGER NOT NULL, ts INTEGER NOT NULL);` + (withIndex ? 'CREATE INDEX events_key ON events (key);' : ''));
  const io = db.prepare('INSERT INTO objects (key, revision, create_revision, value) VALUES (?, ?, ?, ?)');
  const ie = db.prepare('INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  let rev = 0;
  const tx = db.transaction((key: string, value: string) => { rev++; io.run(key, rev, rev, value); if (withEvents) ie.run(rev, key, 0, '', null, 0, rev, Date.now()); });
  return () => { const k = `/registry/core/configmaps/c1/bench/cm-${rev}-${Math.random().toString(36).slice(2, 8)}`; tx.immediate(k, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${k}"},"data":{"x":"${'x'.repeat(700)}"}}`); };
}
const v: Record<string, () => void> = { 'objects only': open(false, false), '+ events': open(true, false), '+ events + events_key': open(true, true) };
const res: Record<string, number[]> = {};
for (const k in v) { res[k] = []; for (let i = 0; i < 2000; i++) v[k](); }
for (let r = 0; r < 15; r++) for (const k in v) { const c = process.cpuUsage(); for (let i = 0; i < 500; i++) v[k](); const d = process.cpuUsage(c); res[k].push((d.user + d.system) / 500); }
for (const k in res) { const s = res[k].sort((a,b)=>a-b); console.log(k.padEnd(24), 'median', s[7].toFixed(1), 'min', s[0].toFixed(1)); }
