// 2. LIST 1,000 ~1 KB ConfigMaps in one namespace (plain JSON, no Table) over HTTPS with 8 connections, vs a bare
//    TLS server streaming the same rows: raw fastify holding kcpt's very items (copied from kcpt's own LIST answer)
//    in better-sqlite3, answering each LIST with a range scan spliced into the list (no parse/stringify).
//    Also (info): the raw better-sqlite3 range scan alone, in-process (baseline B.1 in docs/benchmarks.md, "range scan").
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensureNamespace, parallel } from './lib/kcpt.js';
import { runNodeLoad, runWrk } from './lib/load.js';
import { configMap } from './lib/payload.js';
import { startRawServer } from './lib/raw.js';
import { benchDir, log, median, runNodeJson, withServerCpu } from './lib/util.js';

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
  const load = (u, durationS) => {
    const opts = { url: u, connections: 8, durationS, headers };
    return ctx.useWrk ? runWrk(opts) : runNodeLoad(opts);
  };
  const scan = () => runNodeJson(path.join(benchDir, 'raw-sqlite.js'), ['scan']);
  const objFile = path.join(ctx.tmp, 'list-object.json');
  writeFileSync(objFile, '{}');
  const raw = await startRawServer({ certDir: server.certDir, objFile });
  const k = [];
  const r = [];
  const h = [];
  try {
    await ctx.rawClient(raw.url).request('POST', '/fill', { items: list.items });
    const rawBytes = (await ctx.rawClient(raw.url).request('GET', '/list')).body.length;
    log(`  raw HTTPS splice LIST body ${rawBytes.toLocaleString('en-US')} B`);
    await load(url, 2); // warm-up
    await load(`${raw.url}/list`, 2);
    for (let i = 0; i < ctx.runs; i++) {
      r.push(await scan());
      h.push(await withServerCpu(raw.child.pid, () => load(`${raw.url}/list`, ctx.durationS)));
      k.push(await withServerCpu(server.child.pid, () => load(url, ctx.durationS)));
      log(
        `  run ${i + 1}: raw scan ${r.at(-1).rate.toFixed(0)}/s (pluck ${r.at(-1).pluckRate.toFixed(0)}/s), ` +
          `raw HTTPS splice ${h.at(-1).rps.toFixed(1)}/s, kcpt LIST ${k.at(-1).rps.toFixed(1)}/s`,
      );
    }
  } finally {
    await raw.stop();
  }
  const bad = k.reduce((a, x) => a + x.non2xx + x.errors, 0);
  if (bad) log(`  WARNING: kcpt answered ${bad} LISTs with errors`);
  const kcptRate = median(k.map((x) => x.rps));
  return [
    {
      name: 'LIST 1,000 ConfigMaps, 8 conns',
      unit: 'rate',
      kcpt: kcptRate,
      baseline: median(h.map((x) => x.rps)),
      baselineName: 'raw fastify HTTPS streaming the same rows',
      target: { kind: 'ratio', min: 0.7 },
      runs: { kcpt: k.map((x) => x.rps), baseline: h.map((x) => x.rps) },
      extra: {
        kcptP50: median(k.map((x) => x.p50)),
        kcptP99: median(k.map((x) => x.p99)),
        rawP50: median(h.map((x) => x.p50)),
        rawP99: median(h.map((x) => x.p99)),
        kcptCpuUs: median(k.map((x) => x.cpuUsPerReq)),
        rawCpuUs: median(h.map((x) => x.cpuUsPerReq)),
        bytes: probe.body.length,
        errors: bad,
      },
    },
    {
      name: '  (info) same LIST vs in-process scan',
      unit: 'rate',
      kcpt: kcptRate,
      baseline: median(r.map((x) => x.rate)),
      baselineName: 'raw SQLite 1k-row scan',
      target: { kind: 'info-ratio' },
      runs: { kcpt: k.map((x) => x.rps), baseline: r.map((x) => x.rate) },
      extra: {
        kcptP50: median(k.map((x) => x.p50)),
        kcptP99: median(k.map((x) => x.p99)),
        rawPluck: median(r.map((x) => x.pluckRate)),
        kcptCpuUs: median(k.map((x) => x.cpuUsPerReq)),
        rawCpuUs: median(r.map((x) => 1e6 / x.cpuRate)),
        rawCpuLabel: 'raw scan',
      },
    },
  ];
}
