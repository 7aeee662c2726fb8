#!/usr/bin/env node
// The one-million-workspace goal measured at a real count, in a root directory kept between runs (a million takes
// about an hour of one core, so creation resumes where it stopped and the measurements run on their own):
//
//   node bench/million.js create --dir D [--target 1000000] [--chunk 20000] [--fanout 7] [--concurrency 32]
//                                [--until ISO-TIME] [--rest S] [--entry path/to/bin/run.js]
//     starts kcpt (with bench/lib/server-hook.js) on D/root and adds fan-out trees of --chunk workspaces under root
//     through the API (POST, one HTTP/2 connection, Ready seen by one wildcard watch), until --target workspaces
//     exist or --until has passed; every chunk logs its rate, the server's CPU per workspace and RSS after a full
//     GC. At the end every watch is closed, the server rests --rest seconds (default 60) and is GC'd: RSS / count.
//     Chunks done are recorded in D/million.json, so a second run continues with the next chunk (its names carry the
//     run's number: a chunk cut short by a stop left workspaces the next run must not collide with). A file D/stop
//     ends the run after the current chunk.
//   node bench/million.js measure --dir D [--restarts 5] [--compact] [--entry …]
//     with the server stopped: the database's bytes and rows per workspace, then (--compact) again after a start
//     that compacts the whole watch history away, then --restarts restarts → /readyz (median, and the server's CPU at
//     ready), interleaved with restarts of an empty root directory.
//   node bench/million.js rss --dir D [--rest S]   starts the server on D, rests, GCs, reads RSS / count (and records
//     the count, which `measure` then divides by).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { client, runJs, startHooked, startKcpt } from './lib/kcpt.js';
import { collectionCount, createWorkspaces, treePlan, WS_API } from './lib/workspace-driver.js';
import { fmtNum, log, median, procCpuMs, removeDir, sleep, tempDir } from './lib/util.js';
import { timeStart } from './startup.js';
import { compactWatchHistory, dbStats } from './workspaces.js';

const MiB = 2 ** 20;
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');

function procMemory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kib('VmRSS'), anon: kib('RssAnon'), file: kib('RssFile') };
}

const stateFile = (dir) => path.join(dir, 'million.json');
const readState = (dir) => (existsSync(stateFile(dir)) ? JSON.parse(readFileSync(stateFile(dir), 'utf8')) : { chunks: [], readings: [] });
const writeState = (dir, s) => writeFileSync(stateFile(dir), JSON.stringify(s, null, 2));

/** Every workspace of the shard (a one-item wildcard LIST as shard-admin). */
async function countWorkspaces(server) {
  const admin = client(server.url, { token: server.shardToken, http2: true });
  try {
    return await collectionCount(admin, `/clusters/*${WS_API}`);
  } finally {
    admin.close();
  }
}

/** RSS after the server rested `restSeconds` and ran full GCs. */
async function restingRss(server, count, restSeconds) {
  await sleep(restSeconds * 1000);
  const mu = await server.hook('gc');
  const pm = procMemory(server.child.pid);
  const r = { at: new Date().toISOString(), count, restSeconds, ...pm, heapUsed: mu.heapUsed, heapTotal: mu.heapTotal, external: mu.external, load: load() };
  log(`  at rest (${restSeconds} s) after GC, ${fmtNum(count)} workspaces: RSS ${fmtNum(pm.rss / MiB, 1)} MiB = ${fmtNum(pm.rss / count)} B per workspace (anon ${fmtNum(pm.anon / MiB, 1)}, file ${fmtNum(pm.file / MiB, 1)} MiB); V8 used ${fmtNum(mu.heapUsed / MiB, 1)} / committed ${fmtNum(mu.heapTotal / MiB, 1)} MiB; load ${r.load}`);
  return r;
}

async function create(o) {
  const state = readState(o.dir);
  const run = (state.runs ?? 0) + 1;
  state.runs = run;
  writeState(o.dir, state);
  const stopFile = path.join(o.dir, 'stop');
  const server = await startHooked({ rootDir: o.dir, entry: o.entry, timeoutMs: 600_000 });
  const c = client(server.url, { token: server.token, http2: true });
  try {
    let total = await countWorkspaces(server);
    log(`  ${fmtNum(total)} workspaces at start (${state.chunks.length} chunks done); load ${load()}`);
    while (total < o.target && Date.now() < o.until && !existsSync(stopFile)) {
      const k = state.chunks.length;
      const prefix = `r${run}c${k}x`;
      const n = Math.min(o.chunk, o.target - total);
      const cpu0 = procCpuMs(server.child.pid);
      const r = await createWorkspaces({ server, c, basePath: 'root', prefix, plan: treePlan(n, o.fanout), concurrency: o.concurrency, wildcardWatch: true });
      const cpuUs = ((procCpuMs(server.child.pid) - cpu0) * 1000) / n;
      total += n;
      const mu = await server.hook('gc');
      const pm = procMemory(server.child.pid);
      const chunk = { k, run, prefix, n, total, rate: r.rate, seconds: r.seconds, cpuUsPerWs: cpuUs, rssAfterGc: pm.rss, heapUsed: mu.heapUsed, load: load(), at: new Date().toISOString() };
      state.chunks.push(chunk);
      writeState(o.dir, state);
      log(`  chunk ${k}: +${fmtNum(n)} → ${fmtNum(total)}: ${fmtNum(r.rate)} ws/s, server CPU ${fmtNum(cpuUs)} us/ws; RSS after GC ${fmtNum(pm.rss / MiB, 1)} MiB (V8 used ${fmtNum(mu.heapUsed / MiB, 1)}); load ${chunk.load}`);
    }
    c.close();
    total = await countWorkspaces(server);
    state.readings.push({ kind: 'after-create', ...(await restingRss(server, total, o.rest)) });
    writeState(o.dir, state);
  } finally {
    c.close();
    await server.stop();
  }
}

