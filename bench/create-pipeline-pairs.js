#!/usr/bin/env node
// CPU of the create pipeline alone (GenericStore.create of the CREATE row's ~1 KB ConfigMap into a SQLite store, no
// HTTP), this checkout's source against another checkout's, in ONE process: the two alternate every --batch creates,
// so both see the same moment of a shared box's load and the paired ratio survives a load that makes whole-request
// A/B runs useless. Run it through tsx (it imports each tree's TypeScript source):
//
//   npx tsx bench/create-pipeline-pairs.js --other /path/to/other/checkout [--pairs 40] [--batch 200]
//
// Prints the median µs per create of each side, the median of the per-pair ratios (this / other) and in how many
// pairs this side was cheaper. Run it with --other pointing at this very checkout for the noise floor (A/A).
import path from 'node:path';
import { parseArgs } from 'node:util';
import { comparePairs, loadTree } from './lib/pipeline-pairs.js';
import { repoDir } from './lib/util.js';

const { values } = parseArgs({ options: { other: { type: 'string' }, pairs: { type: 'string' }, batch: { type: 'string' } } });
if (!values.other) throw new Error('--other DIR (a checkout to compare with) is required');
const pairs = Number(values.pairs ?? 40);
const batch = Number(values.batch ?? 200);

async function side(dir) {
  const tree = await loadTree(dir, ['registry/generic-store.ts', 'builtin/core/resources.ts', 'admission/write-authority.ts']);
  const [{ GenericStore }, { configMaps, namespaces }, { WriteAuthority }] = tree.modules;
  const generic = new GenericStore(tree.store, namespaces, { authority: new WriteAuthority() });
  generic.create({ rt: namespaces, cluster: 'c1', namespace: '' }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } });
  const ctx = { rt: configMaps, cluster: 'c1', namespace: 'bench' };
  let n = 0;
  // A fresh object per create, handed over as the HTTP handler hands over the body it decoded (`ownsInput`; a
  // checkout that does not know the option copies it).
  const create = () =>
    generic.create(
      ctx,
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `cm-${n++}`, namespace: 'bench', labels: { app: 'kcpt-bench', tier: 'backend' } },
        data: { 'config.yaml': 'x'.repeat(560) },
      },
      { ownsInput: true },
    );
  return { create, close: tree.close };
}

const self = await side(repoDir);
const other = await side(path.resolve(values.other));
try {
  await comparePairs({ self, other, run: (s) => s.create(), pairs, batch, label: 'Create' });
} finally {
  self.close();
  other.close();
}
