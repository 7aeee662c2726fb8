#!/usr/bin/env node
// A/B of the read path between two builds: starts kcpt from this checkout (B) and from --other DIR (A, a checkout
// or a copy of one with bin/, dist/ and node_modules), fills each with the GET benchmark's ~1 KB ConfigMap and the
// LIST benchmark's 1,000, then measures them in interleaved rounds (A,B then B,A, …), printing server CPU per
// request (user+sys from /proc, robust on a shared box) and req/s for each row and side. With --together both sides
// are loaded at once in each round (a load generator each), so both see the same contention from other work on the
// box: on a busy machine the per-round ratio B/A is then far steadier than back-to-back runs.
//
//   node bench/read-pairs.js --other /path/to/checkout [--rounds 4] [--duration 3] [--rows get,h2,list] [--together]
//     [--b-node-args=--max-semi-space-size=32]   (Node/V8 flags for B's server only, space-separated: a runtime setting's A/B)
import path from 'node:path';
import { parseArgs } from 'node:util';
import { client, ensureNamespace, parallel, runJs, startKcpt } from './lib/kcpt.js';
import { calibrate } from './get.js';
import { findWrk, runH2, runNodeLoad, runWrk } from './lib/load.js';
import { configMap } from './lib/payload.js';
import { log, median, withServerCpu } from './lib/util.js';

const { values } = parseArgs({ options: { other: { type: 'string' }, rounds: { type: 'string' }, duration: { type: 'string' }, rows: { type: 'string' }, together: { type: 'boolean' }, 'b-node-args': { type: 'string' } } });
if (!values.other) {
  console.error('usage: node bench/read-pairs.js --other DIR [--rounds N] [--duration S] [--rows get,h2,list]');
  process.exit(2);
}
const rounds = Number(values.rounds ?? 4);
const durationS = Number(values.duration ?? 3);
const rows = (values.rows ?? 'get,h2,list').split(',');
const useWrk = Boolean(findWrk());
const CM = '/clusters/root/api/v1/namespaces/default/configmaps/bench-get';
const LIST_NS = 'bench-list';
const LIST = `/clusters/root/api/v1/namespaces/${LIST_NS}/configmaps`;

async function start(name, entry, nodeArgs = []) {
  const server = await startKcpt({ entry, nodeArgs });
  const c = client(server.url, { token: server.token });
  const { pad } = await calibrate({ c });
  if (rows.includes('list')) {
    await ensureNamespace(c, LIST_NS);
    const names = Array.from({ length: 1000 }, (_, i) => `list-${String(i).padStart(5, '0')}`);
    await parallel(names, 8, async (n) => {
      const res = await c.request('POST', LIST, configMap(n, LIST_NS, pad));
      if (res.status !== 201) throw new Error(`${name}: create ${n}: HTTP ${res.status}`);
    });
  }
  return { name, server, headers: { Authorization: `Bearer ${server.token}`, Accept: 'application/json' } };
}

const load = {
  get: (s, d) => (useWrk ? runWrk : runNodeLoad)({ url: `${s.server.url}${CM}`, connections: 8, durationS: d, headers: s.headers }),
  h2: (s, d) => runH2({ url: `${s.server.url}${CM}`, connections: 1, streams: 8, durationS: d, headers: s.headers, useTool: useWrk }),
  list: (s, d) => (useWrk ? runWrk : runNodeLoad)({ url: `${s.server.url}${LIST}`, connections: 8, durationS: d, headers: s.headers }),
};

const a = await start('A', path.join(path.resolve(values.other), 'bin', 'run.js'));
const b = await start('B', runJs, values['b-node-args']?.split(' ').filter(Boolean));
const results = {};
try {
  for (const row of rows) {
    for (const s of [a, b]) await load[row](s, 1);
    results[row] = { A: [], B: [] };
    for (let i = 0; i < rounds; i++) {
      const measure = async (s) => {
        const r = await withServerCpu(s.server.child.pid, () => load[row](s, durationS));
        if (r.non2xx || r.errors) throw new Error(`${row} ${s.name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
        results[row][s.name].push(r);
      };
      if (values.together) await Promise.all([measure(a), measure(b)]);
      else for (const s of i % 2 === 0 ? [a, b] : [b, a]) await measure(s);
      const [ra, rb] = [results[row].A.at(-1), results[row].B.at(-1)];
      log(`${row} round ${i + 1}: A ${ra.cpuUsPerReq.toFixed(0)} µs (${ra.rps.toFixed(0)}/s), B ${rb.cpuUsPerReq.toFixed(0)} µs (${rb.rps.toFixed(0)}/s), B/A ${(rb.cpuUsPerReq / ra.cpuUsPerReq).toFixed(2)}`);
    }
  }
} finally {
  await a.server.stop();
  await b.server.stop();
}
for (const [row, r] of Object.entries(results)) {
  const fmt = (xs) => `${xs.map((x) => x.cpuUsPerReq.toFixed(0)).join(' / ')} µs (median ${median(xs.map((x) => x.cpuUsPerReq)).toFixed(0)}, min ${Math.min(...xs.map((x) => x.cpuUsPerReq)).toFixed(0)}; ${median(xs.map((x) => x.rps)).toFixed(0)}/s)`;
  const ratio = median(r.A.map((x, i) => r.B[i].cpuUsPerReq / x.cpuUsPerReq));
  console.log(`${row}: A ${fmt(r.A)} → B ${fmt(r.B)}; median B/A ${ratio.toFixed(2)}`);
}
