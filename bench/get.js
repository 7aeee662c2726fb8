// 1. GET one ~1 KB ConfigMap over HTTPS, 8 keep-alive connections, vs raw fastify serving the same JSON over
//    HTTPS with kcpt's own serving certificate (same key type), same generator, runs interleaved.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { configMap, DEFAULT_PAD, TARGET_BYTES } from './lib/payload.js';
import { runNodeLoad, runWrk } from './lib/load.js';
import { startRawServer } from './lib/raw.js';
import { log, median, withServerCpu } from './lib/util.js';

const CM_PATH = '/clusters/root/api/v1/namespaces/default/configmaps';

/** Creates `bench-get` and tunes its pad so the GET body is ~1,039 bytes. Returns {pad, body}. */
export async function calibrate(ctx) {
  const { c } = ctx;
  const name = 'bench-get';
  let res = await c.request('POST', CM_PATH, configMap(name, 'default', DEFAULT_PAD));
  if (res.status !== 201 && res.status !== 409) throw new Error(`create ${name}: HTTP ${res.status} ${res.body}`);
  res = await c.request('GET', `${CM_PATH}/${name}`);
  const pad = DEFAULT_PAD + (TARGET_BYTES - res.body.length);
  const patch = { data: { 'config.yaml': 'x'.repeat(pad) } };
  res = await c.request('PATCH', `${CM_PATH}/${name}`, patch, { 'content-type': 'application/merge-patch+json' });
  if (res.status !== 200) throw new Error(`patch ${name}: HTTP ${res.status} ${res.body}`);
  res = await c.request('GET', `${CM_PATH}/${name}`);
  return { pad, body: res.body };
}

function load(ctx, url, headers) {
  const opts = { url, connections: 8, durationS: ctx.durationS, headers };
  return ctx.useWrk ? runWrk(opts) : runNodeLoad(opts);
}

export async function run(ctx) {
  const { server } = ctx;
  const { body } = ctx.calibration;
  const objFile = path.join(ctx.tmp, 'get-object.json');
  writeFileSync(objFile, body);
  const raw = await startRawServer({ certDir: server.certDir, objFile });
  const headers = { Authorization: `Bearer ${server.token}`, Accept: 'application/json' };
  const kcptUrl = `${server.url}${CM_PATH}/bench-get`;
  const rawUrl = `${raw.url}/obj`;
  try {
    const rawBody = (await ctx.rawClient(raw.url).request('GET', '/obj')).body;
    log(`  GET body: kcpt ${body.length} B, raw ${rawBody.length} B`);
    // warm-up (JIT, TLS session, SQLite page cache)
    await load({ ...ctx, durationS: 2 }, rawUrl, headers);
    await load({ ...ctx, durationS: 2 }, kcptUrl, headers);
    const k = [];
    const r = [];
    for (let i = 0; i < ctx.runs; i++) {
      r.push(await withServerCpu(raw.child.pid, () => load(ctx, rawUrl, headers)));
      k.push(await withServerCpu(server.child.pid, () => load(ctx, kcptUrl, headers)));
      log(`  run ${i + 1}: raw ${r.at(-1).rps.toFixed(0)} req/s, kcpt ${k.at(-1).rps.toFixed(0)} req/s`);
    }
    const bad = k.reduce((a, x) => a + x.non2xx + x.errors, 0);
    if (bad) log(`  WARNING: kcpt answered ${bad} GETs with errors`);
    return [
      {
        name: 'GET 1 KB ConfigMap, 8 conns',
        unit: 'rate',
        kcpt: median(k.map((x) => x.rps)),
        baseline: median(r.map((x) => x.rps)),
        baselineName: 'raw fastify HTTPS',
        target: { kind: 'ratio', min: 0.5 },
        runs: { kcpt: k.map((x) => x.rps), baseline: r.map((x) => x.rps) },
        extra: {
          kcptP50: median(k.map((x) => x.p50)),
          kcptP99: median(k.map((x) => x.p99)),
          rawP50: median(r.map((x) => x.p50)),
          rawP99: median(r.map((x) => x.p99)),
          kcptCpuUs: median(k.map((x) => x.cpuUsPerReq)),
          rawCpuUs: median(r.map((x) => x.cpuUsPerReq)),
          bytes: body.length,
          errors: bad,
        },
      },
    ];
  } finally {
    await raw.stop();
  }
}
