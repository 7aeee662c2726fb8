#!/usr/bin/env node
// Which pages one ConfigMap CREATE's commit writes to the WAL: the CREATE row's POST through the whole app assembled
// in process (fastify inject, as get-pipeline-pairs.js), the WAL read after each create and every new frame's page
// named by the B-tree SQLite's dbstat says it belongs to (page 1, pointer-map pages: named as such). With --bare, the
// bare server's table (bench/raw-server.js: one rowid table with its primary key) written the same way instead. Run it
// through tsx:
//
//   npx tsx bench/wal-frames.js [--count 1000] [--warmup 500] [--bare]
//
// Prints frames per create (a frame is one page; SQLite writes each as two pwrite64 calls) and their split by B-tree.
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { assembleTree } from './lib/pipeline-pairs.js';
import { openRawTable } from './lib/raw-table.js';
import { configMap } from './lib/payload.js';
import { removeDir, repoDir } from './lib/util.js';

const { values } = parseArgs({ options: { count: { type: 'string' }, warmup: { type: 'string' }, bare: { type: 'boolean' } } });
const count = Number(values.count ?? 1000);
const warmup = Number(values.warmup ?? 500);
const root = mkdtempSync(path.join(os.tmpdir(), 'kcpt-wal-frames-'));
const template = JSON.stringify(configMap('%s', 'default', 560));

/** Pages of the frames appended to the WAL since the last call (checkpoints are off while counting). */
function walReader(walPath) {
  let offset = 32;
  return () => {
    const wal = readFileSync(walPath);
    const pageSize = wal.readUInt32BE(8);
    const pages = [];
    for (; offset + 24 + pageSize <= wal.length; offset += 24 + pageSize) pages.push(wal.readUInt32BE(offset));
    return pages;
  };
}

let db;
let create;
let stop = async () => {};
if (values.bare) {
  const raw = openRawTable(path.join(root, 'raw.db'));
  db = raw.db;
  const upsert = raw.upsert;
  let revision = 0;
  create = async (name) => {
    const o = JSON.parse(template.replace('%s', name));
    o.metadata = { ...o.metadata, resourceVersion: String(++revision) };
    upsert.run('root', 'configmaps', 'default', name, revision, JSON.stringify(o));
  };
} else {
  const tree = await assembleTree((file) => import(pathToFileURL(path.join(repoDir, 'src', 'engine', `${file}.ts`)).href), root);
  db = tree.server.foundation.store.db;
  const headers = { authorization: `Bearer ${tree.adminToken}`, accept: 'application/json', 'content-type': 'application/json' };
  create = async (name) => {
    const res = await tree.app.inject({ method: 'POST', url: '/clusters/root/api/v1/namespaces/default/configmaps', headers, payload: template.replace('%s', name) });
    if (res.statusCode !== 201) throw new Error(`CREATE: HTTP ${res.statusCode} ${res.body}`);
  };
  stop = tree.stop;
}
try {
  for (let i = 0; i < warmup; i++) await create(`warm-${i}`);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.pragma('wal_autocheckpoint = 0');
  const newFrames = walReader(db.name + '-wal');
  const pages = [];
  // The CREATE row's names: wrk's Lua script numbers them per connection (`c8-<run>-<n>`).
  for (let i = 0; i < count; i++) {
    await create(`c8-0-${i}`);
    pages.push(...newFrames());
  }
  const owner = new Map(db.prepare('SELECT pageno, name, pagetype FROM dbstat').all().map((r) => [r.pageno, `${r.name} ${r.pagetype}`]));
  const byTree = new Map();
  for (const page of pages) {
    const name = page === 1 ? 'page 1 (header, sqlite_schema)' : (owner.get(page) ?? 'pointer map (auto_vacuum) or free');
    byTree.set(name, (byTree.get(name) ?? 0) + 1);
  }
  console.log(JSON.stringify({ side: values.bare ? 'bare' : 'kcpt', creates: count, autoVacuum: db.pragma('auto_vacuum', { simple: true }), framesPerCreate: +(pages.length / count).toFixed(3) }));
  for (const [name, n] of [...byTree].sort((a, b) => b[1] - a[1])) console.log(`  ${(n / count).toFixed(3).padStart(6)}  ${name}`);
} finally {
  await stop();
  if (values.bare) db.close();
  removeDir(root);
}
