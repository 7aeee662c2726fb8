// 1. GET one ~1 KB ConfigMap over HTTPS, 8 keep-alive HTTP/1.1 connections, vs raw fastify serving the same JSON
//    over HTTPS with kcpt's own serving certificate (same key type), same generator; then the same over HTTP/2, one
//    connection with 8 streams in flight (as kubectl and client-go talk to a server offering h2).
// 2. The same GET as a non-admin token user whose only rights are workspace access and a Role + RoleBinding
//    allowing get on configmaps: against the bare server (the same goal as kcp-admin's) and against kcp-admin (what
//    RBAC costs on every request).
// Each protocol's sides run in interleaved rounds (--get-rounds, --get-seconds each; the order reversed every other
// round), and every verdict is the median of the per-round ratios, which are printed with their range.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { configMap, DEFAULT_PAD, TARGET_BYTES } from './lib/payload.js';
import { findH2load, runH2, runNodeLoad, runWrk } from './lib/load.js';
import { startRawServer } from './lib/raw.js';
import { log, median, withServerCpu } from './lib/util.js';

const CM_PATH = '/clusters/root/api/v1/namespaces/default/configmaps';
export const READER = { token: 'bench-reader-token', name: 'bench-reader' };

/** The token file kcpt starts with: one user that RBAC alone lets read the benchmark ConfigMap. */
export function writeTokenFile(dir) {
  const file = path.join(dir, 'bench-tokens.csv');
  writeFileSync(file, `${READER.token},${READER.name},bench-reader-uid,"bench-readers"\n`);
  return file;
}

