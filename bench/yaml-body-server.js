#!/usr/bin/env node
// What one large YAML request body does to a running `kcpt start`: the time to answer it, and how late a concurrent
// GET answers while the server reads it (a GET of a small ConfigMap every 20 ms on its own keep-alive connection; its
// slowest answer during the YAML request is the event loop's stall). Each body is sent --rounds times to a server of
// this checkout and to one of --old (another checkout's bin/run.js, e.g. main's), alternating old, new, new, old.
//
//   node bench/yaml-body-server.js --old /path/to/other/checkout/bin/run.js [--rounds 2] [--mb 2]
import https from 'node:https';
import { parseArgs } from 'node:util';
import { removeDir } from './lib/util.js';
import { runJs, startKcpt } from './lib/kcpt.js';
import { blockConfigMap, blockConfigMapData, flowMaps } from './lib/yaml-bodies.js';

const { values } = parseArgs({ options: { old: { type: 'string' }, rounds: { type: 'string' }, mb: { type: 'string' } } });
if (!values.old) throw new Error('--old <bin/run.js of the checkout to compare with> is required');
const rounds = Number(values.rounds ?? 2);
const bytes = Number(values.mb ?? 2) * 1024 * 1024;

const cms = '/clusters/root/api/v1/namespaces/default/configmaps';
const bodies = [
  // Block style, ~100-byte values: decoded, then refused (422: a ConfigMap's data is at most 1 MiB).
  {
    name: 'create, block ConfigMap',
    method: 'POST',
    path: cms,
    type: 'application/yaml',
    body: blockConfigMap(bytes, 'big-block'),
  },
  // The same object as JSON: what the rest of the request costs (the same code on both sides).
  {
    name: 'create, same as JSON',
    method: 'POST',
    path: cms,
    type: 'application/json',
    body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big-json' }, data: blockConfigMapData(bytes) }),
  },
  {
    name: 'apply, block ConfigMap',
    method: 'PATCH',
    path: `${cms}/big-apply?fieldManager=bench&fieldValidation=Strict`,
    type: 'application/apply-patch+yaml',
    body: blockConfigMap(bytes, 'big-apply'),
  },
  // Small flow maps: decoded, then stored without them (a ConfigMap has no `items`: an unknown field, dropped).
  {
    name: 'create, flow maps',
    method: 'POST',
    path: cms,
    type: 'application/yaml',
    body: flowMaps(bytes, 'big-flow', 'ConfigMap', 'v1'),
  },
];

function request(server, agent, method, path, type, body) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const headers = { authorization: `Bearer ${server.token}` };
    if (body !== undefined) Object.assign(headers, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
    const req = https.request(`${server.url}${path}`, { method, agent, ca: server.ca, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, ms: performance.now() - start }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function measure(entry) {
  const server = await startKcpt({ entry });
  try {
    const probeAgent = new https.Agent({ keepAlive: true, maxSockets: 1 });
    const bodyAgent = new https.Agent({ keepAlive: true, maxSockets: 1 });
    const small = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'probe' }, data: { k: 'v' } });
    await request(server, probeAgent, 'POST', cms, 'application/json', small);
    const rows = [];
    for (const b of bodies) {
      // Warm both connections, then probe while the body is read.
      await request(server, probeAgent, 'GET', `${cms}/probe`);
      let probing = true;
      const probes = [];
      const probe = (async () => {
        while (probing) {
          probes.push((await request(server, probeAgent, 'GET', `${cms}/probe`)).ms);
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
      await new Promise((r) => setTimeout(r, 100));
      const answer = await request(server, bodyAgent, b.method, b.path, b.type, b.body);
      probing = false;
      await probe;
      rows.push({ name: b.name, status: answer.status, ms: answer.ms, worstGet: Math.max(...probes), gets: probes.length });
    }
    probeAgent.destroy();
    bodyAgent.destroy();
    return rows;
  } finally {
    await server.stop();
    removeDir(server.rootDir);
  }
}

const results = { old: [], new: [] };
for (let r = 0; r < rounds; r++) {
  for (const side of r % 2 === 0 ? ['old', 'new'] : ['new', 'old']) {
    const rows = await measure(side === 'old' ? values.old : runJs);
    results[side].push(rows);
    for (const row of rows) {
      console.log(`${side} round ${r + 1}  ${row.name.padEnd(24)} ${row.status}  answered in ${row.ms.toFixed(0).padStart(6)} ms   slowest concurrent GET ${row.worstGet.toFixed(0).padStart(6)} ms (${row.gets} GETs)`);
    }
  }
}
