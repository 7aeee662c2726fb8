// 3. CREATE ~1 KB ConfigMaps by POST over HTTPS with 8 concurrent connections vs the bare floor of the same request:
//    raw fastify over TLS that parses the same body and commits it to SQLite, one transaction per request (WAL,
//    synchronous=NORMAL; bench/raw-server.js POST /write), same generator, same body, same connections. The two sides
//    run in interleaved rounds (--create-rounds, --create-seconds each; the order reversed every other round) and the
//    verdict is the median of the per-round ratios, each round printed with both sides' server CPU per CREATE.
//    Also (info): sequential CREATEs (1 connection) against raw better-sqlite3 inserts in-process, one autocommit
//    transaction per row (baseline B.1 (a) in docs/benchmarks.md), i.e. the storage alone without HTTPS, interleaved
//    in --runs runs.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensureNamespace } from './lib/kcpt.js';
import { startRawServer } from './lib/raw.js';
import { runNodeLoad, runWrk, wrkPostScript } from './lib/load.js';
import { configMap } from './lib/payload.js';
import { interleavedRounds, ratioRow, roundRatios } from './lib/rounds.js';
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

  // Every load gets name prefixes of its own: kcpt answers a repeated name 409 (the bare server upserts).
  let loads = 0;
  const loadOf = (base, urlPath) => (durationS) => post(base, urlPath, 8, `c8-${loads++}-`, durationS);
  const raw = [];
  const seq = [];
  let rounds;
  try {
    rounds = await interleavedRounds(
      { label: 'CREATE x8', rounds: ctx.createRounds, seconds: ctx.createSeconds, unit: 'create' },
      {
        bare: { pid: rawServer.child.pid, load: loadOf(rawServer.url, '/write') },
        // --create-aa: kcpt once more, on kcpt's other side from the bare server (bare, again, kcpt, and reversed).
        ...(ctx.createAA ? { again: { pid: server.child.pid, load: loadOf(server.url, CM_PATH) } } : {}),
        kcpt: { pid: server.child.pid, load: loadOf(server.url, CM_PATH) },
      },
    );
    if (ctx.createAA) roundRatios('A/A control, kcpt / kcpt (no verdict)', rounds.again, rounds.kcpt);
  } finally {
    await rawServer.stop();
  }
  for (let i = 0; i < ctx.runs; i++) {
    raw.push(await insert());
    seq.push(await withServerCpu(server.child.pid, () => post(server.url, CM_PATH, 1, `seq-${i}-`, ctx.durationS)));
    log(`  sequential run ${i + 1}: raw insert ${raw.at(-1).rate.toFixed(0)}/s, kcpt POST x1 ${seq.at(-1).rps.toFixed(0)}/s`);
  }
  const bad = seq.reduce((a, x) => a + x.non2xx + x.errors, 0);
  if (bad) log(`  WARNING: kcpt answered ${bad} sequential POSTs with errors (names must be unique; a 409 here is a bench bug)`);
  const concRow = ratioRow({
    name: 'CREATE ConfigMap, 8 conns',
    baselineName: 'raw fastify HTTPS: parse + SQLite commit',
    min: 0.6,
    k: rounds.kcpt,
    r: rounds.bare,
    ratios: roundRatios('kcpt / bare', rounds.kcpt, rounds.bare),
    requests: 'POSTs (names must be unique; a 409 here is a bench bug)',
  });
  return [
    concRow,
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
