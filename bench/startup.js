// 5. Start-up to ready: spawn `node bin/run.js start` and time (a) spawn -> first /readyz 200 (polled every ~2 ms
//    over HTTPS) and (b) spawn -> the printed `export KUBECONFIG=` line. Cases:
//      - empty root directory (fresh temp dir every run), default SQLite storage and memory://
//      - second start on an existing, empty root directory (certificates and DB already there)
//      - second start on a root directory holding 10,000 objects across 1,000 logical clusters
//    Floor: bench/listen-and-exit.js (node + fastify + better-sqlite3 + listen, spawn -> exit; baseline B.4 in docs/benchmarks.md).
import { spawn } from 'node:child_process';
import https from 'node:https';
import path from 'node:path';
import { client, parallel, runJs, startKcpt } from './lib/kcpt.js';
import { configMap } from './lib/payload.js';
import { benchDir, freePort, log, median, procCpuMs, removeDir, sleep, tempDir, trackChild, waitExit } from './lib/util.js';

/** One GET /readyz on a fresh connection: its status code, or 0 when nothing answered. */
export function readyzOnce(port) {
  return new Promise((resolve) => {
    const req = https.get({ host: '127.0.0.1', port, path: '/readyz', agent: false, rejectUnauthorized: false, timeout: 1000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', () => resolve(0));
    req.on('timeout', () => {
      req.destroy();
      resolve(0);
    });
  });
}

/** Spawns kcpt on rootDir and measures spawn -> /readyz 200 and spawn -> ready line; then stops it. */
export async function timeStart({ rootDir, storage, timeoutMs = 30_000, entry = runJs }) {
  const port = await freePort();
  const args = [entry, 'start', '--root-directory', rootDir, '--secure-port', String(port)];
  if (storage) args.push('--storage', storage);
  const t0 = performance.now();
  const child = trackChild(spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] }));
  let lineMs;
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => {
    out += d;
    if (lineMs === undefined && out.includes('export KUBECONFIG=')) lineMs = performance.now() - t0;
  });
  child.stderr.on('data', (d) => (err += d));
  let readyMs;
  let cpuMs;
  while (performance.now() - t0 < timeoutMs) {
    if (child.exitCode !== null) throw new Error(`kcpt exited with ${child.exitCode}: ${out}\n${err}`);
    if ((await readyzOnce(port)) === 200) {
      readyMs = performance.now() - t0;
      cpuMs = procCpuMs(child.pid);
      break;
    }
    await sleep(2);
  }
  if (readyMs === undefined) throw new Error(`kcpt not ready within ${timeoutMs} ms: ${out}\n${err}`);
  while (lineMs === undefined && performance.now() - t0 < timeoutMs) await sleep(1);
  child.kill('SIGTERM');
  await waitExit(child, 15_000);
  return { readyMs, lineMs, cpuMs };
}

export function timeProcess(args) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(performance.now() - t0) : reject(new Error(`${args.join(' ')} exited ${code}`))));
  });
}

/** Fills a root directory with 1,000 logical clusters (LogicalCluster + default namespace) and 8,000 ConfigMaps. */
async function populate(dir, pad) {
  const t0 = performance.now();
  const server = await startKcpt({ rootDir: dir });
  const c = client(server.url, { token: server.shardToken, maxSockets: 8 });
  try {
    const clusters = Array.from({ length: 1000 }, (_, i) => `bench${String(i).padStart(4, '0')}`);
    await parallel(clusters, 8, async (lc) => {
      const res = await c.request('POST', `/clusters/${lc}/apis/core.kcp.io/v1alpha1/logicalclusters`, {
        apiVersion: 'core.kcp.io/v1alpha1',
        kind: 'LogicalCluster',
        metadata: { name: 'cluster' },
      });
      if (res.status !== 201 && res.status !== 409) throw new Error(`create LogicalCluster in ${lc}: HTTP ${res.status} ${res.body}`);
    });
    const jobs = clusters.flatMap((lc) => Array.from({ length: 8 }, (_, j) => [lc, `cm-${j}`]));
    await parallel(jobs, 8, async ([lc, name]) => {
      for (let attempt = 0; ; attempt++) {
        const res = await c.request('POST', `/clusters/${lc}/api/v1/namespaces/default/configmaps`, configMap(name, 'default', pad));
        if (res.status === 201 || res.status === 409) return;
        // the default namespace is created by the LogicalCluster controller, asynchronously
        if (attempt < 50 && (res.status === 404 || res.status === 403)) {
          await sleep(20);
          continue;
        }
        throw new Error(`create ConfigMap in ${lc}: HTTP ${res.status} ${res.body}`);
      }
    });
    let namespaces = 0;
    for (const lc of [clusters[0], clusters.at(-1)]) {
      namespaces += (await c.json('GET', `/clusters/${lc}/api/v1/namespaces`)).items.length;
    }
    log(`  populated 1,000 logical clusters x (LogicalCluster + default namespace + 8 ConfigMaps) in ${((performance.now() - t0) / 1000).toFixed(1)} s (namespaces in first+last cluster: ${namespaces})`);
  } finally {
    c.close();
    await server.stop();
  }
}

