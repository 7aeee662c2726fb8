#!/usr/bin/env node
// Would committing the writes of one event-loop turn together (one SQLite transaction, each request's writes a
// savepoint of it) pay? Two measurements, no change to the server:
//   1. how many creates the server commits per event-loop turn under the CREATE row's load (wrk, --connections
//      keep-alive connections POSTing ~1 KB ConfigMaps for --seconds), counted by bench/lib/commit-turns.js;
//   2. the store's CPU per create when creates are committed one transaction each, or N to a group (the store's own
//      group(): one transaction, each commit a savepoint, events published after), for N = 1, 2, 4, 8.
// Run it through tsx (part 2 opens the store from the TypeScript source):
//
//   npx tsx bench/group-commit-probe.js [--connections 8] [--seconds 6] [--rounds 7]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { client, ensureNamespace, startKcpt } from './lib/kcpt.js';
import { findWrk, runWrk, wrkPostScript } from './lib/load.js';
import { configMap } from './lib/payload.js';
import { benchDir, median, removeDir, repoDir, tempDir } from './lib/util.js';

const { values } = parseArgs({ options: { connections: { type: 'string' }, seconds: { type: 'string' }, rounds: { type: 'string' } } });
const connections = Number(values.connections ?? 8);
const seconds = Number(values.seconds ?? 6);
const rounds = Number(values.rounds ?? 7);

// 1. creates per turn through the server
if (!findWrk()) throw new Error('wrk is needed');
const rootDir = tempDir('kcpt-group-probe-');
const turnsFile = path.join(rootDir, 'turns.jsonl');
const server = await startKcpt({
  rootDir,
  nodeArgs: ['--import', pathToFileURL(path.join(benchDir, 'lib', 'commit-turns.js')).href],
  env: { KCPT_BENCH_TURNS_FILE: turnsFile },
});
const NS = 'bench-create';
const CM_PATH = `/clusters/root/api/v1/namespaces/${NS}/configmaps`;
await ensureNamespace(client(server.url, { token: server.token }), NS);
const headers = { Authorization: `Bearer ${server.token}`, Accept: 'application/json' };
const template = JSON.stringify(configMap('%s', NS, 560));
const load = await runWrk({ url: `${server.url}${CM_PATH}`, connections, durationS: seconds, script: wrkPostScript({ path: CM_PATH, bodyTemplate: template, namePrefix: 'p-', headers }) });
await server.stop();
const counted = JSON.parse(readFileSync(turnsFile, 'utf8').trim().split('\n').at(-1));
removeDir(rootDir);
console.log(JSON.stringify({ part: 'turns', connections, rps: Math.round(load.rps), commitsPerTurn: +(counted.commits / counted.turns).toFixed(2), ...counted }));

// 2. the store alone, creates grouped N to a transaction
const { openSqliteStore } = await import(pathToFileURL(path.join(repoDir, 'src', 'engine', 'storage', 'sqlite-store.ts')).href);
const dir = mkdtempSync(path.join(os.tmpdir(), 'kcpt-group-probe-store-'));
const store = openSqliteStore(path.join(dir, 'kcpt.db'));
const value = JSON.stringify(configMap('x', NS, 560));
let n = 0;
const create = () => store.commit([{ type: 'create', key: `/registry/core/configmaps/root/${NS}/cm-${n++}`, value }]);
const cpuUs = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
const sizes = [1, 2, 4, 8];
const perCreate = new Map(sizes.map((s) => [s, []]));
for (let round = 0; round < rounds; round++) {
  for (const size of sizes) {
    const total = 4000;
    const t0 = cpuUs();
    for (let i = 0; i < total; i += size) {
      if (size === 1) create();
      else store.group(() => { for (let j = 0; j < size; j++) create(); });
    }
    perCreate.get(size).push((cpuUs() - t0) / total);
  }
}
store.close();
rmSync(dir, { recursive: true, force: true });
for (const size of sizes) {
  const xs = perCreate.get(size);
  console.log(JSON.stringify({ part: 'store', groupOf: size, medianUsPerCreate: +median(xs).toFixed(1), min: +Math.min(...xs).toFixed(1), max: +Math.max(...xs).toFixed(1) }));
}