/** Workspace access via a ClusterRoleBinding, get on configmaps via a Role and RoleBinding in `default`. */
export async function grantReader(c) {
  const rbac = '/clusters/root/apis/rbac.authorization.k8s.io/v1';
  const objects = [
    [`${rbac}/clusterrolebindings`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'bench-reader-access' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:kcp:workspace:access' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: READER.name }] }],
    [`${rbac}/namespaces/default/roles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'bench-reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] }],
    [`${rbac}/namespaces/default/rolebindings`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'bench-reader' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'bench-reader' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: READER.name }] }],
  ];
  for (const [p, obj] of objects) {
    const res = await c.request('POST', p, obj);
    if (res.status !== 201 && res.status !== 409) throw new Error(`create ${obj.kind} ${obj.metadata.name}: HTTP ${res.status} ${res.body}`);
  }
}

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

function loadH2(ctx, url, headers) {
  return runH2({ url, connections: 1, streams: 8, durationS: ctx.durationS, headers, useTool: ctx.useWrk });
}

/**
 * Connections each side is warmed up with, one second each. Node deoptimises its own stream code on a server's first
 * new connections and re-optimises it on a background thread (~0.4–1.6 s of compiling per connection, kcpt's more
 * than the bare server's) until the third or fourth; a round's load opens a new connection, so a single warm-up left
 * the first rounds measuring that for both sides.
 */
const WARMUP_CONNECTIONS = 3;

/**
 * Every side once per round, for `getSeconds` each, the order reversed every other round (A B C, C B A, …) so no side
 * always runs right after another's load; warmed up first. The ratios are taken within a round (the same minute of
 * a shared box, whose bare server alone moved 1.5–1.8× between runs minutes apart) and the verdict is their median,
 * so one noisy window moves one ratio, not the row. Resolves {[side]: results[]} in round order.
 */
async function interleavedRounds(ctx, label, sides) {
  const names = Object.keys(sides);
  for (const name of names) for (let i = 0; i < WARMUP_CONNECTIONS; i++) await sides[name].load(1);
  const out = Object.fromEntries(names.map((n) => [n, []]));
  for (let i = 0; i < ctx.getRounds; i++) {
    const order = i % 2 === 0 ? names : [...names].reverse();
    for (const name of order) out[name].push(await withServerCpu(sides[name].pid, () => sides[name].load(ctx.getSeconds)));
    log(`  ${label} round ${i + 1} (${order.join(', ')}): ${names.map((n) => `${n} ${out[n].at(-1).rps.toFixed(0)} req/s (${out[n].at(-1).cpuUsPerReq.toFixed(0)} us CPU)`).join(', ')}`);
  }
  return out;
}

/** Per-round ratios of rate `a` to rate `b` (and of b's CPU per request to a's), with their medians, printed. */
function roundRatios(label, a, b) {
  const rates = a.map((x, i) => x.rps / b[i].rps);
  const cpu = a.map((x, i) => b[i].cpuUsPerReq / x.cpuUsPerReq);
  const pct = (v) => `${(v * 100).toFixed(0)} %`;
  log(`  ${label}: per-round rate ratios [${rates.map(pct).join(', ')}], median ${pct(median(rates))} (range ${pct(Math.min(...rates))}–${pct(Math.max(...rates))}); CPU-normalised [${cpu.map(pct).join(', ')}], median ${pct(median(cpu))}`);
  return { rates, cpu, median: median(rates), cpuMedian: median(cpu) };
}

/** A summary row whose verdict is the median of the per-round ratios of side `k` to side `r`. */
function ratioRow({ name, baselineName, min, k, r, ratios, rawCpuLabel }) {
  const bad = k.reduce((a, x) => a + x.non2xx + x.errors, 0);
  if (bad) log(`  WARNING: ${name}: ${bad} GETs answered with errors`);
  return {
    name,
    unit: 'rate',
    kcpt: median(k.map((x) => x.rps)),
    baseline: median(r.map((x) => x.rps)),
    ratio: ratios.median,
    note: `kcpt/base: median of ${ratios.rates.length} per-round ratios, ${ratios.rates.filter((x) => x >= min).length} of them >= ${min * 100} %`,
    baselineName,
    target: { kind: 'ratio', min },
    runs: { kcpt: k.map((x) => x.rps), baseline: r.map((x) => x.rps), ratios: ratios.rates },
    extra: {
      kcptP50: median(k.map((x) => x.p50)),
      kcptP99: median(k.map((x) => x.p99)),
      rawP50: median(r.map((x) => x.p50)),
      rawP99: median(r.map((x) => x.p99)),
      kcptCpuUs: median(k.map((x) => x.cpuUsPerReq)),
      rawCpuUs: median(r.map((x) => x.cpuUsPerReq)),
      cpuRatio: ratios.cpuMedian,
      rawCpuLabel,
      errors: bad,
    },
  };
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
    // HTTP/1.1: the bare server, kcpt as kcp-admin and kcpt as the RBAC-bound reader in the same rounds, so the
    // reader is compared with both the bare server (the GET goal) and kcp-admin (what RBAC costs) minute by minute.
    await grantReader(ctx.c);
    const readerHeaders = { ...headers, Authorization: `Bearer ${READER.token}` };
    const adminSide = { pid: server.child.pid, load: (durationS) => load({ ...ctx, durationS }, kcptUrl, headers) };
    // --get-aa: the same GET as kcp-admin once more, on kcp-admin's other side from the reader (bare, again, admin,
    // reader), so the A/A pair stands as close in time as the reader and kcp-admin do, in both orders.
    const h1 = await interleavedRounds(ctx, 'HTTP/1.1', {
      bare: { pid: raw.child.pid, load: (durationS) => load({ ...ctx, durationS }, rawUrl, headers) },
      ...(ctx.getAA ? { again: adminSide } : {}),
      admin: adminSide,
      reader: { pid: server.child.pid, load: (durationS) => load({ ...ctx, durationS }, kcptUrl, readerHeaders) },
    });
    if (ctx.getAA) roundRatios('A/A control, kcp-admin / kcp-admin (no verdict)', h1.again, h1.admin);
    const h1Row = ratioRow({
      name: 'GET 1 KB ConfigMap, HTTP/1.1, 8 conns',
      baselineName: 'raw fastify HTTPS, same bytes',
      min: 0.7,
      k: h1.admin,
      r: h1.bare,
      ratios: roundRatios('kcp-admin / bare', h1.admin, h1.bare),
    });
    h1Row.extra.bytes = body.length;
    const readerBareRow = ratioRow({
      name: 'GET 1 KB ConfigMap as RBAC-bound user, HTTP/1.1',
      baselineName: 'raw fastify HTTPS, same bytes',
      min: 0.7,
      k: h1.reader,
      r: h1.bare,
      ratios: roundRatios('RBAC-bound user / bare', h1.reader, h1.bare),
    });
    const readerAdminRow = ratioRow({
      name: 'GET 1 KB ConfigMap as RBAC-bound user',
      baselineName: 'same GET as kcp-admin',
      min: 0.85,
      k: h1.reader,
      r: h1.admin,
      ratios: roundRatios('RBAC-bound user / kcp-admin', h1.reader, h1.admin),
      rawCpuLabel: 'kcp-admin',
    });
    const h2 = await interleavedRounds(ctx, 'HTTP/2', {
      bare: { pid: raw.child.pid, load: (durationS) => loadH2({ ...ctx, durationS }, rawUrl, headers) },
      admin: { pid: server.child.pid, load: (durationS) => loadH2({ ...ctx, durationS }, kcptUrl, headers) },
    });
    const h2Row = ratioRow({
      name: 'GET 1 KB ConfigMap, HTTP/2, 8 streams',
      baselineName: `raw fastify HTTPS, same bytes${ctx.useWrk && findH2load() ? '' : ' (Node h2 generator)'}`,
      min: 0.7,
      k: h2.admin,
      r: h2.bare,
      ratios: roundRatios('HTTP/2 kcp-admin / bare', h2.admin, h2.bare),
    });
    return [h1Row, h2Row, readerAdminRow, readerBareRow];
  } finally {
    await raw.stop();
  }
}
