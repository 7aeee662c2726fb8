// What validating admission (the logical-cluster object cap and ResourceQuota) costs a create, measured in-process
// on the generic store over SQLite, the way the server wires it (owner index included), without HTTP in the way.
//
//   node bench/admission.js [--creates 2000] [--runs 5] [--objects 1000,10000]
//
// Needs a build (`npm run build`). Scenarios, interleaved run by run, median µs per ConfigMap create:
//   no admission        the generic store without the chain (the floor)
//   no cap, no quota    the chain, in a namespace without quotas of a cluster without a cap (the common case)
//   quota               the namespace has a quota counting configmaps (a range read, a count, a charged status)
//   cap, N objects      the cluster's LogicalCluster carries core.kcp.io/max-total-objects and holds N objects
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { median, repoDir } from './lib/util.js';

const { values } = parseArgs({
  options: {
    creates: { type: 'string', default: '2000' },
    runs: { type: 'string', default: '5' },
    objects: { type: 'string', default: '1000,10000' },
  },
});
const creates = Number(values.creates);
const runs = Number(values.runs);
const capSizes = values.objects.split(',').map(Number);

const load = (p) => import(pathToFileURL(path.join(repoDir, 'dist', 'src', 'engine', p)).href);
const { openStore } = await load('storage/index.js');
const { builtinResourceTypes } = await load('builtin/index.js');
const { StaticCatalog } = await load('registry/catalog.js');
const { GenericStore } = await load('registry/generic-store.js');
const { buildAdmission } = await load('admission/index.js');
const { WriteAuthority } = await load('admission/write-authority.js');
const { ownerIndexWriter } = await load('controllers/owner-index.js');
const { OwnerResolver } = await load('controllers/owner-references.js');

const dir = mkdtempSync(path.join(os.tmpdir(), 'kcpt-bench-admission-'));
const store = openStore('', dir);
const types = builtinResourceTypes();
const catalog = new StaticCatalog(types, 'bench');
const catalogFor = () => catalog;
const type = (group, resource) => types.find((t) => t.group === group && t.resource === resource);
const namespaces = type('', 'namespaces');
const configMaps = type('', 'configmaps');
const logicalClusters = type('core.kcp.io', 'logicalclusters');
const quotas = type('', 'resourcequotas');
const owners = ownerIndexWriter(store, new OwnerResolver(store, catalogFor));
const admission = buildAdmission({ store, builtinTypes: types, catalogFor, logicalClusterTotalObjectLimit: 0 });
const authority = new WriteAuthority();
const plain = new GenericStore(store, namespaces, { authority, indexWriters: [owners], garbageCollection: true });
const admitted = new GenericStore(store, namespaces, {
  authority,
  indexWriters: [owners, ...admission.indexWriters],
  garbageCollection: true,
  admission: admission.chain,
});

const ctx = (rt, cluster, namespace = '') => ({ rt, cluster, namespace });
const data = { pad: 'x'.repeat(900) };

function makeCluster(name, annotations) {
  const lc = plain.create(ctx(logicalClusters, name), { metadata: { name: 'cluster', annotations } });
  plain.update(ctx(logicalClusters, name), 'cluster', { ...lc, status: { phase: 'Ready' } }, { subresource: 'status' });
}
function makeNamespace(cluster, name) {
  plain.create(ctx(namespaces, cluster), { metadata: { name } });
}

let serial = 0;
/** µs per create of `creates` ConfigMaps into a fresh namespace of `cluster`. */
function timeCreates(generic, cluster, prepare) {
  const ns = `ns-${serial++}`;
  makeNamespace(cluster, ns);
  prepare?.(ns);
  const start = process.hrtime.bigint();
  for (let i = 0; i < creates; i++) generic.create(ctx(configMaps, cluster, ns), { metadata: { name: `cm-${i}` }, data });
  return Number(process.hrtime.bigint() - start) / 1000 / creates;
}

makeCluster('open');
const capped = capSizes.map((n) => {
  const name = `capped-${n}`;
  makeCluster(name, { 'core.kcp.io/max-total-objects': String(n + 10 * creates * runs) });
  makeNamespace(name, 'filler');
  for (let i = 0; i < n; i++) plain.create(ctx(configMaps, name, 'filler'), { metadata: { name: `f-${i}` }, data });
  return { n, name };
});

const withQuota = (cluster) => (ns) => {
  admitted.create(ctx(quotas, cluster, ns), { metadata: { name: 'q' }, spec: { hard: { configmaps: String(10 * creates) } } });
  const q = admitted.get(ctx(quotas, cluster, ns), 'q');
  // What the quota controller would publish.
  admitted.update(ctx(quotas, cluster, ns), 'q', { ...q, status: { hard: q.spec.hard, used: { configmaps: '0' } } }, { subresource: 'status' });
};

const scenarios = [
  ['no admission', () => timeCreates(plain, 'open')],
  ['no cap, no quota', () => timeCreates(admitted, 'open')],
  ['quota on configmaps', () => timeCreates(admitted, 'open', withQuota('open'))],
  ...capped.map(({ n, name }) => [`cap, ${n.toLocaleString('en-US')} objects`, () => timeCreates(admitted, name)]),
];

timeCreates(admitted, 'open'); // warm-up: JIT, statement cache
const samples = new Map(scenarios.map(([label]) => [label, []]));
for (let r = 0; r < runs; r++) {
  // Rotate the order so no scenario always runs first (or right after the heaviest one).
  for (let i = 0; i < scenarios.length; i++) {
    const [label, run] = scenarios[(i + r) % scenarios.length];
    samples.get(label).push(run());
  }
}

// The admission work alone, called directly (no commit): what the common case adds to every create.
const attrs = { rt: configMaps, cluster: 'open', namespace: 'ns-0', object: { metadata: { name: 'x' } }, dryRun: false };
const key = '/registry/core/configmaps/open/ns-0/x';
const direct = [];
for (let r = 0; r < runs; r++) {
  const n = 20_000;
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    admission.chain.validateCreate(attrs);
    for (const write of admission.indexWriters) write(key, undefined, attrs.object);
  }
  direct.push(Number(process.hrtime.bigint() - start) / 1000 / n);
}

const floor = median(samples.get('no admission'));
console.log(`ConfigMap creates through the generic store on SQLite: ${creates} per run, median of ${runs} runs`);
console.log('scenario                      µs/create   vs no admission');
for (const [label] of scenarios) {
  const m = median(samples.get(label));
  console.log(`${label.padEnd(28)}  ${m.toFixed(1).padStart(9)}   ${(m - floor >= 0 ? '+' : '') + (m - floor).toFixed(1)} µs`);
}
console.log(`admission work alone, no cap and no quota (chain + count index writer, no commit): ${median(direct).toFixed(1)} µs/create`);
store.close();
rmSync(dir, { recursive: true, force: true });