export async function run(ctx) {
  const runs = ctx.startRuns;
  const dirs = [];
  const fresh = (prefix) => {
    const d = tempDir(prefix);
    dirs.push(d);
    return d;
  };
  try {
    const floor = [];
    const nodeOnly = [];
    const sqliteFresh = [];
    const memFresh = [];
    // warm the OS file cache for node_modules and dist
    await timeStart({ rootDir: path.join(fresh('kcpt-bench-start-'), 'root'), storage: 'memory://' });
    for (let i = 0; i < runs; i++) {
      const lae = fresh('kcpt-bench-lae-');
      floor.push(await timeProcess([path.join(benchDir, 'listen-and-exit.js'), path.join(lae, 'floor.db'), '0']));
      nodeOnly.push(await timeProcess(['-e', '0']));
      sqliteFresh.push(await timeStart({ rootDir: path.join(fresh('kcpt-bench-start-'), 'root') }));
      memFresh.push(await timeStart({ rootDir: path.join(fresh('kcpt-bench-start-'), 'root'), storage: 'memory://' }));
      log(
        `  run ${i + 1}: floor ${floor.at(-1).toFixed(0)} ms, node -e 0 ${nodeOnly.at(-1).toFixed(0)} ms, ` +
          `fresh sqlite ready ${sqliteFresh.at(-1).readyMs.toFixed(0)} / line ${sqliteFresh.at(-1).lineMs.toFixed(0)} ms, ` +
          `fresh memory ${memFresh.at(-1).readyMs.toFixed(0)} / ${memFresh.at(-1).lineMs.toFixed(0)} ms`,
      );
    }
    // second start: on an existing empty root dir, and on one with 10k objects in 1k logical clusters
    const emptyDir = path.join(fresh('kcpt-bench-restart-'), 'root');
    await timeStart({ rootDir: emptyDir });
    const bigBase = fresh('kcpt-bench-10k-');
    await populate(bigBase, ctx.calibration.pad);
    const bigDir = path.join(bigBase, 'root');
    const restartEmpty = [];
    const restartBig = [];
    for (let i = 0; i < runs; i++) {
      restartEmpty.push(await timeStart({ rootDir: emptyDir }));
      restartBig.push(await timeStart({ rootDir: bigDir }));
      log(
        `  restart ${i + 1}: empty root dir ${restartEmpty.at(-1).readyMs.toFixed(0)} / ${restartEmpty.at(-1).lineMs.toFixed(0)} ms, ` +
          `10k objects ${restartBig.at(-1).readyMs.toFixed(0)} / ${restartBig.at(-1).lineMs.toFixed(0)} ms`,
      );
    }
    const floorMs = median(floor);
    const row = (name, samples, target) => ({
      name,
      unit: 'ms',
      kcpt: median(samples.map((s) => s.readyMs)),
      baseline: floorMs,
      baselineName: 'listen-and-exit floor',
      target,
      runs: { kcpt: samples.map((s) => s.readyMs), baseline: floor },
      extra: { lineMs: median(samples.map((s) => s.lineMs)), nodeOnlyMs: median(nodeOnly) },
    });
    const rows = [
      row('START fresh dir, SQLite -> /readyz', sqliteFresh, { kind: 'max', max: 300 }),
      row('START fresh dir, memory:// -> /readyz', memFresh, { kind: 'max', max: 300 }),
      row('RESTART empty dir, SQLite -> /readyz', restartEmpty, { kind: 'max', max: 300 }),
      row('RESTART 10k objs/1k LCs -> /readyz', restartBig, { kind: 'max', max: 300 }),
    ];
    for (const r of rows) r.note = `ready line ${r.extra.lineMs.toFixed(0)} ms`;
    const growth = rows[3].kcpt - rows[2].kcpt;
    rows[3].extra.growthMs = growth;
    rows[3].note += `; ${growth >= 0 ? '+' : ''}${growth.toFixed(0)} ms vs empty restart`;
    return rows;
  } finally {
    for (const d of dirs) removeDir(d);
  }
}
