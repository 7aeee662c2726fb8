#!/usr/bin/env node
// Restart with state: `kcpt start` on a root directory holding --restart-workspaces (100,000) workspaces
// and --restart-objects (1,000,000) stored objects (bench/lib/restart-state.js generates it once through the API
// and caches it under /tmp). Per run (--runs, at least 5; medians), interleaved:
//   - the listen-and-exit floor (bench/listen-and-exit.js, spawn -> exit) and the raw open + count of the same
//     database (bench/raw-open-count.js, spawn -> exit);
//   - kcpt on an empty root directory (restarted): spawn -> /readyz 200, CPU (user+sys) and RSS at that moment;
//   - kcpt on the big root directory: the same, then the first GET into 100 random, cold workspaces (one request
//     at a time on a warmed keep-alive connection), then the same 100 GETs again (warm).
//     The GET is of the workspace's `default` Namespace: every workspace has it, whatever else was generated.
// The empty restart shows what start-up costs without data; the difference is what grows with the data.
// Usage: node bench/restart.js [--runs 5] [--restart-workspaces N] [--restart-objects N] [--partial]
//   (also bench/run.js --only restart); --partial measures a cached state whose generation was interrupted, as it is.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { client, readAdminKubeconfig, runJs } from './lib/kcpt.js';
import { ensureRestartState, restartStateLayout } from './lib/restart-state.js';
import { printTable } from './lib/table.js';
import { readyzOnce, timeProcess } from './startup.js';
import { benchDir, fmtMs, fmtNum, freePort, log, median, percentile, procCpuMs, removeDir, sleep, tempDir, trackChild, waitExit } from './lib/util.js';

const COLD_SAMPLES = 100;

function rssBytes(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

/** A seeded pick of n distinct items (a different sample each run, the same for every build). */
function sample(items, n, seed) {
  let x = seed * 2654435761 + 1;
  const rnd = () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const picked = new Set();
  while (picked.size < Math.min(n, items.length)) picked.add(items[Math.floor(rnd() * items.length)]);
  return [...picked];
}

/** One timed GET on a keep-alive client. */
async function timedGet(c, pathName) {
  const t0 = performance.now();
  const res = await c.request('GET', pathName);
  const ms = performance.now() - t0;
  if (res.status !== 200) throw new Error(`GET ${pathName}: HTTP ${res.status} ${res.body.toString().slice(0, 200)}`);
  return ms;
}

/**
 * Starts kcpt on rootDir at `port` (a user restarts on the same address; on another one the server's Shard and
 * WorkspaceTypes get its new URLs written, a few writes of their own); spawn -> /readyz 200, the process's CPU and RSS at that moment; then, when `gets` is given,
 * each of those paths GET cold then warm. Stops it.
 */
async function restartOnce(rootDir, port, gets = []) {
  const t0 = performance.now();
  const child = trackChild(spawn(process.execPath, [runJs, 'start', '--root-directory', rootDir, '--secure-port', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] }));
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  let readyMs;
  while (performance.now() - t0 < 120_000) {
    if (child.exitCode !== null) throw new Error(`kcpt exited with ${child.exitCode}: ${err}`);
    if ((await readyzOnce(port)) === 200) {
      readyMs = performance.now() - t0;
      break;
    }
    await sleep(2);
  }
  if (readyMs === undefined) throw new Error(`kcpt not ready within 120 s: ${err}`);
  const cpuMs = procCpuMs(child.pid);
  const rss = rssBytes(child.pid);
  const cold = [];
  const warm = [];
  let coldCpuMs = NaN;
  let warmCpuMs = NaN;
  if (gets.length) {
    const { token } = readAdminKubeconfig(rootDir);
    const c = client(`https://127.0.0.1:${port}`, { token, maxSockets: 1 });
    try {
      await timedGet(c, '/version'); // the TLS connection, so a cold GET times the server, not the handshake
      const cpu0 = procCpuMs(child.pid);
      for (const p of gets) cold.push(await timedGet(c, p));
      const cpu1 = procCpuMs(child.pid);
      for (const p of gets) warm.push(await timedGet(c, p));
      coldCpuMs = (cpu1 - cpu0) / gets.length;
      warmCpuMs = (procCpuMs(child.pid) - cpu1) / gets.length;
    } finally {
      c.close();
    }
  }
  const rssAfterGets = rssBytes(child.pid);
  child.kill('SIGTERM');
  await waitExit(child, 15_000);
  return { readyMs, cpuMs, rss, rssAfterGets, cold, warm, coldCpuMs, warmCpuMs };
}

