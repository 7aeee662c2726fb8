#!/usr/bin/env node
// CPU of one GET through the whole server minus the sockets: this checkout's server and another checkout's, both
// assembled in ONE process from their TypeScript source, each asked for the GET row's ~1 KB ConfigMap through
// fastify's inject (request gate, in-flight limit, deadline, routing, request info, cluster resolution, RBAC, the
// store read, negotiation, rendering, onSend/onResponse hooks, metrics; no TLS, no HTTP parser, no syscalls). The two
// alternate every --batch requests, so both see the same moment of a shared box's load. With --op create, each
// request is instead the CREATE row's POST of a ~1 KB ConfigMap with a unique name (body decoding, the whole create
// pipeline with admission, the SQLite commit, watch fan-out to the in-process watchers, the answer). Run it through tsx:
//
//   npx tsx bench/get-pipeline-pairs.js --other /path/to/other/checkout [--self DIR (default: this checkout)] [--pairs 40] [--batch 400] [--accept json|protobuf] [--op get|create]
//
// Prints the median µs per GET of each side, the median of the per-pair ratios (this / other) and in how many pairs
// this side was cheaper. Run it with --other pointing at this very checkout for the noise floor (A/A).
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { assembleTree, comparePairs } from './lib/pipeline-pairs.js';
import { removeDir, repoDir } from './lib/util.js';
import { configMap } from './lib/payload.js';

const { values } = parseArgs({ options: { other: { type: 'string' }, self: { type: 'string' }, pairs: { type: 'string' }, batch: { type: 'string' }, accept: { type: 'string' }, op: { type: 'string', default: 'get' } } });
if (!['get', 'create'].includes(values.op)) throw new Error('--op is get or create');
if (!values.other) throw new Error('--other DIR (a checkout to compare with) is required');
const pairs = Number(values.pairs ?? 40);
const batch = Number(values.batch ?? 400);
const accept = values.accept === 'protobuf' ? 'application/vnd.kubernetes.protobuf,application/json' : 'application/json';
const CM = '/clusters/root/api/v1/namespaces/default/configmaps';
const dirs = [];

async function side(dir) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'kcpt-get-pairs-'));
  dirs.push(root);
  const { app, adminToken, stop } = await assembleTree((file) => import(pathToFileURL(path.join(dir, 'src', 'engine', `${file}.ts`)).href), root);
  const headers = { authorization: `Bearer ${adminToken}`, accept };
  const body = JSON.stringify(configMap('bench-get', 'default', 700));
  const created = await app.inject({ method: 'POST', url: CM, headers: { ...headers, 'content-type': 'application/json' }, payload: body });
  if (created.statusCode !== 201) throw new Error(`${dir}: create: HTTP ${created.statusCode} ${created.body}`);
  const get = async () => {
    const res = await app.inject({ method: 'GET', url: `${CM}/bench-get`, headers });
    if (res.statusCode !== 200) throw new Error(`${dir}: GET: HTTP ${res.statusCode} ${res.body}`);
  };
  const createHeaders = { ...headers, 'content-type': 'application/json' };
  const template = JSON.stringify(configMap('%s', 'default', 560));
  let n = 0;
  const create = async () => {
    const res = await app.inject({ method: 'POST', url: CM, headers: createHeaders, payload: template.replace('%s', `cm-${n++}`) });
    if (res.statusCode !== 201) throw new Error(`${dir}: CREATE: HTTP ${res.statusCode} ${res.body}`);
  };
  return { get, create, close: stop };
}

const self = await side(path.resolve(values.self ?? repoDir));
const other = await side(path.resolve(values.other));
try {
  // One request at a time: the pipeline's own cost, no queueing.
  if (values.op === 'create') await comparePairs({ self, other, run: (s) => s.create(), pairs, batch, label: 'Create' });
  else await comparePairs({ self, other, run: (s) => s.get(), pairs, batch, label: 'Get' });
} finally {
  await self.close();
  await other.close();
  for (const d of dirs) removeDir(d);
}
