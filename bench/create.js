// 3. CREATE ~1 KB ConfigMaps by POST over HTTPS, sequentially (1 connection) and with 8 concurrent connections,
//    vs the bare floor of the same request: raw fastify over TLS that parses the same body and commits it to SQLite,
//    one transaction per request (WAL, synchronous=NORMAL; bench/raw-server.js POST /write), same generator, runs
//    interleaved. Also (info): raw better-sqlite3 inserts in-process, one autocommit transaction per row
//    (baseline B.1 (a) in docs/benchmarks.md), i.e. the storage alone without HTTPS.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensureNamespace } from './lib/kcpt.js';
import { startRawServer } from './lib/raw.js';
import { runNodeLoad, runWrk, wrkPostScript } from './lib/load.js';
import { configMap } from './lib/payload.js';
import { benchDir, log, median, runNodeJson, withServerCpu } from './lib/util.js';

const NS = 'bench-create';
const CM_PATH = `/clusters/root/api/v1/namespaces/${NS}/configmaps`;

export async function run(ctx) {
  const { server, c } = ctx;
  await ensureNamespace(c, NS);
  const headers = { Authorization: `Bearer ${server.token}`, Accept: 'application/json' };
  const template = JSON.stringify(configMap('%s', NS, ctx.calibration.pad));
  const post = (base, urlPath, connections, prefix, durationS) => {
    if (ctx.useWrk) {
      const script = wrkPostScript({ path: urlPath, bodyTemplate: template, namePrefix: prefix, headers });
      return runWrk({ url: `${base}${urlPath}`, connections, durationS, script });
    }
    return runNodeLoad({
      url: `${base}${urlPath}`,
      connections,
      durationS,
      headers,
      makeRequest: (i) => ({ method: 'POST', path: urlPath, body: template.replace('%s', `${prefix}${i}`) }),
    });
  };
  const insert = () => runNodeJson(path.join(benchDir, 'raw-sqlite.js'), ['insert']);
  const objFile = path.join(ctx.tmp, 'create-object.json');
  writeFileSync(objFile, '{}');
  const rawServer = await startRawServer({ certDir: server.certDir, objFile });

  const raw = [];
  const seq = [];
  const conc = [];
  const floor = [];
  try {
    await post(server.url, CM_PATH, 8, 'warm-', 2);
    await post(rawServer.url, '/write', 8, 'warm-', 2);
    for (let i = 0; i < ctx.runs; i++) {
      raw.push(await insert());
      floor.push(await withServerCpu(rawServer.child.pid, () => post(rawServer.url, '/write', 8, `c8-${i}-`, ctx.durationS)));
      seq.push(await withServerCpu(server.child.pid, () => post(server.url, CM_PATH, 1, `seq-${i}-`, ctx.durationS)));
      conc.push(await withServerCpu(server.child.pid, () => post(server.url, CM_PATH, 8, `c8-${i}-`, ctx.durationS)));
      log(
        `  run ${i + 1}: raw insert ${raw.at(-1).rate.toFixed(0)}/s, raw HTTPS POST+insert x8 ${floor.at(-1).rps.toFixed(0)}/s, ` +
          `kcpt POST x1 ${seq.at(-1).rps.toFixed(0)}/s, x8 ${conc.at(-1).rps.toFixed(0)}/s`,
      );
    }
  } finally {
    await rawServer.stop();
  }
  const bad = [...seq, ...conc].reduce((a, x) => a + x.non2xx + x.errors, 0);
  if (bad) log(`  WARNING: kcpt answered ${bad} POSTs with errors (names must be unique; a 409 here is a bench bug)`);
  const concRate = median(conc.map((x) => x.rps));
  return [
    {
      name: 'CREATE ConfigMap, 8 conns',
      unit: 'rate',
      kcpt: concRate,
      baseline: median(floor.map((x) => x.rps)),
      baselineName: 'raw fastify HTTPS: parse + SQLite commit',
      target: { kind: 'ratio', min: 0.6 },
      runs: { kcpt: conc.map((x) => x.rps), baseline: floor.map((x) => x.rps) },
      extra: {
        kcptP50: median(conc.map((x) => x.p50)),
        kcptP99: median(conc.map((x) => x.p99)),
        rawP50: median(floor.map((x) => x.p50)),
        rawP99: median(floor.map((x) => x.p99)),
        kcptCpuUs: median(conc.map((x) => x.cpuUsPerReq)),
        rawCpuUs: median(floor.map((x) => x.cpuUsPerReq)),
        errors: bad,
      },
    },
    {
      name: '  (info) CREATE ConfigMap, sequential',
      unit: 'rate',
      kcpt: median(seq.map((x) => x.rps)),
      baseline: median(raw.map((x) => x.rate)),
      baselineName: 'raw SQLite insert in-process (NORMAL)',
      target: { kind: 'info-ratio' },
      runs: { kcpt: seq.map((x) => x.rps), baseline: raw.map((x) => x.rate) },
      extra: {
        kcptP50: median(seq.map((x) => x.p50)),
        kcptP99: median(seq.map((x) => x.p99)),
        kcptCpuUs: median(seq.map((x) => x.cpuUsPerReq)),
        rawCpuUs: median(raw.map((x) => 1e6 / x.cpuRate)),
        rawCpuLabel: 'raw insert',
        errors: bad,
      },
    },
  ];
}
