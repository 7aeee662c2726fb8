#!/usr/bin/env node
// What reading a JSON create/update body as Go does costs on top of JSON.parse (src/engine/endpoints/body.ts): the
// number texts JSON.parse would alter (json-number-literals.ts: one regular-expression test unless the body has
// such a number) and the repeated keys (json-duplicate-keys.ts: a search for `":` and a count of the parsed keys).
// Bodies: the CREATE benchmark's ~1 KB ConfigMap (bench/lib/payload.js), a kubectl-apply-like one whose
// last-applied annotation holds the object again as JSON, and a Lease (numbers, a timestamp). `parse` (JSON.parse
// alone) and `checks` (JSON.parse and both checks) alternate, parse first in odd rounds; prints CPU ns per body for
// every round, then each side's median and range. Run it through tsx (it imports the TypeScript source):
//
//   npx tsx bench/body-checks-pairs.js [--rounds 8] [--n 50000]
import { parseArgs } from 'node:util';
import { jsonDuplicateKeys } from '../src/engine/machinery/json-duplicate-keys.ts';
import { jsonNumberLiterals } from '../src/engine/machinery/json-number-literals.ts';
import { configMap } from './lib/payload.js';
import { median, range } from './lib/util.js';

const { values } = parseArgs({ options: { rounds: { type: 'string' }, n: { type: 'string' } } });
const rounds = Number(values.rounds ?? 8);
const n = Number(values.n ?? 50_000);

const cm = configMap('bench-000123', 'default');
const applied = { ...cm, metadata: { ...cm.metadata, annotations: { 'kubectl.kubernetes.io/last-applied-configuration': `${JSON.stringify(cm)}\n` } } };
const lease = {
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name: 'controller-leader', namespace: 'kube-system', resourceVersion: '123456' },
  spec: { holderIdentity: 'controller-7d9f_3b1c', leaseDurationSeconds: 15, acquireTime: '2026-11-30T01:00:00.000000Z', renewTime: '2026-11-30T01:40:12.123456Z', leaseTransitions: 3 },
};
const bodies = { configmap: JSON.stringify(cm), applied: JSON.stringify(applied), lease: JSON.stringify(lease) };

const cpuNs = (f) => {
  const t = process.cpuUsage();
  f();
  const d = process.cpuUsage(t);
  return ((d.user + d.system) * 1000) / n;
};
const sides = {
  parse: (text) => () => {
    for (let i = 0; i < n; i++) JSON.parse(text);
  },
  checks: (text) => () => {
    for (let i = 0; i < n; i++) {
      const parsed = JSON.parse(text);
      jsonNumberLiterals(text, parsed);
      jsonDuplicateKeys(text, parsed);
    }
  },
};

for (const [name, text] of Object.entries(bodies)) {
  const seen = { parse: [], checks: [] };
  for (let round = 1; round <= rounds; round++) {
    const order = round % 2 ? ['parse', 'checks'] : ['checks', 'parse'];
    const line = [];
    for (const side of order) {
      const ns = cpuNs(sides[side](text));
      seen[side].push(ns);
      line.push(`${side} ${ns.toFixed(0)} ns`);
    }
    console.log(`${name} (${text.length} B) round ${round}: ${line.join(', ')}`);
  }
  const [lo, hi] = [range(seen.checks)[0] - range(seen.parse)[1], range(seen.checks)[1] - range(seen.parse)[0]];
  console.log(`${name}: parse ${median(seen.parse).toFixed(0)} ns (${range(seen.parse).map((x) => x.toFixed(0)).join('–')}), checks ${median(seen.checks).toFixed(0)} ns (${range(seen.checks).map((x) => x.toFixed(0)).join('–')}); added ≈ ${(median(seen.checks) - median(seen.parse)).toFixed(0)} ns (${lo.toFixed(0)}…${hi.toFixed(0)})`);
}
