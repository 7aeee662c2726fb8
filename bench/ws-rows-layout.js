#!/usr/bin/env node
// What the key layout and the commit grouping of a workspace's rows cost SQLite itself, with kcpt's schema and
// pragmas and nothing else (no codec, no pipeline): five files side by side, written in alternating blocks so all
// five see the same moments of a shared box's load.
//
//   today:    one transaction per workspace, keys `/registry/<resource>/<cluster>/…` (the store's layout): a new
//             workspace's seven objects sit in seven resource ranges, each at a random place (random cluster names)
//   cluster:  one transaction per workspace, the same keys with the cluster first (`/<cluster>/<resource>/…`): the
//             seven objects are neighbours in the key indexes
//   grouped:  today's keys, --group workspaces per transaction (what a group commit would write)
//   both:     cluster-first keys and --group workspaces per transaction
//   ordered:  today's keys and transactions, cluster names that grow (a serial part first, then random), so new
//             keys land at the end of each resource's range instead of anywhere in it (the store's names since
//             2026-11-29)
//   With --statements, variants of `ordered` (the store's layout) instead, for the cost of each statement and index:
//   multirow:   one INSERT for the commit's eight object rows and one for its eight events (statements per commit 16 → 2)
//   worowid:    `objects` WITHOUT ROWID (one B-tree holding key and row, not a rowid table plus its key index)
//   allkeys:    the log's key index over every event (`events_key`, schema 2) instead of the changes only (`events_changes`)
//   noindex:    no key index on the log (what the index costs; the store needs it: watch resumes, values of later events)
//   oneevent:   one event row per commit holding its eight events (what fewer event rows are worth at most)
//
//   node bench/ws-rows-layout.js [--prefill 10000] [--count 6000] [--block 250] [--group 16] [--statements]
//
// Prints, per layout: CPU µs per workspace (process user+sys while that layout's blocks ran) and WAL pages per
// workspace (pages written, counted with automatic checkpoints left on, from the WAL's frame counter).
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openKcptSchema } from './lib/kcpt-schema.js';
import { removeDir, tempDir } from './lib/util.js';

const { values } = parseArgs({ options: { prefill: { type: 'string' }, count: { type: 'string' }, block: { type: 'string' }, group: { type: 'string' }, statements: { type: 'boolean' } } });
const prefill = Number(values.prefill ?? 10000);
const count = Number(values.count ?? 6000);
const block = Number(values.block ?? 250);
const group = Number(values.group ?? 16);

/** A workspace's rows: [resource prefix, namespace or '', name, value length] (stored values after the codec). */
const ROWS = [
  ['core.kcp.io/logicalclusters', '', 'cluster', 420],
  ['namespaces', '', 'default', 90],
  ['serviceaccounts', 'default', 'default', 110],
  ['namespaces', '', 'kube-system', 90],
  ['serviceaccounts', 'kube-system', 'default', 110],
  ['rbac.authorization.k8s.io/clusterrolebindings', '', 'workspace-admin', 160],
];
const filler = (n) => randomBytes(Math.ceil(n / 2)).toString('hex').slice(0, n);

