// 1. GET one ~1 KB ConfigMap over HTTPS, 8 keep-alive HTTP/1.1 connections, vs raw fastify serving the same JSON
//    over HTTPS with kcpt's own serving certificate (same key type), same generator, runs interleaved; then the same
//    over HTTP/2, one connection with 8 streams in flight (as kubectl and client-go talk to a server offering h2).
// 2. The same GET as a non-admin token user whose only rights are workspace access and a Role + RoleBinding
//    allowing get on configmaps, vs the same GET as kcp-admin: what RBAC costs on every request.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { configMap, DEFAULT_PAD, TARGET_BYTES } from './lib/payload.js';
import { findH2load, runH2, runNodeLoad, runWrk } from './lib/load.js';
import { startRawServer } from './lib/raw.js';
import { log, median, withServerCpu } from './lib/util.js';

const CM_PATH = '/clusters/root/api/v1/namespaces/default/configmaps';
const READER = { token: 'bench-reader-token', name: 'bench-reader' };

/** The token file kcpt starts with: one user that RBAC alone lets read the benchmark ConfigMap. */
export function writeTokenFile(dir) {
  const file = path.join(dir, 'bench-tokens.csv');
  writeFileSync(file, `${READER.token},${READER.name},bench-reader-uid,"bench-readers"\n`);
  return file;
}

/** Workspace access via a ClusterRoleBinding, get on configmaps via a Role and RoleBinding in `default`. */
async function grantReader(c) {
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

/** kcpt and the raw server under the same load, interleaved; the row of the summary table. */
async function compare(ctx, { name, raw, kcpt, rawName }) {
  await raw.load(2);
  await kcpt.load(2);
  const k = [];
  const r = [];
  for (let i = 0; i < ctx.runs; i++) {
    r.push(await withServerCpu(raw.pid, () => raw.load(ctx.durationS)));
    k.push(await withServerCpu(kcpt.pid, () => kcpt.load(ctx.durationS)));
    log(`  ${name} run ${i + 1}: raw ${r.at(-1).rps.toFixed(0)} req/s (${r.at(-1).cpuUsPerReq.toFixed(0)} us CPU), kcpt ${k.at(-1).rps.toFixed(0)} req/s (${k.at(-1).cpuUsPerReq.toFixed(0)} us CPU)`);
  }
  const bad = k.reduce((a, x) => a + x.non2xx + x.errors, 0);
  if (bad) log(`  WARNING: kcpt answered ${bad} GETs with errors`);
  return {
    name,
    unit: 'rate',
    kcpt: median(k.map((x) => x.rps)),
    baseline: median(r.map((x) => x.rps)),
    baselineName: rawName,
    target: { kind: 'ratio', min: 0.7 },
    runs: { kcpt: k.map((x) => x.rps), baseline: r.map((x) => x.rps) },
    extra: {
      kcptP50: median(k.map((x) => x.p50)),
      kcptP99: median(k.map((x) => x.p99)),
      rawP50: median(r.map((x) => x.p50)),
      rawP99: median(r.map((x) => x.p99)),
      kcptCpuUs: median(k.map((x) => x.cpuUsPerReq)),
      rawCpuUs: median(r.map((x) => x.cpuUsPerReq)),
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
    const h1 = await compare(ctx, {
      name: 'GET 1 KB ConfigMap, HTTP/1.1, 8 conns',
      rawName: 'raw fastify HTTPS, same bytes',
      raw: { pid: raw.child.pid, load: (durationS) => load({ ...ctx, durationS }, rawUrl, headers) },
      kcpt: { pid: server.child.pid, load: (durationS) => load({ ...ctx, durationS }, kcptUrl, headers) },
    });
    h1.extra.bytes = body.length;
    const h2 = await compare(ctx, {
      name: 'GET 1 KB ConfigMap, HTTP/2, 8 streams',
      rawName: `raw fastify HTTPS, same bytes${ctx.useWrk && findH2load() ? '' : ' (Node h2 generator)'}`,
      raw: { pid: raw.child.pid, load: (durationS) => loadH2({ ...ctx, durationS }, rawUrl, headers) },
      kcpt: { pid: server.child.pid, load: (durationS) => loadH2({ ...ctx, durationS }, kcptUrl, headers) },
    });
    const rbacRow = await runRbacBound(ctx, kcptUrl, headers);
    return [h1, h2, rbacRow];
  } finally {
    await raw.stop();
  }
}

/** kcp-admin vs the RBAC-bound reader on the same GET, interleaved. */
async function runRbacBound(ctx, url, adminHeaders) {
  await grantReader(ctx.c);
  const readerHeaders = { ...adminHeaders, Authorization: `Bearer ${READER.token}` };
  await load({ ...ctx, durationS: 2 }, url, readerHeaders);
  const a = [];
  const u = [];
  for (let i = 0; i < ctx.runs; i++) {
    a.push(await withServerCpu(ctx.server.child.pid, () => load(ctx, url, adminHeaders)));
    u.push(await withServerCpu(ctx.server.child.pid, () => load(ctx, url, readerHeaders)));
    log(`  run ${i + 1}: kcp-admin ${a.at(-1).rps.toFixed(0)} req/s, RBAC-bound user ${u.at(-1).rps.toFixed(0)} req/s`);
  }
  const bad = u.reduce((acc, x) => acc + x.non2xx + x.errors, 0);
  if (bad) log(`  WARNING: the RBAC-bound user got ${bad} errors (is the Role in place?)`);
  return {
    name: 'GET 1 KB ConfigMap as RBAC-bound user',
    unit: 'rate',
    kcpt: median(u.map((x) => x.rps)),
    baseline: median(a.map((x) => x.rps)),
    baselineName: 'same GET as kcp-admin',
    target: { kind: 'ratio', min: 0.85 },
    runs: { kcpt: u.map((x) => x.rps), baseline: a.map((x) => x.rps) },
    extra: {
      kcptP50: median(u.map((x) => x.p50)),
      kcptP99: median(u.map((x) => x.p99)),
      rawP50: median(a.map((x) => x.p50)),
      rawP99: median(a.map((x) => x.p99)),
      kcptCpuUs: median(u.map((x) => x.cpuUsPerReq)),
      rawCpuUs: median(a.map((x) => x.cpuUsPerReq)),
      rawCpuLabel: 'kcp-admin',
      errors: bad,
    },
  };
}