async function rss(o) {
  const state = readState(o.dir);
  const server = await startHooked({ rootDir: o.dir, entry: o.entry, timeoutMs: 600_000 });
  try {
    const total = await countWorkspaces(server);
    state.readings.push({ kind: 'after-restart', ...(await restingRss(server, total, o.rest)) });
    writeState(o.dir, state);
  } finally {
    await server.stop();
  }
}

async function measure(o) {
  const state = readState(o.dir);
  // The newest count a live server answered (a run stopped mid-chunk leaves more than the chunks recorded).
  const count = Math.max(state.chunks.at(-1)?.total ?? 0, ...state.readings.map((r) => r.count));
  if (!count) throw new Error(`no chunks or readings recorded in ${stateFile(o.dir)}`);
  const disk = dbStats(o.dir);
  const m = { at: new Date().toISOString(), count, load: load(), disk: { bytes: disk.bytes, liveBytes: disk.liveBytes, objects: disk.objects, events: disk.events } };
  log(`  database: ${fmtNum(disk.bytes / 1024 / count, 2)} KiB per workspace (live pages ${fmtNum(disk.liveBytes / 1024 / count, 2)}); ${fmtNum(disk.objects)} rows (${fmtNum(disk.objects / count, 2)} per workspace), ${fmtNum(disk.events)} logged events`);
  if (o.compact) {
    const seconds = await compactWatchHistory(o.dir, { entry: o.entry });
    const d = dbStats(o.dir);
    m.compacted = { seconds, bytes: d.bytes, liveBytes: d.liveBytes, objects: d.objects, objectBytes: d.objectBytes, events: d.events };
    log(`  after the watch history is compacted (${seconds.toFixed(0)} s): ${fmtNum(d.bytes / 1024 / count, 2)} KiB per workspace (live pages ${fmtNum(d.liveBytes / 1024 / count, 2)} KiB; rows ${fmtNum(d.objectBytes / count)} B, ${fmtNum(d.events)} events left)`);
  }
  if (o.restarts > 0) {
    const emptyDir = tempDir('kcpt-bench-million-empty-');
    await (await startKcpt({ rootDir: emptyDir, entry: o.entry, timeoutMs: 120_000 })).stop();
    const runs = [];
    const empty = [];
    for (let i = 0; i < o.restarts; i++) {
      empty.push(await timeStart({ rootDir: path.join(emptyDir, 'root'), entry: o.entry, timeoutMs: 600_000 }));
      runs.push(await timeStart({ rootDir: path.join(o.dir, 'root'), entry: o.entry, timeoutMs: 600_000 }));
      log(`  restart ${i + 1}: ${runs.at(-1).readyMs.toFixed(0)} ms (CPU ${runs.at(-1).cpuMs.toFixed(0)} ms); empty root directory ${empty.at(-1).readyMs.toFixed(0)} ms (CPU ${empty.at(-1).cpuMs.toFixed(0)} ms); load ${load()}`);
    }
    removeDir(emptyDir);
    m.restarts = { runs, empty, medianMs: median(runs.map((r) => r.readyMs)), medianCpuMs: median(runs.map((r) => r.cpuMs)), emptyMedianMs: median(empty.map((r) => r.readyMs)), emptyMedianCpuMs: median(empty.map((r) => r.cpuMs)) };
    log(`  restart → /readyz with ${fmtNum(count)} workspaces: median ${m.restarts.medianMs.toFixed(0)} ms (CPU ${m.restarts.medianCpuMs.toFixed(0)} ms); empty root directory: ${m.restarts.emptyMedianMs.toFixed(0)} ms (CPU ${m.restarts.emptyMedianCpuMs.toFixed(0)} ms)`);
  }
  m.entry = o.entry;
  state.measurements = [...(state.measurements ?? []), m];
  writeState(o.dir, state);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      dir: { type: 'string' },
      target: { type: 'string', default: '1000000' },
      chunk: { type: 'string', default: '20000' },
      fanout: { type: 'string', default: '7' },
      concurrency: { type: 'string', default: '32' },
      until: { type: 'string' },
      rest: { type: 'string', default: '60' },
      restarts: { type: 'string', default: '5' },
      compact: { type: 'boolean', default: false },
      entry: { type: 'string', default: runJs },
    },
  });
  const [command] = positionals;
  if (!values.dir || !['create', 'measure', 'rss'].includes(command)) {
    log('usage: node bench/million.js create|measure|rss --dir D [options] (see the head of this file)');
    process.exit(2);
  }
  const o = {
    dir: path.resolve(values.dir),
    target: Number(values.target),
    chunk: Number(values.chunk),
    fanout: Number(values.fanout),
    concurrency: Number(values.concurrency),
    until: values.until ? Date.parse(values.until) : Infinity,
    rest: Number(values.rest),
    restarts: Number(values.restarts),
    compact: values.compact,
    entry: path.resolve(values.entry),
  };
  log(`kcpt at a million workspaces: ${command} - ${new Date().toISOString()}, load average ${load()}, entry ${o.entry}`);
  await { create, measure, rss }[command](o);
  process.exit(0);
}
