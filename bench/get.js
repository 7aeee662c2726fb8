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
import { interleavedRounds, ratioRow, roundRatios } from './lib/rounds.js';
import { log } from './lib/util.js';

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
    const h1 = await interleavedRounds({ label: 'HTTP/1.1', rounds: ctx.getRounds, seconds: ctx.getSeconds }, {
      bare: { pid: raw.child.pid, load: (durationS) => load({ ...ctx, durationS }, rawUrl, headers) },
      ...(ctx.getAA ? { again: adminSide } : {}),
      admin: adminSide,
      reader: { pid: server.child.pid, load: (durationS) => load({ ...ctx, durationS }, kcptUrl, readerHeaders) },
    });
    if (ctx.getAA) roundRatios('A/A control, kcp-admin / kcp-admin (no verdict)', h1.again, h1.admin);
    const h1Row = ratioRow({
      requests: 'GETs',
      name: 'GET 1 KB ConfigMap, HTTP/1.1, 8 conns',
      baselineName: 'raw fastify HTTPS, same bytes',
      min: 0.7,
      k: h1.admin,
      r: h1.bare,
      ratios: roundRatios('kcp-admin / bare', h1.admin, h1.bare),
    });
    h1Row.extra.bytes = body.length;
    const readerBareRow = ratioRow({
      requests: 'GETs',
      name: 'GET 1 KB ConfigMap as RBAC-bound user, HTTP/1.1',
      baselineName: 'raw fastify HTTPS, same bytes',
      min: 0.7,
      k: h1.reader,
      r: h1.bare,
      ratios: roundRatios('RBAC-bound user / bare', h1.reader, h1.bare),
    });
    const readerAdminRow = ratioRow({
      requests: 'GETs',
      name: 'GET 1 KB ConfigMap as RBAC-bound user',
      baselineName: 'same GET as kcp-admin',
      min: 0.85,
      k: h1.reader,
      r: h1.admin,
      ratios: roundRatios('RBAC-bound user / kcp-admin', h1.reader, h1.admin),
      rawCpuLabel: 'kcp-admin',
    });
    const h2 = await interleavedRounds({ label: 'HTTP/2', rounds: ctx.getRounds, seconds: ctx.getSeconds }, {
      bare: { pid: raw.child.pid, load: (durationS) => loadH2({ ...ctx, durationS }, rawUrl, headers) },
      admin: { pid: server.child.pid, load: (durationS) => loadH2({ ...ctx, durationS }, kcptUrl, headers) },
    });
    const h2Row = ratioRow({
      requests: 'GETs',
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