export async function run(ctx) {
  const { workspaces, objects } = ctx.restart;
  const runs = Math.max(5, ctx.startRuns ?? 5);
  const stateDir = await ensureRestartState({ workspaces, objects, partial: ctx.restart.partial });
  const rootDir = path.join(stateDir, 'root');
  const db = path.join(rootDir, 'kcpt.db');
  const [rows, objectRows, events, storedWorkspaces] = execFileSync(process.execPath, [path.join(benchDir, 'raw-open-count.js'), db], { encoding: 'utf8' }).trim().split(' ').map(Number);
  if (storedWorkspaces !== workspaces) throw new Error(`${rootDir} holds ${storedWorkspaces} workspaces, not ${workspaces}`);
  log(`  state: ${fmtNum(workspaces)} workspaces; ${fmtNum(objectRows)} stored objects (${fmtNum(rows)} rows with kcpt's index rows), ${fmtNum(events)} event rows`);
  const { leaves } = restartStateLayout({ workspaces, objects });
  const scratch = tempDir('kcpt-bench-restart-');
  const emptyRoot = path.join(scratch, 'empty');
  try {
    const emptyPort = await freePort();
    const bigPort = await freePort();
    await restartOnce(emptyRoot, emptyPort); // creates the empty root directory (first start) and warms the OS file cache
    await restartOnce(rootDir, bigPort);
    const samples = { floor: [], raw: [], empty: [], big: [] };
    for (let i = 0; i < runs; i++) {
      samples.floor.push(await timeProcess([path.join(benchDir, 'listen-and-exit.js'), path.join(scratch, `floor-${i}.db`), '0']));
      samples.raw.push(await timeProcess([path.join(benchDir, 'raw-open-count.js'), db]));
      samples.empty.push(await restartOnce(emptyRoot, emptyPort));
      const gets = sample(leaves, COLD_SAMPLES, i + 1).map((leaf) => `/clusters/${leaf}/api/v1/namespaces/default`);
      samples.big.push(await restartOnce(rootDir, bigPort, gets));
      const b = samples.big.at(-1);
      log(
        `  run ${i + 1}: floor ${fmtMs(samples.floor.at(-1))}, raw open+count ${fmtMs(samples.raw.at(-1))}, ` +
          `empty ${fmtMs(samples.empty.at(-1).readyMs)} (CPU ${fmtMs(samples.empty.at(-1).cpuMs)}), ` +
          `${fmtNum(workspaces)} ws ${fmtMs(b.readyMs)} (CPU ${fmtMs(b.cpuMs)}, RSS ${fmtNum(b.rss / 2 ** 20, 1)} MiB); ` +
          `cold GET p50 ${fmtMs(median(b.cold))} max ${fmtMs(Math.max(...b.cold))} CPU ${fmtMs(b.coldCpuMs)}, warm p50 ${fmtMs(median(b.warm))} CPU ${fmtMs(b.warmCpuMs)}`,
      );
    }
    const floorMs = median(samples.floor);
    const rawMs = median(samples.raw);
    const pick = (list, k) => list.map((s) => s[k]);
    const cold = samples.big.flatMap((s) => s.cold);
    const warm = samples.big.flatMap((s) => s.warm);
    const label = `${fmtNum(workspaces)} ws / ${fmtNum(objectRows)} objects`; // objects as counted in the db
    const bigReady = median(pick(samples.big, 'readyMs'));
    const emptyReady = median(pick(samples.empty, 'readyMs'));
    const result = [
      {
        name: `RESTART ${label} -> /readyz`,
        unit: 'ms',
        kcpt: bigReady,
        baseline: floorMs,
        baselineName: 'listen-and-exit floor',
        target: { kind: 'max', max: 1000 },
        note: `raw open + count of the same db ${fmtMs(rawMs)}; empty root dir ${fmtMs(emptyReady)}; CPU at ready ${fmtMs(median(pick(samples.big, 'cpuMs')))} vs empty ${fmtMs(median(pick(samples.empty, 'cpuMs')))}`,
        runs: { kcpt: pick(samples.big, 'readyMs'), baseline: samples.floor },
        extra: { rawOpenCountMs: rawMs, rawRuns: samples.raw, emptyReadyMs: emptyReady, emptyRuns: pick(samples.empty, 'readyMs'), cpuMs: pick(samples.big, 'cpuMs'), emptyCpuMs: pick(samples.empty, 'cpuMs'), objectRows, rows, events },
      },
      {
        name: `RESTART ${label}: CPU (user+sys) at ready`,
        unit: 'ms',
        kcpt: median(pick(samples.big, 'cpuMs')),
        baseline: median(pick(samples.empty, 'cpuMs')),
        baselineName: 'kcpt on an empty root dir',
        target: { kind: 'info' },
        note: 'the steadier figure on a shared box; the difference is what start-up spends on the data',
        runs: { kcpt: pick(samples.big, 'cpuMs'), baseline: pick(samples.empty, 'cpuMs') },
      },
      {
        name: `RESTART ${label}: RSS at ready`,
        unit: 'bytes',
        kcpt: median(pick(samples.big, 'rss')),
        baseline: median(pick(samples.empty, 'rss')),
        baselineName: 'kcpt on an empty root dir',
        target: { kind: 'info' },
        note: `after the 200 GETs ${fmtNum(median(pick(samples.big, 'rssAfterGets')) / 2 ** 20, 1)} MiB`,
      },
      {
        name: `RESTART first GET into a cold workspace, p99 (${COLD_SAMPLES} per run)`,
        unit: 'ms',
        kcpt: percentile([...cold], 99),
        baseline: percentile([...warm], 99),
        baselineName: 'the same GETs warm',
        target: { kind: 'max', max: 50 },
        note:
          `cold p50 ${fmtMs(percentile([...cold], 50))} max ${fmtMs(Math.max(...cold))}, server CPU ${fmtMs(median(pick(samples.big, 'coldCpuMs')))}/GET; ` +
          `warm p50 ${fmtMs(percentile([...warm], 50))}, CPU ${fmtMs(median(pick(samples.big, 'warmCpuMs')))}/GET`,
      },
    ];
    return result;
  } finally {
    removeDir(scratch);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '5' },
      'restart-workspaces': { type: 'string', default: '100000' },
      'restart-objects': { type: 'string', default: '1000000' },
      partial: { type: 'boolean', default: false },
    },
  });
  const rows = await run({
    startRuns: Number(values.runs),
    restart: { workspaces: Number(values['restart-workspaces']), objects: Number(values['restart-objects']), partial: values.partial },
  });
  printTable(rows, 'restart with state');
}
