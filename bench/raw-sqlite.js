// Raw better-sqlite3 floors, the baseline B.1 in docs/benchmarks.md recipe (fresh DB file per run, values generated outside the
// timed loops, rowid table, journal_mode=WAL):
//   node bench/raw-sqlite.js insert [n]   (a) one autocommit INSERT per row, synchronous=NORMAL  -> inserts/s
//   node bench/raw-sqlite.js scan  [n]    range scan of 1,000 rows by (cluster, resource), .all() row objects
//                                         (and .pluck() values) -> scans/s. The table holds 20 clusters x 1,000
//                                         rows (B.1 used 100 x 1,000; a scan touches one 1,000-row prefix either
//                                         way, and filling 100k rows costs ~5 s per run on this box).
//   node bench/raw-sqlite.js workspaces [n] <objects.json>
//                                         the rows of n workspaces in the B.1 table: per workspace one transaction
//                                         inserting the Workspace, then one inserting its LogicalCluster, `default`
//                                         Namespace and ClusterRoleBinding and updating the Workspace (kcpt's two
//                                         commits, without an event log), with the JSON kcpt serves for them
//                                         (objects.json: {workspaceScheduling, workspace, logicalCluster,
//                                         namespace, binding}) -> workspaces/s, and bytes per workspace on disk
//                                         after a checkpoint.
// Prints one JSON line.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { rawRowPad, rawRowValue } from './lib/payload.js';

const [mode = 'insert', nArg] = process.argv.slice(2);
const dir = mkdtempSync(path.join(os.tmpdir(), 'kcpt-bench-sqlite-'));
const db = new Database(path.join(dir, 'bench.db'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec(`CREATE TABLE objects (cluster TEXT NOT NULL, resource TEXT NOT NULL, namespace TEXT NOT NULL, name TEXT NOT NULL,
  revision INTEGER NOT NULL, value TEXT NOT NULL, PRIMARY KEY (cluster, resource, namespace, name))`);
const ins = db.prepare('INSERT INTO objects VALUES (?, ?, ?, ?, ?, ?)');

const pad = rawRowPad();
const clusterId = (i) => `c${String(i).padStart(15, '0')}`; // 16 characters, like a kcp logical-cluster id
const rows = (n, clusters = 100) =>
  Array.from({ length: n }, (_, i) => [
    clusterId(i % clusters),
    'configmaps',
    'default',
    `cm-${String(Math.floor(i / clusters)).padStart(5, '0')}`,
    i + 1,
    rawRowValue(Math.floor(i / clusters), pad),
  ]);

/** CPU seconds (user + system) of this process since `start` (a process.cpuUsage() value). */
const cpuSeconds = (start) => {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1e6;
};

let result;
if (mode === 'insert') {
  const n = Number(nArg ?? 20_000);
  const data = rows(n);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (const r of data) ins.run(...r);
  const s = (performance.now() - t0) / 1000;
  const cpu = cpuSeconds(c0);
  result = { mode, n, rate: n / s, cpuRate: n / cpu, usPerOp: (s * 1e6) / n, valueBytes: data[0][5].length };
} else if (mode === 'scan') {
  const scans = Number(nArg ?? 300);
  const clusters = 20;
  const data = rows(clusters * 1000, clusters);
  const batch = db.transaction((chunk) => {
    for (const r of chunk) ins.run(...r);
  });
  for (let i = 0; i < data.length; i += 1000) batch(data.slice(i, i + 1000));
  const all = db.prepare('SELECT name, revision, value FROM objects WHERE cluster = ? AND resource = ? ORDER BY namespace, name');
  const pluck = db.prepare('SELECT value FROM objects WHERE cluster = ? AND resource = ?').pluck();
  // warm-up
  for (let j = 0; j < 20; j++) all.all(clusterId(j % clusters), 'configmaps');
  let rowsSeen = 0;
  const c0 = process.cpuUsage();
  let t0 = performance.now();
  for (let j = 0; j < scans; j++) rowsSeen += all.all(clusterId(j % clusters), 'configmaps').length;
  const allRate = scans / ((performance.now() - t0) / 1000);
  const cpuRate = scans / cpuSeconds(c0);
  t0 = performance.now();
  for (let j = 0; j < scans; j++) pluck.all(clusterId(j % clusters), 'configmaps');
  const pluckRate = scans / ((performance.now() - t0) / 1000);
  result = { mode, scans, tableRows: data.length, rowsPerScan: rowsSeen / scans, rate: allRate, cpuRate, pluckRate, valueBytes: data[0][5].length };
} else if (mode === 'workspaces') {
  const { readFileSync, statSync } = await import('node:fs');
  const n = Number(nArg ?? 20_000);
  const o = JSON.parse(readFileSync(process.argv[4], 'utf8'));
  const update = db.prepare('UPDATE objects SET revision = ?, value = ? WHERE cluster = ? AND resource = ? AND namespace = ? AND name = ?');
  const scheduling = db.transaction((i, rev) => ins.run('root', 'workspaces', '', `ws-${i}`, rev, o.workspaceScheduling));
  const ready = db.transaction((i, cluster, rev) => {
    ins.run(cluster, 'namespaces', '', 'default', rev + 1, o.namespace);
    ins.run(cluster, 'logicalclusters', '', 'cluster', rev + 2, o.logicalCluster);
    ins.run(cluster, 'clusterrolebindings', '', 'workspace-admin', rev + 3, o.binding);
    update.run(rev + 4, o.workspace, 'root', 'workspaces', '', `ws-${i}`);
  });
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    scheduling(i, i * 5 + 1);
    // random-looking, unique cluster ids, as kcp's are: inserts land all over the key index
    ready(i, (Math.imul(i, 2654435761) >>> 0).toString(36).padStart(16, '0'), i * 5 + 1);
  }
  const s = (performance.now() - t0) / 1000;
  const cpu = cpuSeconds(c0);
  db.pragma('wal_checkpoint(TRUNCATE)');
  const bytes = statSync(path.join(dir, 'bench.db')).size;
  const valueBytes = o.workspace.length + o.logicalCluster.length + o.namespace.length + o.binding.length;
  result = { mode, n, rate: n / s, cpuRate: n / cpu, usPerOp: (s * 1e6) / n, bytesPerWorkspace: bytes / n, valueBytes };
} else {
  throw new Error(`unknown mode ${mode}`);
}
db.close();
rmSync(dir, { recursive: true, force: true });
process.stdout.write(`${JSON.stringify(result)}\n`);
