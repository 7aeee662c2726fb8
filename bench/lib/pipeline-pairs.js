// The in-process A/B the *-pipeline-pairs.js tools share: each tree's TypeScript modules loaded side by side (run
// through tsx), a SQLite store per side in a temporary directory (loadTree), and batches of one operation alternating
// between the two sides so both see the same moment of a shared box's load (comparePairs).
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { median, removeDir } from './util.js';

/** The modules of one tree (`files` relative to its src/engine/) and a fresh SQLite store opened with that tree's code. */
export async function loadTree(dir, files) {
  const modules = await Promise.all(files.map((file) => import(pathToFileURL(path.join(dir, 'src', 'engine', file)).href)));
  const { openSqliteStore } = await import(pathToFileURL(path.join(dir, 'src', 'engine', 'storage', 'sqlite-store.ts')).href);
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'kcpt-pipeline-pairs-'));
  const store = openSqliteStore(path.join(tmp, 'kcpt.db'));
  return { modules, store, close: () => (store.close(), removeDir(tmp)) };
}

/**
 * `run(side)` `batch` times per measurement, `pairs` pairs after a warm-up, who goes first alternating; prints the
 * median µs per operation of each side (`label` names the operation), the median per-pair ratio (this / other) and in
 * how many pairs this side was cheaper, plus `extra`.
 */
export async function comparePairs({ self, other, run, pairs, batch, label, extra = {} }) {
  const measure = async (side) => {
    const t = process.cpuUsage();
    for (let i = 0; i < batch; i++) await run(side);
    const d = process.cpuUsage(t);
    return (d.user + d.system) / batch;
  };
  for (let i = 0; i < 5; i++) (await measure(self), await measure(other)); // warm-up: JIT
  const mine = [];
  const theirs = [];
  for (let i = 0; i < pairs; i++) {
    // Alternate who goes first, so a load trend within a pair favours neither.
    if (i % 2 === 0) (mine.push(await measure(self)), theirs.push(await measure(other)));
    else (theirs.push(await measure(other)), mine.push(await measure(self)));
  }
  const ratios = mine.map((m, i) => m / theirs[i]);
  console.log(
    JSON.stringify({
      [`thisUsPer${label}`]: +median(mine).toFixed(1),
      [`otherUsPer${label}`]: +median(theirs).toFixed(1),
      medianRatio: +median(ratios).toFixed(3),
      thisCheaperIn: `${ratios.filter((r) => r < 1).length}/${pairs}`,
      ...extra,
    }),
  );
}

/**
 * A whole kcpt server assembled in this process from one tree's modules, not listening (`load(file)` imports a module
 * of that tree's src/engine, named without its extension), on the root directory `root`; `options` adds to its start
 * options. Resolves fastify's app, the server's parts, the kcp-admin token and `stop()`.
 */
export async function assembleTree(load, root, options = {}) {
  const files = ['server/options', 'server/lifecycle', 'server/foundation', 'server/address', 'server/assembly', 'server/http-app', 'server/controllers'];
  const [{ completeOptions }, { Lifecycle }, { openFoundation }, { ServerAddress }, { assembleServer }, { serverApp }, { serverComponents }] = await Promise.all(files.map(load));
  const config = completeOptions({ rootDirectory: root, securePort: 0, bindAddress: '127.0.0.1', storage: '', log: () => {}, ...options });
  const lifecycle = new Lifecycle();
  const foundation = await openFoundation(config, lifecycle);
  const server = assembleServer(config, foundation, new ServerAddress());
  const app = serverApp(server);
  await lifecycle.start(serverComponents(server, app));
  server.readiness.ready = true;
  return { app, server, adminToken: foundation.tokens.kcpAdmin, stop: () => lifecycle.stop() };
}
