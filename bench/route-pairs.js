#!/usr/bin/env node
// kcpt's own code per GET, without fastify, Node's HTTP or TLS: the router (authentication, request info, cluster
// resolution, authorization, the store's point read, negotiation, rendering) called directly with a stub request
// and reply, for this checkout and another one, both in ONE process, batches alternating (who goes first
// alternating too). get-pipeline-pairs.js measures the same through fastify's inject, whose own machinery (~100 µs a
// GET) buries a lever of 1 µs. Each tree's src/ is first compiled to JavaScript file by file (esbuild, as
// scripts/compile.mjs; no keepNames, as the engine bundle: tsx would wrap every inner function in a `__name()` call,
// ~10 % of this path).
//
//   node bench/route-pairs.js --other /path/to/other/checkout [--self DIR] [--pairs 40] [--batch 2000] [--user admin|reader] [--op get|create [--turn N]]
//
// --user reader: the GET as a --token-auth-file user whose only rights are workspace access and a Role allowing get
// on configmaps (RBAC evaluated on every request, as the RBAC-bound row of bench/get.js). Prints the median µs per GET
// of each side, the median per-pair ratio (this / other) and in how many pairs this side was cheaper. --other . gives
// the noise floor (A/A).
//
// --op create: the CREATE row's POST instead (a ~1 KB ConfigMap with a unique name, as JSON bytes): body decoding,
// unknown fields, the whole create pipeline with admission, the SQLite commit, the in-process watchers, the answer's
// text; no fastify, HTTP or TLS. With --turn N, each measurement is N such POSTs made at once while N requests count as
// in flight: they wait for their turn together and commit in one transaction (endpoints/create-turn.ts), the path the
// CREATE row's 8 connections take (~7 creates a turn); without it a create runs alone, in a transaction of its own.
//
// --alloc: bytes allocated per GET (or CREATE) instead of time, exact (no sampling): each batch runs between two reads of V8's
// used heap with no collection in between (a young generation larger than a batch allocates; a batch in which a
// collection ran anyway is measured again). Needs `node --expose-gc --min-semi-space-size=64 bench/route-pairs.js --alloc`.
import { mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';
import { pathToFileURL } from 'node:url';
import { assembleTree, comparePairs } from './lib/pipeline-pairs.js';
import { removeDir, repoDir } from './lib/util.js';
import { configMap } from './lib/payload.js';

const { values } = parseArgs({ options: { other: { type: 'string' }, self: { type: 'string' }, pairs: { type: 'string' }, batch: { type: 'string' }, user: { type: 'string', default: 'admin' }, alloc: { type: 'boolean', default: false }, op: { type: 'string', default: 'get' }, turn: { type: 'string' } } });
if (!['get', 'create'].includes(values.op)) throw new Error('--op is get or create');
if (!values.other) throw new Error('--other DIR (a checkout to compare with) is required');
if (!['admin', 'reader'].includes(values.user)) throw new Error('--user is admin or reader');
const turnOf = values.turn === undefined ? 0 : Number(values.turn);
if (values.turn !== undefined && (values.op !== 'create' || !Number.isInteger(turnOf) || turnOf < 2)) throw new Error('--turn N (N >= 2) goes with --op create');
const pairs = Number(values.pairs ?? 40);
const batch = Number(values.batch ?? 2000);
const CM = '/clusters/root/api/v1/namespaces/default/configmaps';
const READER_TOKEN = 'route-pairs-reader-token';
const dirs = [];

/** The reply methods the router's answers use; records what a client would get. */
function stubReply() {
  return {
    statusCode: 200,
    headers: {},
    sent: false,
    payload: undefined,
    raw: {},
    code(c) { this.statusCode = c; return this; },
    header(k, v) { this.headers[k.toLowerCase()] = v; return this; },
    hasHeader(k) { return k.toLowerCase() in this.headers; },
    getHeader(k) { return this.headers[k.toLowerCase()]; },
    serializer() { return this; },
    type(t) { return this.header('content-type', t); },
    // fastify measures every answer for its Content-Length (onSendEnd): a string is scanned, a cons string flattened.
    send(p) { this.sent = true; this.payload = p; this.length = typeof p === 'string' ? Buffer.byteLength(p) : p?.length; return this; },
    then(fulfilled) { fulfilled(); },
  };
}

/** `dir`'s src/ compiled into a temporary tree beside a link to this checkout's node_modules. */
async function compiled(dir) {
  const { build } = await import('esbuild');
  const out = mkdtempSync(path.join(os.tmpdir(), 'kcpt-route-pairs-src-'));
  dirs.push(out);
  const files = readdirSync(path.join(dir, 'src'), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !/\.d\.ts$/.test(e.name) && !/\.test\.tsx?$/.test(e.name))
    .map((e) => path.join(e.parentPath ?? e.path, e.name));
  await build({ entryPoints: files, outdir: out, outbase: dir, bundle: false, format: 'esm', platform: 'node', target: 'es2022', jsx: 'automatic', logLevel: 'warning' });
  symlinkSync(path.join(repoDir, 'node_modules'), path.join(out, 'node_modules'));
  return out;
}

async function side(dir) {
  const tree = await compiled(dir);
  const load = (file) => import(pathToFileURL(path.join(tree, 'src', 'engine', `${file}.js`)).href);
  const { routeRequest } = await load('endpoints/api-router');
  const root = mkdtempSync(path.join(os.tmpdir(), 'kcpt-route-pairs-'));
  dirs.push(root);
  const tokenFile = path.join(root, 'tokens.csv');
  writeFileSync(tokenFile, `${READER_TOKEN},route-reader,route-reader-uid,"route-readers"\n`);
  const { app, server, adminToken, stop } = await assembleTree(load, root, { tokenAuthFile: tokenFile });
  const admin = { authorization: `Bearer ${adminToken}`, accept: 'application/json' };
  const inject = async (method, url, payload) => {
    const res = await app.inject({ method, url, headers: { ...admin, 'content-type': 'application/json' }, payload: JSON.stringify(payload) });
    if (res.statusCode !== 201) throw new Error(`${dir}: POST ${url}: HTTP ${res.statusCode} ${res.body}`);
  };
  await inject('POST', CM, configMap('bench-get', 'default', 700));
  const rbac = '/clusters/root/apis/rbac.authorization.k8s.io/v1';
  await inject('POST', `${rbac}/clusterrolebindings`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'route-reader-access' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:kcp:workspace:access' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'route-reader' }] });
  await inject('POST', `${rbac}/namespaces/default/roles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'route-reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] });
  await inject('POST', `${rbac}/namespaces/default/rolebindings`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'route-reader' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'route-reader' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'route-reader' }] });
  const headers = values.user === 'reader' ? { ...admin, authorization: `Bearer ${READER_TOKEN}` } : admin;
  const rawHeaders = Object.entries(headers).flat();
  const services = server.services;
  const get = async () => {
    const request = { method: 'GET', url: `${CM}/bench-get`, headers, raw: { rawHeaders, headers }, body: undefined };
    const reply = stubReply();
    const out = routeRequest(services, request, reply);
    if (out && typeof out.then === 'function') await out;
    if (reply.statusCode !== 200 || !reply.sent) throw new Error(`${dir}: GET: ${reply.statusCode}`);
  };
  // The CREATE row's body (bench/create.js), a fresh name per POST.
  const postHeaders = { ...headers, 'content-type': 'application/json' };
  const postRaw = { rawHeaders: Object.entries(postHeaders).flat(), headers: postHeaders };
  const [before, after] = JSON.stringify(configMap('%s', 'default', 560)).split('%s');
  let created = 0;
  const create = async () => {
    const request = { method: 'POST', url: CM, headers: postHeaders, raw: postRaw, body: Buffer.from(`${before}rp-${created++}${after}`) };
    const reply = stubReply();
    const out = routeRequest(services, request, reply);
    if (out && typeof out.then === 'function') await out;
    if (reply.statusCode !== 201 || !reply.sent) throw new Error(`${dir}: POST: ${reply.statusCode} ${reply.payload}`);
  };
  // N creates in one turn: counted as in flight (as request-admission.ts counts them), so they gather and commit together.
  const { requestStarted, requestServed } = await load('endpoints/create-turn');
  const turn = async () => {
    for (let i = 0; i < turnOf; i++) requestStarted();
    try {
      await Promise.all(Array.from({ length: turnOf }, create));
    } finally {
      for (let i = 0; i < turnOf; i++) requestServed();
    }
  };
  return { get: values.op === 'create' ? (turnOf ? turn : create) : get, close: stop };
}

/** Bytes allocated per GET on each side, batches alternating; a batch that saw a collection is run again. */
async function compareAllocation() {
  if (!globalThis.gc) throw new Error('--alloc needs node --expose-gc --min-semi-space-size=64');
  const young = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_used_size;
  const perGet = async (s) => {
    for (;;) {
      globalThis.gc();
      const before = getHeapStatistics().used_heap_size;
      const youngBefore = young();
      for (let i = 0; i < batch; i++) await s.get();
      const after = getHeapStatistics().used_heap_size;
      // A scavenge empties the young generation: its use only grows within a batch that saw none.
      if (young() > youngBefore) return (after - before) / batch;
    }
  };
  // Warm-up: the first batches also allocate what the compilers make (feedback, code) on the heap.
  for (let w = 0; w < 5; w++) for (const s of [self, other]) for (let i = 0; i < batch; i++) await s.get();
  const rows = { self: [], other: [] };
  for (let p = 0; p < pairs; p++) {
    const order = p % 2 ? ['other', 'self'] : ['self', 'other'];
    for (const name of order) rows[name].push(await perGet(name === 'self' ? self : other));
  }
  const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
  const unit = values.op === 'create' ? (turnOf ? `TurnOf${turnOf}Creates` : 'Create') : 'Get';
  console.log(JSON.stringify({ [`thisBytesPer${unit}`]: Math.round(median(rows.self)), [`otherBytesPer${unit}`]: Math.round(median(rows.other)), thisRange: [Math.round(Math.min(...rows.self)), Math.round(Math.max(...rows.self))], otherRange: [Math.round(Math.min(...rows.other)), Math.round(Math.max(...rows.other))] }));
}

const self = await side(path.resolve(values.self ?? repoDir));
const other = await side(path.resolve(values.other));
try {
  if (values.alloc) await compareAllocation();
  else await comparePairs({ self, other, run: (s) => s.get(), pairs, batch, label: values.op === 'create' ? (turnOf ? `TurnOf${turnOf}Creates` : 'Create') : 'Get' });
} finally {
  await self.close();
  await other.close();
  for (const d of dirs) removeDir(d);
}
