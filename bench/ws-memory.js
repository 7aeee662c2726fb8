#!/usr/bin/env node
// What stays resident as workspaces accumulate: one kcpt (with bench/lib/server-hook.js) gets fan-out-7 trees of
// workspaces under root until each --steps total is reached; at each step every watch is closed, the server GCs and
// the bench records its RSS split by kind (/proc/<pid>/status: anonymous memory vs mapped files), V8's committed and
// used heap per space, and with --snapshots a heap snapshot summarised by constructor. The slope between two steps
// is what one more workspace costs; what is left over at the first step is the fixed part. Then the server is
// stopped, the database's rows and bytes per workspace read (--compact: again after a start that compacts the
// whole watch history away), and --restarts restarts timed to /readyz. --keep leaves the root directory.
//
//   node bench/ws-memory.js [--steps 2000,10000,50000] [--fanout 7] [--concurrency 16] [--snapshots]
//                           [--restarts N] [--compact] [--keep]
//                           [--idle S: seconds the server idles after each step before it is measured; default 1]
//                           [--node-arg=--max-semi-space-size=1 ...] [--kcpt-arg=--flag ...] [--json FILE]
//   (environment such as MALLOC_ARENA_MAX is passed through to kcpt; restarts alternate with restarts of an empty root
//    directory, and report the server's CPU at ready beside the wall clock)
import { readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { client, startHooked, startKcpt } from './lib/kcpt.js';
import { createWorkspaces, treePlan } from './lib/workspace-driver.js';
import { fmtNum, log, median, procCpuMs, removeDir, sleep, tempDir } from './lib/util.js';
import { timeStart } from './startup.js';
import { compactWatchHistory, dbStats } from './workspaces.js';

const MiB = 2 ** 20;

/** VmRSS and its anonymous / file / shared-memory parts, in bytes. */
function procMemory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kib('VmRSS'), anon: kib('RssAnon'), file: kib('RssFile'), shmem: kib('RssShmem') };
}

/**
 * A V8 heap snapshot file summarised: self size by constructor (objects, closures) or node type (strings, code,
 * arrays…), and the strings it holds with what retains each (`<owner type>:<owner name>.<edge>`), so that two
 * snapshots show which strings are new and who keeps them.
 */
function summarizeSnapshot(file) {
  const snap = JSON.parse(readFileSync(file, 'utf8'));
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const edgeFields = snap.snapshot.meta.edge_fields;
  const edgeTypes = snap.snapshot.meta.edge_types[0];
  const width = fields.length;
  const eWidth = edgeFields.length;
  const iType = fields.indexOf('type');
  const iName = fields.indexOf('name');
  const iSize = fields.indexOf('self_size');
  const iEdges = fields.indexOf('edge_count');
  const byKey = new Map();
  const nodes = snap.nodes;
  const edges = snap.edges;
  const keyOf = (i) => {
    const type = types[nodes[i + iType]];
    return type === 'object' || type === 'closure' ? `${type}:${snap.strings[nodes[i + iName]]}` : type;
  };
  for (let i = 0; i < nodes.length; i += width) {
    const key = keyOf(i);
    const e = byKey.get(key) ?? { count: 0, bytes: 0 };
    e.count++;
    e.bytes += nodes[i + iSize];
    byKey.set(key, e);
  }
  // string value -> one retainer, found by walking every edge once
  const strings = new Map();
  let edge = 0;
  for (let i = 0; i < nodes.length; i += width) {
    const n = nodes[i + iEdges];
    for (let k = 0; k < n; k++, edge += eWidth) {
      const to = edges[edge + 2];
      if (types[nodes[to + iType]] !== 'string') continue;
      const value = snap.strings[nodes[to + iName]];
      if (strings.has(value)) continue;
      const eType = edgeTypes[edges[edge]];
      const eName = eType === 'element' || eType === 'hidden' ? `[${edges[edge + 1]}]` : snap.strings[edges[edge + 1]];
      strings.set(value, `${keyOf(i)}.${eName}`);
    }
  }
  return { byKey, strings };
}

function diffSummaries(sa, sb, top = 15) {
  const a = sa.byKey;
  const b = sb.byKey;
  const keys = new Set([...a.keys(), ...b.keys()]);
  const rows = [];
  for (const k of keys) {
    const x = a.get(k) ?? { count: 0, bytes: 0 };
    const y = b.get(k) ?? { count: 0, bytes: 0 };
    rows.push({ key: k, dCount: y.count - x.count, dBytes: y.bytes - x.bytes });
  }
  return rows.sort((p, q) => Math.abs(q.dBytes) - Math.abs(p.dBytes)).slice(0, top);
}

