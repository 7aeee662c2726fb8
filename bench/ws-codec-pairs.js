#!/usr/bin/env node
// What the value codec costs a workspace's templated objects (LogicalCluster, Namespaces, ServiceAccounts, admin
// binding): encode() of each whole value against encodePieces() of the same value given as constant parts and
// fills, alternating in one process so both see the same moments of a shared box's load. The rows come from a real
// server of this checkout (30 workspaces made first); each value is cut at its uid, creation time, cluster name, path
// and owner, roughly where the object template's holes are. Run it through tsx (it imports the TypeScript source):
//
//   npx tsx bench/ws-codec-pairs.js [--pairs 10]
//
// Prints CPU µs per workspace (six templated values) of each side per pair, the median ratio, and the stored
// characters of both forms.
import Database from 'better-sqlite3';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ValueCodec } from '../src/engine/storage/value-codec.ts';
import { referenceTable } from '../src/engine/storage/sqlite-schema.ts';
import { client, startKcpt } from './lib/kcpt.js';
import { median, removeDir, tempDir } from './lib/util.js';

const { values } = parseArgs({ options: { pairs: { type: 'string' } } });
const pairs = Number(values.pairs ?? 10);
const dir = tempDir('kcpt-ws-codec-');
try {
  const server = await startKcpt({ rootDir: dir });
  const c = client(server.url, { token: server.token });
  for (let i = 0; i < 30; i++) {
    const body = JSON.stringify({ apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name: `w${i}` } });
    const r = await c.request('POST', '/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces', body, { 'content-type': 'application/json' });
    if (r.status !== 201) throw new Error(`workspace w${i}: ${r.status} ${r.body}`);
  }
  await server.stop();
  const db = new Database(path.join(dir, 'root', 'kcpt.db'), { readonly: true });
  const codec = new ValueCodec(referenceTable(db).all());
  const rows = db.prepare("SELECT key, value FROM objects WHERE value LIKE char(1) || '%' AND key NOT LIKE '/registry/tenancy.kcp.io/workspaces/%'").all();
  db.close();
  const shapes = new Map();
  const items = [];
  for (const row of rows) {
    const value = codec.decode(row.value);
    const o = JSON.parse(value);
    const cluster = o.metadata.annotations?.['kcp.io/cluster'];
    if (!cluster || cluster === 'root') continue;
    const holes = [o.metadata.uid, o.metadata.creationTimestamp, cluster, o.metadata.annotations['kcp.io/path'], o.spec?.owner?.uid, o.spec?.owner?.name].filter(Boolean);
    const parts = [];
    const fills = [];
    let from = 0;
    for (;;) {
      let at = -1;
      let hole = '';
      for (const h of holes) {
        const i = value.indexOf(h, from);
        if (i >= 0 && (at < 0 || i < at)) [at, hole] = [i, h];
      }
      if (at < 0) break;
      parts.push(value.slice(from, at));
      fills.push(hole);
      from = at + hole.length;
    }
    parts.push(value.slice(from));
    // One parts array per shape, as a template hands the same array on every write.
    const shape = `${row.key.split('/').slice(0, 4).join('/')}|${parts.join('\0')}`;
    if (!shapes.has(shape)) shapes.set(shape, parts);
    items.push({ key: row.key, value, parts: shapes.get(shape), fills });
  }
  let whole = 0;
  let pieces = 0;
  for (const it of items) {
    const stored = codec.encodePieces(it.key, it.value, it.parts, it.fills);
    if (codec.decode(stored) !== it.value) throw new Error(`${it.key}: encodePieces does not decode to the value`);
    pieces += stored.length;
    whole += codec.encode(it.key, it.value).length;
  }
  const perWorkspace = items.length / 6;
  const time = (fn) => {
    const before = process.cpuUsage();
    for (let k = 0; k < 30; k++) for (const it of items) fn(it);
    const used = process.cpuUsage(before);
    return (used.user + used.system) / (30 * perWorkspace);
  };
  const ratios = [];
  for (let p = 0; p < pairs + 1; p++) {
    const order = p % 2 ? ['pieces', 'whole'] : ['whole', 'pieces'];
    const us = {};
    for (const side of order) us[side] = side === 'whole' ? time((it) => codec.encode(it.key, it.value)) : time((it) => codec.encodePieces(it.key, it.value, it.parts, it.fills));
    if (p === 0) continue; // warm-up
    ratios.push(us.pieces / us.whole);
    console.log(`pair ${p}: CPU µs per workspace, encode ${us.whole.toFixed(1)}, encodePieces ${us.pieces.toFixed(1)}`);
  }
  console.log(`median ratio pieces/whole ${median(ratios).toFixed(3)}; stored characters per workspace ${(whole / perWorkspace).toFixed(0)} whole, ${(pieces / perWorkspace).toFixed(0)} pieces (${items.length} values, ${shapes.size} shapes)`);
} finally {
  removeDir(dir);
}
