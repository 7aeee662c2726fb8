#!/usr/bin/env node
// A hostile tenant's wide CRD against a neighbour, whole server in this process (kcpt/testing's control plane):
// workspace A creates a CRD with --props string properties (12,000 ≈ 0.8 MB), then its first custom resource
// (validation prepares the schema on that request), each while workspace B GETs a ConfigMap in a loop. Prints A's
// latency and B's GET latencies during each (max, p99, count): with ajv compiling the schema, B waited ~11 s
// (audit, 2026-11-29). --rounds creates that many fresh CRDs (each a distinct schema). Through tsx (it imports the
// TypeScript source):
//
//   npx tsx bench/crd-wide-tenant.js [--props 12000] [--rounds 3]
import https from 'node:https';
import { parseArgs } from 'node:util';
import { startControlPlane } from '../src/testing/index.ts';
import { percentile } from './lib/util.js';

const { values } = parseArgs({ options: { props: { type: 'string' }, rounds: { type: 'string' } } });
const width = Number(values.props ?? 12_000);
const rounds = Number(values.rounds ?? 3);

const plane = await startControlPlane();
const agent = new https.Agent({ ca: plane.caCertPem, keepAlive: true });
function send(method, url, body) {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = https.request(url, { method, agent, headers: { authorization: `Bearer ${plane.adminToken}`, 'content-type': 'application/json' } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(data);
  });
}

function wideCRD(group) {
  const props = {};
  for (let i = 0; i < width; i++) props[`field${i}`] = { type: 'string', description: `tenant field ${i}, a string of some length` };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `wides.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'wides', singular: 'wide', kind: 'Wide', listKind: 'WideList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: props } } } } }],
    },
  };
}

try {
  const b = await plane.workspace();
  const cm = `${b.url}/api/v1/namespaces/default/configmaps`;
  if ((await send('POST', cm, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'neighbour' }, data: { a: 'b' } })).status !== 201) throw new Error('configmap');
  /** Runs `work` while B GETs its ConfigMap in a loop; A's latency and B's latencies meanwhile. */
  async function besideNeighbour(work) {
    let done = false;
    const gets = [];
    const neighbour = (async () => {
      while (!done) {
        const t = performance.now();
        const res = await send('GET', `${cm}/neighbour`);
        if (res.status !== 200) throw new Error(`GET ${res.status}`);
        gets.push(performance.now() - t);
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const t = performance.now();
    const res = await work();
    const ms = performance.now() - t;
    await new Promise((resolve) => setTimeout(resolve, 200));
    done = true;
    await neighbour;
    if (res.status !== 201) throw new Error(`${res.status}: ${res.body}`);
    return `${ms.toFixed(1)} ms; B's GETs meanwhile: ${gets.length}, max ${Math.max(...gets).toFixed(1)} ms, p99 ${percentile([...gets], 99).toFixed(1)} ms, median ${percentile([...gets], 50).toFixed(1)} ms`;
  }
  for (let r = 0; r < rounds; r++) {
    const group = `wide${r}.example.com`;
    const a = await plane.workspace();
    const crd = await besideNeighbour(() => send('POST', `${a.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, wideCRD(group)));
    const wides = `${a.url}/apis/${group}/v1/namespaces/default/wides`;
    for (let i = 0; (await send('GET', wides)).status !== 200; i++) {
      if (i > 600) throw new Error('the CRD is not served');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const cr = await besideNeighbour(() => send('POST', wides, { apiVersion: `${group}/v1`, kind: 'Wide', metadata: { name: 'w' }, spec: { field0: 'a', field11999: 'b' } }));
    console.log(`round ${r + 1}: A's CRD create ${crd}`);
    console.log(`round ${r + 1}: A's first CR create ${cr}`);
  }
} finally {
  agent.destroy();
  await plane.stop();
}
