// 3. CREATE ~1 KB ConfigMaps by POST over HTTPS, sequentially (1 connection) and with 8 concurrent connections,
//    vs raw better-sqlite3 inserts, one autocommit transaction per row, synchronous=NORMAL (perf-baselines B.1 (a)).
import path from 'node:path';
import { ensureNamespace } from './lib/kcpt.js';
import { runNodeLoad, runWrk, wrkPostScript } from './lib/load.js';
import { configMap } from './lib/payload.js';
import { benchDir, log, median, runNodeJson } from './lib/util.js';

const NS = 'bench-create';
const CM_PATH = `/clusters/root/api/v1/namespaces/${NS}/configmaps`;

export async function run(ctx) {
  const { server, c } = ctx;
  await ensureNamespace(c, NS);
  const headers = { Authorization: `Bearer ${server.token}`, Accept: 'application/json' };
  const template = JSON.stringify(configMap('%s', NS, ctx.calibration.pad));
  const post = (connections, prefix, durationS) => {
    if (ctx.useWrk) {
      const script = wrkPostScript({ path: CM_PATH, bodyTemplate: template, namePrefix: prefix, headers });
      return runWrk({ url: `${server.url}${CM_PATH}`, connections, durationS, script });
    }
    return runNodeLoad({
      url: `${server.url}${CM_PATH}`,
      connections,
      durationS,
      headers,
      makeRequest: (i) => ({ method: 'POST', path: CM_PATH, body: template.replace('%s', `${prefix}${i}`) }),
    });
  };
  const insert = () => runNodeJson(path.join(benchDir, 'raw-sqlite.js'), ['insert']);

  await post(8, 'warm-', 2);
  const raw = [];
  const seq = [];
  const conc = [];
  for (let i = 0; i < ctx.runs; i++) {
    raw.push(await insert());
    seq.push(await post(1, `seq-${i}-`, ctx.durationS));
    conc.push(await post(8, `c8-${i}-`, ctx.durationS));
    log(`  run ${i + 1}: raw insert ${raw.at(-1).rate.toFixed(0)}/s, kcpt POST x1 ${seq.at(-1).rps.toFixed(0)}/s, x8 ${conc.at(-1).rps.toFixed(0)}/s`);
  }
  const bad = [...seq, ...conc].reduce((a, x) => a + x.non2xx + x.errors, 0);
  if (bad) log(`  WARNING: kcpt answered ${bad} POSTs with errors (names must be unique; a 409 here is a bench bug)`);
  const baseline = median(raw.map((x) => x.rate));
  const common = { unit: 'rate', baseline, baselineName: 'raw SQLite insert (NORMAL)', target: { kind: 'ratio', min: 0.5 } };
  return [
    {
      ...common,
      name: 'CREATE ConfigMap, sequential',
      kcpt: median(seq.map((x) => x.rps)),
      runs: { kcpt: seq.map((x) => x.rps), baseline: raw.map((x) => x.rate) },
      extra: { kcptP50: median(seq.map((x) => x.p50)), kcptP99: median(seq.map((x) => x.p99)), errors: bad },
    },
    {
      ...common,
      name: 'CREATE ConfigMap, 8 conns',
      kcpt: median(conc.map((x) => x.rps)),
      runs: { kcpt: conc.map((x) => x.rps), baseline: raw.map((x) => x.rate) },
      extra: { kcptP50: median(conc.map((x) => x.p50)), kcptP99: median(conc.map((x) => x.p99)), errors: bad },
    },
  ];
}