function open(dir, name, layout = {}) {
  const { db, insertObject, insertEvent } = openKcptSchema(path.join(dir, `${name}.db`), layout);
  const rowsOf = (n, columns) => Array.from({ length: n }, () => `(${Array(columns).fill('?').join(', ')})`).join(', ');
  const insertObjects = db.prepare(`INSERT INTO objects (key, revision, create_revision, value) VALUES ${rowsOf(1 + ROWS.length, 4)}`);
  const insertEvents = db.prepare(`INSERT INTO events (revision, key, type, value, prev_value, prev_revision, create_revision, ts) VALUES ${rowsOf(2 + ROWS.length, 8)}`);
  let revision = 0;
  /** One workspace: the Workspace in root (created then modified: two events), its six objects in its cluster. */
  let serial = 0;
  const writeWorkspace = (clusterFirst, ordered) => {
    const cluster = ordered ? (1e11 + serial++).toString(36).padStart(8, '0') + randomBytes(4).toString('hex') : randomBytes(10).toString('hex').slice(0, 16);
    const ts = Date.now();
    const key = (prefix, ns, name) => (clusterFirst ? `/${cluster}/${prefix}/${ns ? `${ns}/` : ''}${name}` : `/registry/${prefix}/${cluster}/${ns ? `${ns}/` : ''}${name}`);
    const wsKey = clusterFirst ? `/root/tenancy.kcp.io/workspaces/w-${cluster}` : `/registry/tenancy.kcp.io/workspaces/root/w-${cluster}`;
    const created = ++revision;
    const objects = [[wsKey, ++revision, created, filler(300)]];
    const events = [[created, wsKey, 0, '', null, 0, created, ts], [revision, wsKey, 1, '', filler(250), created, created, ts]];
    for (const [prefix, ns, name, size] of ROWS) {
      const k = key(prefix, ns, name);
      const r = ++revision;
      objects.push([k, r, r, filler(size)]);
      events.push([r, k, 0, '', null, 0, r, ts]);
    }
    if (layout.multiRow) {
      insertObjects.run(objects.flat());
      insertEvents.run(events.flat());
      return;
    }
    for (const row of objects) insertObject.run(...row);
    // One row for all: the first event's columns, the others' keys, types and previous values in its value.
    if (layout.oneEvent) insertEvent.run(created, wsKey, 0, JSON.stringify(events.slice(1).map((e) => [e[1], e[2], e[4]])), events[1][4], 0, created, ts);
    else for (const row of events) insertEvent.run(...row);
  };
  const commit = db.transaction((n, clusterFirst, ordered) => {
    for (let i = 0; i < n; i++) writeWorkspace(clusterFirst, ordered);
  });
  return { db, commit };
}

const dir = tempDir('kcpt-ws-rows-');
try {
  const ordered = { perCommit: 1, clusterFirst: false, ordered: true };
  const layouts = (
    values.statements
      ? [
          { name: 'ordered', ...ordered },
          { name: 'multirow', ...ordered, multiRow: true },
          { name: 'worowid', ...ordered, withoutRowid: true },
          { name: 'allkeys', ...ordered, eventIndex: 'all' },
          { name: 'noindex', ...ordered, eventIndex: false },
          { name: 'oneevent', ...ordered, oneEvent: true },
        ]
      : [
          { name: 'today', perCommit: 1, clusterFirst: false },
          { name: 'cluster', perCommit: 1, clusterFirst: true },
          { name: 'grouped', perCommit: group, clusterFirst: false },
          { name: 'both', perCommit: group, clusterFirst: true },
          { name: 'ordered', ...ordered },
        ]
  ).map((l) => ({ ...l, ...open(dir, l.name, l), cpuUs: 0, done: 0, pages: 0 }));
  for (const l of layouts) for (let i = 0; i < prefill; i += 100) l.commit(100, l.clusterFirst, l.ordered);
  // The WAL frame counter: a checkpoint's `log` column (frames in the WAL) read without checkpointing anything.
  const walFrames = (l) => l.db.pragma('wal_checkpoint(PASSIVE)')[0].log;
  for (let done = 0; done < count; done += block) {
    for (const l of layouts) {
      const before = process.cpuUsage();
      for (let i = 0; i < block; i += l.perCommit) l.commit(Math.min(l.perCommit, block - i), l.clusterFirst, l.ordered);
      const used = process.cpuUsage(before);
      l.cpuUs += used.user + used.system;
      l.done += block;
    }
  }
  // Pages per workspace, on a fresh stretch of WAL with checkpoints off (a separate, uncounted pass).
  for (const l of layouts) {
    l.db.pragma('wal_checkpoint(TRUNCATE)');
    l.db.pragma('wal_autocheckpoint = 0');
    for (let i = 0; i < 1000; i += l.perCommit) l.commit(l.perCommit, l.clusterFirst, l.ordered);
    l.pages = walFrames(l) / 1000;
  }
  for (const l of layouts) {
    console.log(JSON.stringify({ layout: l.name, perCommit: l.perCommit, workspaces: l.done, cpuUsPerWorkspace: Math.round(l.cpuUs / l.done), walPagesPerWorkspace: Number(l.pages.toFixed(1)) }));
    l.db.close();
  }
} finally {
  removeDir(dir);
}
