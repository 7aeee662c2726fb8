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
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { median, removeDir, repoDir } from './lib/util.js';

const { values } = parseArgs({ options: { other: { type: 'string' }, pairs: { type: 'string' }, batch: { type: 'string' } } });
if (!values.other) throw new Error('--other DIR (a checkout to compare with) is required');
const pairs = Number(values.pairs ?? 40);
const batch = Number(values.batch ?? 200);
const dirs = [];

async function side(dir) {
  const load = (file) => import(pathToFileURL(path.join(dir, 'src', 'engine', file)).href);
  const [{ GenericStore }, { configMaps, namespaces }, { openSqliteStore }, { WriteAuthority }] = await Promise.all([
    load('registry/generic-store.ts'),
    load('builtin/core/resources.ts'),
    load('storage/sqlite-store.ts'),
    load('admission/write-authority.ts'),
  ]);
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'kcpt-pipeline-pairs-'));
  dirs.push(tmp);
  const store = openSqliteStore(path.join(tmp, 'kcpt.db'));
  const generic = new GenericStore(store, namespaces, { authority: new WriteAuthority() });
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
  return { create, close: () => store.close() };
}

/** CPU µs per create over one batch. */
function measure(s) {
  const t = process.cpuUsage();
  for (let i = 0; i < batch; i++) s.create();
  const d = process.cpuUsage(t);
  return (d.user + d.system) / batch;
}

const self = await side(repoDir);
const other = await side(path.resolve(values.other));
try {
  for (let i = 0; i < 5; i++) (measure(self), measure(other)); // warm-up: JIT
  const mine = [];
  const theirs = [];
  for (let i = 0; i < pairs; i++) {
    // Alternate who goes first, so a load trend within a pair favours neither.
    if (i % 2 === 0) (mine.push(measure(self)), theirs.push(measure(other)));
    else (theirs.push(measure(other)), mine.push(measure(self)));
  }
  const ratios = mine.map((m, i) => m / theirs[i]);
  console.log(
    JSON.stringify({
      thisUsPerCreate: +median(mine).toFixed(1),
      otherUsPerCreate: +median(theirs).toFixed(1),
      medianRatio: +median(ratios).toFixed(3),
      thisCheaperIn: `${ratios.filter((r) => r < 1).length}/${pairs}`,
    }),
  );
} finally {
  self.close();
  other.close();
  for (const d of dirs) removeDir(d);
}
