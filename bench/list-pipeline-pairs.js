#!/usr/bin/env node
// CPU of a LIST's own work alone (the range read of 1,000 ~1 KB ConfigMaps from a SQLite store, listObjects and the
// JSON answer's rendering into its body bytes; no HTTP, no TLS), this checkout's source against another checkout's,
// in ONE process: the two alternate every --batch lists, so both see the same moment of a shared box's load. Run it
// through tsx (it imports each tree's TypeScript source):
//
//   npx tsx bench/list-pipeline-pairs.js --other /path/to/other/checkout [--pairs 30] [--batch 20] [--count 1000]
//
// Prints the median µs per LIST of each side, the median of the per-pair ratios (this / other), in how many pairs
// this side was cheaper, and whether both sides' answers were byte for byte the same. Run it with --other pointing at
// this very checkout for the noise floor (A/A).
import path from 'node:path';
import { parseArgs } from 'node:util';
import { comparePairs, loadTree } from './lib/pipeline-pairs.js';
import { repoDir } from './lib/util.js';

const { values } = parseArgs({ options: { other: { type: 'string' }, pairs: { type: 'string' }, batch: { type: 'string' }, count: { type: 'string' } } });
if (!values.other) throw new Error('--other DIR (a checkout to compare with) is required');
const pairs = Number(values.pairs ?? 30);
const batch = Number(values.batch ?? 20);
const count = Number(values.count ?? 1000);

async function side(dir) {
  const tree = await loadTree(dir, [
    'registry/generic-store.ts',
    'builtin/core/resources.ts',
    'admission/write-authority.ts',
    'registry/list.ts',
    'endpoints/render.ts',
  ]);
  const [{ GenericStore }, { configMaps, namespaces }, { WriteAuthority }, { listObjects }, { renderList }] = tree.modules;
  const { store } = tree;
  const generic = new GenericStore(store, namespaces, { authority: new WriteAuthority() });
  // Two namespaces around the listed one, so the range read seeks into the middle of the index as a real one does.
  for (const name of ['bench-a', 'bench-list', 'bench-z']) {
    generic.create({ rt: namespaces, cluster: 'root', namespace: '' }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }
  for (const namespace of ['bench-a', 'bench-list', 'bench-z']) {
    const ctx = { rt: configMaps, cluster: 'root', namespace };
    store.group(() => {
      for (let i = 0; i < count; i++) {
        generic.create(ctx, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `list-${String(i).padStart(5, '0')}`, namespace, labels: { app: 'kcpt-bench', tier: 'backend' } },
          data: { 'config.yaml': 'x'.repeat(560) },
        });
      }
    });
  }
  const everything = { matchesEverything: true, matches: () => true };
  const render = { format: { format: 'json', mediaType: 'application/json', pretty: false }, query: new URLSearchParams() };
  const list = async () => renderList(configMaps, await listObjects(store, configMaps, 'root', 'bench-list', everything, {}), render).body;
  return { list, close: tree.close };
}

const self = await side(repoDir);
const other = await side(path.resolve(values.other));
try {
  // The two trees stored the same objects at the same revisions; only the uids and timestamps differ per side.
  const strip = (b) => b.toString().replace(/"uid":"[^"]*"|"creationTimestamp":"[^"]*"|"time":"[^"]*"/g, '');
  const sameAnswer = strip(await self.list()) === strip(await other.list());
  await comparePairs({ self, other, run: (s) => s.list(), pairs, batch, label: 'List', extra: { sameAnswer } });
} finally {
  self.close();
  other.close();
}
