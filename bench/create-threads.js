#!/usr/bin/env node
// Where a CREATE's server CPU goes by thread: kcpt and the bare server (bench/raw-server.js POST /write) under the
// CREATE row's load (wrk, 8 connections, the same ~1 KB ConfigMap body), each thread's user+sys from
// /proc/<pid>/task/<tid>/stat, per request. Tells the main thread's share (JavaScript, SQLite, the TLS write) from the
// V8 helper threads' (concurrent marking, parallel scavenges, sweeping) and libuv's.
//   node bench/create-threads.js [--rounds 4] [--seconds 3]
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { client, ensureNamespace, startKcpt } from './lib/kcpt.js';
import { startRawServer } from './lib/raw.js';
import { runWrk, wrkPostScript } from './lib/load.js';
import { configMap } from './lib/payload.js';
import { median, removeDir, tempDir } from './lib/util.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '4' }, seconds: { type: 'string', default: '3' } } });
const NS = 'bench-create';
const CM_PATH = `/clusters/root/api/v1/namespaces/${NS}/configmaps`;
const TICK = 100; // clock ticks per second (getconf CLK_TCK on Linux)

function threads(pid) {
  const out = new Map();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(tid, { name: tid === String(pid) ? 'main' : name, us: ((Number(f[11]) + Number(f[12])) * 1e6) / TICK });
      if (tid === String(pid)) out.set(`${tid}sys`, { name: 'main-sys', us: (Number(f[12]) * 1e6) / TICK });
    } catch {}
  }
  return out;
}

function byName(before, after) {
  const m = new Map();
  for (const [tid, a] of after) {
    const b = before.get(tid)?.us ?? 0;
    const key = a.name.replace(/\d+$/, '#');
    m.set(key, (m.get(key) ?? 0) + (a.us - b));
  }
  return m;
}

const rootDir = tempDir('kcpt-create-threads-');
const server = await startKcpt({ rootDir });
await ensureNamespace(client(server.url, { token: server.token }), NS);
const cm = JSON.parse(JSON.stringify(configMap('x', NS, 560)));
const objFile = path.join(rootDir, 'obj.json');
(await import('node:fs')).writeFileSync(objFile, JSON.stringify(cm));
const raw = await startRawServer({ certDir: server.certDir, objFile });
const template = JSON.stringify(configMap('%s', NS, 560));
const sides = [
  { name: 'kcpt', pid: server.child.pid, url: `${server.url}${CM_PATH}`, path: CM_PATH, headers: { Authorization: `Bearer ${server.token}`, Accept: 'application/json' } },
  { name: 'bare', pid: raw.child.pid, url: `${raw.url}/write`, path: '/write', headers: { Accept: 'application/json' } },
];
let n = 0;
const load = (s, d) => runWrk({ url: s.url, connections: 8, durationS: d, script: wrkPostScript({ path: s.path, bodyTemplate: template, namePrefix: `t${n++}-`, headers: s.headers }) });
const rows = { kcpt: [], bare: [] };
try {
  for (const s of sides) await load(s, 2);
  for (let r = 0; r < Number(values.rounds); r++) {
    for (const s of r % 2 ? [...sides].reverse() : sides) {
      const before = threads(s.pid);
      const res = await load(s, Number(values.seconds));
      const per = byName(before, threads(s.pid));
      const reqs = res.rps * Number(values.seconds);
      const row = { rps: Math.round(res.rps) };
      for (const [k, us] of [...per].sort((a, b) => b[1] - a[1])) if (us > 0) row[k] = +(us / reqs).toFixed(1);
      rows[s.name].push(row);
      console.log(JSON.stringify({ side: s.name, round: r + 1, ...row }));
    }
  }
} finally {
  await server.stop();
  await raw.stop?.();
  removeDir(rootDir);
}
for (const [name, rs] of Object.entries(rows)) {
  const keys = new Set(rs.flatMap((r) => Object.keys(r)));
  const med = {};
  for (const k of keys) med[k] = +median(rs.map((r) => r[k] ?? 0)).toFixed(1);
  console.log(JSON.stringify({ side: name, median: med }));
}
