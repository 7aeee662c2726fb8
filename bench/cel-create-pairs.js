#!/usr/bin/env node
// CR CREATE with and without x-kubernetes-validations, whole server in this process (kcpt/testing's control plane,
// HTTPS on loopback): one workspace, two CRDs with the same App schema (bench/lib/cel-fixtures.js), one carrying six
// typical kubebuilder XValidation rules. Batches of --batch sequential creates alternate between the two (plain
// first in odd rounds, rules first in even ones) for --rounds rounds; prints each round's process CPU µs per create
// (server and client share the process, so the client's part is in both sides alike), then medians, ranges and
// the median per-round difference. Through tsx (it imports the TypeScript source):
//
//   npx tsx bench/cel-create-pairs.js [--rounds 8] [--batch 300]
import https from 'node:https';
import { parseArgs } from 'node:util';
import { startControlPlane } from '../src/testing/index.ts';
import { appObject, appSchema } from './lib/cel-fixtures.js';
import { median, range, sleep } from './lib/util.js';

const { values } = parseArgs({ options: { rounds: { type: 'string' }, batch: { type: 'string' } } });
const rounds = Number(values.rounds ?? 8);
const batch = Number(values.batch ?? 300);

const plane = await startControlPlane();
const agent = new https.Agent({ ca: plane.caCertPem, keepAlive: true });
function send(method, url, body) {
  return new Promise((resolve, reject) => {
    const req = https.request(url, { method, agent, headers: { authorization: `Bearer ${plane.adminToken}`, 'content-type': 'application/json' } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}
const crd = (plural, kind, withRules) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.bench.example.com` },
  spec: {
    group: 'bench.example.com',
    scope: 'Namespaced',
    names: { plural, singular: plural.slice(0, -1), kind, listKind: `${kind}List` },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: appSchema(withRules) }, subresources: { status: {} } }],
  },
});

try {
  const ws = await plane.workspace();
  const sides = { plain: { plural: 'plainapps', kind: 'PlainApp' }, rules: { plural: 'ruledapps', kind: 'RuledApp' } };
  for (const [side, s] of Object.entries(sides)) {
    const r = await send('POST', `${ws.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, crd(s.plural, s.kind, side === 'rules'));
    if (r.status !== 201) throw new Error(`CRD ${side}: ${r.status} ${r.body}`);
    s.url = `${ws.url}/apis/bench.example.com/v1/namespaces/default/${s.plural}`;
    while ((await send('GET', s.url)).status !== 200) await sleep(50);
  }
  let seq = 0;
  const run = async (side) => {
    const s = sides[side];
    const t = process.cpuUsage();
    for (let i = 0; i < batch; i++) {
      const r = await send('POST', s.url, { ...appObject, apiVersion: 'bench.example.com/v1', kind: s.kind, metadata: { name: `a${seq++}` } });
      if (r.status !== 201) throw new Error(`${side}: ${r.status} ${r.body}`);
    }
    const d = process.cpuUsage(t);
    return (d.user + d.system) / batch;
  };
  await run('plain');
  await run('rules');
  const res = { plain: [], rules: [], diff: [] };
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? ['plain', 'rules'] : ['rules', 'plain'];
    const row = {};
    for (const side of order) row[side] = await run(side);
    res.plain.push(row.plain);
    res.rules.push(row.rules);
    res.diff.push(row.rules - row.plain);
    console.log(`round ${r + 1}: plain ${row.plain.toFixed(0)} µs, rules ${row.rules.toFixed(0)} µs CPU per create`);
  }
  for (const k of ['plain', 'rules', 'diff']) {
    const [lo, hi] = range(res[k]);
    console.log(`${k}: median ${median(res[k]).toFixed(0)} µs (${lo.toFixed(0)}–${hi.toFixed(0)})`);
  }
} finally {
  await plane.stop();
}
