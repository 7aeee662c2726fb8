// 2. LIST 1,000 ~1 KB ConfigMaps in one namespace (plain JSON, no Table) over HTTPS with 8 connections, vs the
//    raw better-sqlite3 range scan of 1,000 ~1 KB rows measured in-process (perf-baselines B.1 "Range scan").
import path from 'node:path';
import { ensureNamespace, parallel } from './lib/kcpt.js';
import { runNodeLoad, runWrk } from './lib/load.js';
import { configMap } from './lib/payload.js';
import { benchDir, log, median, runNodeJson } from './lib/util.js';

const NS = 'bench-list';
const LIST_PATH = `/clusters/root/api/v1/namespaces/${NS}/configmaps`;

export async function run(ctx) {
  const { server, c } = ctx;
  await ensureNamespace(c, NS);
  const names = Array.from({ length: 1000 }, (_, i) => `list-${String(i).padStart(5, '0')}`);
  const t0 = performance.now();
  await parallel(names, 8, async (name) => {
    const res = await c.request('POST', LIST_PATH, configMap(name, NS, ctx.calibration.pad));
    if (res.status !== 201 && res.status !== 409) throw new Error(`create ${name}: HTTP ${res.status} ${res.body}`);
  });
  log(`  filled ${NS} with 1,000 ConfigMaps in ${(performance.now() - t0).toFixed(0)} ms`);
  const probe = await c.request('GET', LIST_PATH, undefined, { Accept: 'application/json' });
  const list = JSON.parse(probe.body.toString('utf8'));
  if (list.kind !== 'ConfigMapList' || list.items.length !== 1000) {
    throw new Error(`LIST returned ${list.kind} with ${list.items?.length} items`);
  }
  log(`  LIST body ${probe.body.length.toLocaleString('en-US')} B, ${list.items.length} items`);

  const url = `${server.url}${LIST_PATH}`;
  const headers = { Authorization: `Bearer ${server.token}`, Accept: 'application/json' };
  const load = (durationS) => {
    const opts = { url, connections: 8, durationS, headers };
    return ctx.useWrk ? runWrk(opts) : runNodeLoad(opts);
  };
  const scan = () => runNodeJson(path.join(benchDir, 'raw-sqlite.js'), ['scan']);
  await load(2); // warm-up
  const k = [];
  const r = [];
  for (let i = 0; i < ctx.runs; i++) {
    r.push(await scan());
    k.push(await load(ctx.durationS));
    log(`  run ${i + 1}: raw scan ${r.at(-1).rate.toFixed(0)}/s (pluck ${r.at(-1).pluckRate.toFixed(0)}/s), kcpt LIST ${k.at(-1).rps.toFixed(1)}/s`);
  }
  const bad = k.reduce((a, x) => a + x.non2xx + x.errors, 0);
  if (bad) log(`  WARNING: kcpt answered ${bad} LISTs with errors`);
  return [
    {
      name: 'LIST 1,000 ConfigMaps, 8 conns',
      unit: 'rate',
      kcpt: median(k.map((x) => x.rps)),
      baseline: median(r.map((x) => x.rate)),
      baselineName: 'raw SQLite 1k-row scan',
      target: { kind: 'ratio', min: 0.5 },
      runs: { kcpt: k.map((x) => x.rps), baseline: r.map((x) => x.rate) },
      extra: {
        kcptP50: median(k.map((x) => x.p50)),
        kcptP99: median(k.map((x) => x.p99)),
        rawPluck: median(r.map((x) => x.pluckRate)),
        bytes: probe.body.length,
        errors: bad,
      },
    },
  ];
}