export async function runWsMemory(o) {
  const dir = tempDir('kcpt-bench-wsmem-');
  const agent = new https.Agent({ keepAlive: false, maxSockets: Infinity, rejectUnauthorized: false });
  const server = await startHooked({ rootDir: dir, nodeArgs: o.nodeArgs, extraArgs: o.kcptArgs, timeoutMs: 120_000 });
  const c = client(server.url, { token: server.token, maxSockets: o.concurrency + 4, http2: true });
  const points = [];
  const summaries = [];
  const measure = async (count) => {
    await sleep(count === 0 ? 1000 : o.idleSeconds * 1000);
    const mu = await server.hook('gc');
    const hs = await server.hook('heap-spaces');
    const pm = procMemory(server.child.pid);
    const spaces = Object.fromEntries(hs.spaces.map((s) => [s.space_name, { size: s.space_size, used: s.space_used_size }]));
    const p = { count, ...pm, heapTotal: mu.heapTotal, heapUsed: mu.heapUsed, external: mu.external, arrayBuffers: mu.arrayBuffers, mallocedMemory: hs.heap.malloced_memory, spaces };
    if (o.snapshots) {
      const file = path.join(dir, `snap-${count}.heapsnapshot`);
      await server.hook(`heap-snapshot ${file}`, 600_000);
      summaries.push(summarizeSnapshot(file));
      removeDir(file);
    }
    points.push(p);
    log(`  ${fmtNum(count)} workspaces, after GC: RSS ${fmtNum(p.rss / MiB, 1)} MiB (anon ${fmtNum(p.anon / MiB, 1)}, file ${fmtNum(p.file / MiB, 1)}), V8 committed ${fmtNum(p.heapTotal / MiB, 1)} / used ${fmtNum(p.heapUsed / MiB, 1)} MiB, external ${fmtNum(p.external / MiB, 1)} MiB, V8 malloced ${fmtNum(p.mallocedMemory / MiB, 1)} MiB`);
    log(`    spaces (committed/used MiB): ${Object.entries(spaces).map(([k, v]) => `${k.replace('_space', '')} ${fmtNum(v.size / MiB, 1)}/${fmtNum(v.used / MiB, 1)}`).join(', ')}`);
  };
  try {
    await measure(0);
    let total = 0;
    for (const [k, step] of o.steps.entries()) {
      const n = step - total;
      const cpu0 = procCpuMs(server.child.pid);
      const r = await createWorkspaces({ server, c, agent, basePath: 'root', prefix: `m${k}x`, plan: treePlan(n, o.fanout), concurrency: o.concurrency, wildcardWatch: true });
      total = step;
      log(`  +${fmtNum(n)} (tree under root): ${fmtNum(r.rate)} ws/s, server CPU ${fmtNum(((procCpuMs(server.child.pid) - cpu0) * 1000) / n)} us per workspace`);
      await measure(total);
    }
  } finally {
    c.close();
    agent.destroy();
    await server.stop();
  }
  const count = points.at(-1).count;
  const disk = dbStats(dir);
  log(`  database after creation: ${fmtNum(disk.bytes / 1024 / count, 2)} KiB per workspace; ${fmtNum(disk.objects)} rows (${fmtNum(disk.objects / count, 2)} per workspace), ${fmtNum(disk.events)} logged events`);
  let compacted;
  if (o.compact) {
    const seconds = await compactWatchHistory(dir);
    compacted = dbStats(dir);
    log(`  database after the watch history is compacted (${seconds.toFixed(0)} s): ${fmtNum(compacted.bytes / 1024 / count, 2)} KiB per workspace (live pages ${fmtNum(compacted.liveBytes / 1024 / count, 2)} KiB; rows ${fmtNum(compacted.objectBytes / count)} B, ${fmtNum(compacted.events)} events left)`);
  }
  // Interleaved with restarts of an empty root directory (started once before): on a loaded box the wall clock
  // says little, the server's CPU at ready (user + sys) what start-up spends on the count.
  const restarts = [];
  const emptyRestarts = [];
  if (o.restarts > 0) {
    const emptyDir = tempDir('kcpt-bench-wsmem-empty-');
    await (await startKcpt({ rootDir: emptyDir, timeoutMs: 120_000 })).stop();
    for (let i = 0; i < o.restarts; i++) {
      emptyRestarts.push(await timeStart({ rootDir: path.join(emptyDir, 'root'), timeoutMs: 120_000 }));
      restarts.push(await timeStart({ rootDir: path.join(dir, 'root'), timeoutMs: 120_000 }));
    }
    removeDir(emptyDir);
  }
  const fmtRuns = (runs) => runs.map((r) => `${r.readyMs.toFixed(0)} ms (CPU ${r.cpuMs.toFixed(0)} ms)`).join(', ');
  if (restarts.length) log(`  restart -> /readyz with ${fmtNum(count)} workspaces: ${fmtRuns(restarts)}; the same server on an empty root directory: ${fmtRuns(emptyRestarts)}`);
  const first = points[1];
  const last = points.at(-1);
  const slope = (key) => (last[key] - first[key]) / (last.count - first.count);
  const result = {
    options: o,
    points,
    slopeRss: slope('rss'),
    slopeAnon: slope('anon'),
    slopeHeapUsed: slope('heapUsed'),
    slopeHeapTotal: slope('heapTotal'),
    diskPerWs: disk.bytes / count,
    rowsPerWs: disk.objects / count,
    diskPerWsCompacted: compacted ? compacted.bytes / count : undefined,
    livePerWsCompacted: compacted ? compacted.liveBytes / count : undefined,
    restartMs: restarts.length ? median(restarts.map((r) => r.readyMs)) : undefined,
    restartCpuMs: restarts.length ? median(restarts.map((r) => r.cpuMs)) : undefined,
    emptyRestartMs: emptyRestarts.length ? median(emptyRestarts.map((r) => r.readyMs)) : undefined,
    emptyRestartCpuMs: emptyRestarts.length ? median(emptyRestarts.map((r) => r.cpuMs)) : undefined,
    loadavg: os.loadavg().map((x) => x.toFixed(2)).join(' '),
  };
  if (points.length >= 3) {
    log(`  slope ${fmtNum(first.count)} -> ${fmtNum(last.count)}: RSS ${fmtNum(result.slopeRss)} B/ws (anon ${fmtNum(result.slopeAnon)}), V8 used ${fmtNum(result.slopeHeapUsed)} B/ws, committed ${fmtNum(result.slopeHeapTotal)} B/ws`);
    const fixed = last.rss - result.slopeRss * last.count;
    result.projectedRssPerWsAt1M = (fixed + Math.max(0, result.slopeRss) * 1e6) / 1e6;
    log(`  projected to 1,000,000: fixed ${fmtNum(fixed / MiB, 1)} MiB + ${fmtNum(Math.max(0, result.slopeRss))} B/ws = ${fmtNum(result.projectedRssPerWsAt1M)} B per workspace (total RSS / count)`);
  }
  if (summaries.length >= 3) {
    result.heapGrowth = diffSummaries(summaries[1], summaries.at(-1));
    log(`  heap growth by constructor, ${fmtNum(first.count)} -> ${fmtNum(last.count)} workspaces (self bytes, count):`);
    for (const r of result.heapGrowth) log(`    ${r.key.padEnd(48)} ${fmtNum(r.dBytes).padStart(12)} B ${fmtNum(r.dCount).padStart(9)}`);
    const before = summaries[1].strings;
    const byRetainer = new Map();
    for (const [value, retainer] of summaries.at(-1).strings) {
      if (before.has(value)) continue;
      const e = byRetainer.get(retainer) ?? { count: 0, samples: [] };
      e.count++;
      if (e.samples.length < 3) e.samples.push(value.slice(0, 60));
      byRetainer.set(retainer, e);
    }
    result.newStrings = [...byRetainer].sort((x, y) => y[1].count - x[1].count).slice(0, 12);
    log(`  strings new at ${fmtNum(last.count)}, by what retains them:`);
    for (const [retainer, e] of result.newStrings) log(`    ${fmtNum(e.count).padStart(7)}  ${retainer}  e.g. ${e.samples.map((x) => JSON.stringify(x)).join(', ')}`);
  }
  if (o.keep) log(`  root directory kept: ${dir}`);
  else removeDir(dir);
  return result;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      steps: { type: 'string', default: '2000,10000,50000' },
      fanout: { type: 'string', default: '7' },
      concurrency: { type: 'string', default: '16' },
      snapshots: { type: 'boolean', default: false },
      'node-arg': { type: 'string', multiple: true, default: [] },
      'kcpt-arg': { type: 'string', multiple: true, default: [] },
      json: { type: 'string' },
      restarts: { type: 'string', default: '0' },
      keep: { type: 'boolean', default: false },
      compact: { type: 'boolean', default: false },
      idle: { type: 'string', default: '1' },
    },
  });
  const o = {
    steps: values.steps.split(',').map(Number),
    fanout: Number(values.fanout),
    concurrency: Number(values.concurrency),
    snapshots: values.snapshots,
    nodeArgs: values['node-arg'],
    kcptArgs: values['kcpt-arg'],
    restarts: Number(values.restarts),
    keep: values.keep,
    compact: values.compact,
    idleSeconds: Number(values.idle),
  };
  log(`kcpt workspace memory by count - ${new Date().toISOString()}, load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}; server node args [${o.nodeArgs.join(' ')}], MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX ?? '-'}`);
  const r = await runWsMemory(o);
  if (values.json) writeFileSync(values.json, JSON.stringify(r, null, 2));
  process.exit(0);
}
