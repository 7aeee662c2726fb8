#!/usr/bin/env node
// A/B of a tree deletion's server CPU per workspace, this checkout against another (`--other DIR`). By default
// in-process: both servers started side by side in ONE process (the other's TypeScript sources run through tsx, each
// its own root directory and SQLite file); each round builds a fan-out-7 tree of --count workspaces under one top
// workspace on each side (not measured), waits for the process to be idle, then deletes the top and polls it until
// it is gone (the top goes last: its LogicalCluster waits for every child).
//
//   node --expose-gc --import tsx bench/ws-delete-pairs.js --other /path/to/other/checkout [--count 700] [--pairs 8] [--together]
//   node bench/ws-delete-pairs.js --servers --other /path/to/other/checkout [--count 1500] [--pairs 4]
//
// --servers: no server in this process; each pair runs both checkouts' `bench/workspaces.js --delete-only` (a fresh
// server each, its CPU from /proc) at the same moment, so both see the same load. On the shared box of 2026-11-29
// this was the steadier of the three (A/A 0.82–1.19 against 0.81–1.34 for --together, but a lever's pairs all on
// one side of 1 far more often; docs/benchmarks.md, perf-del5). Who is spawned first alternates.
//
// Default: the sides delete one after the other (who goes first alternates), each measured as the process's CPU over
// its window, per workspace (it includes the idle side's timers and the poll, one GET every 25 ms: the same on both).
// --together: both trees are deleted at the same time, interleaved on the one event loop, under V8's sampling
// profiler; each sample is the side's whose sources (src/ under its checkout) are nearest the top of its stack, so
// both sides see exactly the same moments of the box's load. Samples of neither (the garbage collector, the
// client, node's HTTP internals) are reported apart, not split.
import { execFile } from 'node:child_process';
import https from 'node:https';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { pathToFileURL } from 'node:url';
import { client } from './lib/kcpt.js';
import { createWorkspaces, singleTopPlan, WS_API } from './lib/workspace-driver.js';
import { median, removeDir, repoDir, sleep, tempDir } from './lib/util.js';

const { values } = parseArgs({ options: { other: { type: 'string' }, count: { type: 'string' }, pairs: { type: 'string' }, together: { type: 'boolean' }, servers: { type: 'boolean' } } });
if (!values.other) throw new Error('--other DIR: the checkout to compare with');
const count = Number(values.count ?? (values.servers ? 1500 : 700));
const pairs = Number(values.pairs ?? 8);
const SAMPLING_US = 200;

/** Waits until the process is idle (under 5 % of a core for 300 ms: the creation's follow-up work done), after a GC. */
async function settle() {
  for (let i = 0; i < 40; i++) {
    globalThis.gc?.();
    const t = process.cpuUsage();
    await sleep(300);
    const d = process.cpuUsage(t);
    if (d.user + d.system < 15_000) return;
  }
}

async function side(name, dir) {
  const sources = pathToFileURL(path.join(dir, 'src')).href + '/';
  const { startServer } = await import(pathToFileURL(path.join(dir, 'src', 'index.ts')).href);
  const root = tempDir(`kcpt-del-pairs-${name}-`);
  const server = await startServer({ rootDirectory: root, securePort: 0, bindAddress: '127.0.0.1', storage: '', log: () => {} });
  const tokenOf = (user) => server.adminKubeconfig.users.find((u) => u.name === user).user.token;
  const token = tokenOf('kcp-admin');
  const c = client(server.url, { token, maxSockets: 20, http2: true });
  const agent = new https.Agent({ keepAlive: false, maxSockets: Infinity, rejectUnauthorized: false });
  const ctx = { server: { url: server.url, token, shardToken: tokenOf('shard-admin') }, c, agent, basePath: 'root', concurrency: 16 };
  let round = 0;
  return {
    name,
    sources,
    /** Builds a tree (not measured); returns the top's name. */
    async build() {
      const top = `d${name.toLowerCase()}${round++}x`;
      await createWorkspaces({ ...ctx, prefix: top, plan: singleTopPlan(count, 7) });
      return `${top}0`;
    },
    /** Deletes the tree under `top` and waits until it is gone; returns the wall seconds. */
    async remove(top) {
      const t0 = performance.now();
      const res = await c.request('DELETE', `/clusters/root${WS_API}/${top}`);
      if (res.status >= 300) throw new Error(`${name}: delete: HTTP ${res.status}`);
      while ((await c.request('GET', `/clusters/root${WS_API}/${top}`)).status !== 404) await sleep(25);
      return (performance.now() - t0) / 1000;
    },
    /** Builds a tree, deletes it; returns the process's CPU µs per workspace and the deletion's wall seconds. */
    async measure() {
      const top = await this.build();
      await settle();
      const cpu = process.cpuUsage();
      const seconds = await this.remove(top);
      const d = process.cpuUsage(cpu);
      return { usPerWs: (d.user + d.system) / count, seconds };
    },
    async close() {
      c.close();
      agent.destroy();
      await server.close();
      removeDir(root);
    },
  };
}

/** Sampled ms of each side's sources in a profile, and of neither. */
function attribute(profile, sides, interval) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const owner = new Map();
  const ownerOf = (id) => {
    if (owner.has(id)) return owner.get(id);
    const url = byId.get(id).callFrame.url;
    const found = sides.find((s) => url.startsWith(s.sources));
    const up = parent.get(id);
    const result = found ? found.name : up === undefined ? 'neither' : ownerOf(up);
    owner.set(id, result);
    return result;
  };
  const ms = { neither: 0, gc: 0 };
  for (const s of sides) ms[s.name] = 0;
  // Samples counted at the interval, not their time deltas: under load a delta also holds the time the thread was
  // descheduled, which would go to whichever side happened to be running.
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = interval / 1000;
    const node = byId.get(profile.samples[i]);
    if (node.callFrame.functionName === '(garbage collector)') ms.gc += dt;
    else if (node.callFrame.functionName !== '(idle)') ms[ownerOf(node.id)] += dt;
  }
  return ms;
}

/** --servers: both checkouts' whole-server deletion benchmark at once, per pair; µs per workspace of each. */
async function serverPairs() {
  const run = (dir) =>
    promisify(execFile)(process.execPath, [path.join(dir, 'bench', 'workspaces.js'), '--delete-only', '--delete-count', String(count), '--runs', '1'], { cwd: dir, maxBuffer: 1 << 24 }).then(({ stdout, stderr }) => {
      const out = `${stdout}\n${stderr}`;
      const line = out.split('\n').find((l) => l.startsWith('delete-only:'));
      const m = line && /([\d.]+) s \/ ([\d,]+) us CPU per ws \/ (\d+) rows left/.exec(line);
      if (!m) throw new Error(`no delete-only figure from ${dir}:\n${out.slice(-500)}`);
      return { seconds: Number(m[1]), usPerWs: Number(m[2].replace(/,/g, '')), rowsLeft: Number(m[3]) };
    });
  const mine = [];
  const theirs = [];
  const ratios = [];
  for (let i = 0; i < pairs; i++) {
    // Who is spawned first alternates: in A/A pairs the first-spawned side paid 0–19 % more (docs/benchmarks.md).
    const [a, b] =
      i % 2 === 0
        ? await Promise.all([run(repoDir), run(path.resolve(values.other))])
        : (await Promise.all([run(path.resolve(values.other)), run(repoDir)])).reverse();
    mine.push(a.usPerWs);
    theirs.push(b.usPerWs);
    ratios.push(a.usPerWs / b.usPerWs);
    console.log(`pair ${i + 1} (${i % 2 === 0 ? 'this' : 'other'} spawned first): this ${a.usPerWs} µs/ws (${a.seconds} s, ${a.rowsLeft} rows left), other ${b.usPerWs} µs/ws (${b.seconds} s, ${b.rowsLeft} rows left), ratio ${ratios[i].toFixed(3)}, load ${os.loadavg()[0].toFixed(1)}`);
  }
  return { mine, theirs, ratios };
}

function report(mine, theirs, ratios) {
  console.log(
    JSON.stringify({
      count,
      pairs,
      mode: values.servers ? 'servers' : values.together ? 'together' : 'alternating',
      thisMedian: Math.round(median(mine)),
      otherMedian: Math.round(median(theirs)),
      medianRatio: Number(median(ratios).toFixed(3)),
      thisCheaper: ratios.filter((r) => r < 1).length,
      thisRange: [Math.round(Math.min(...mine)), Math.round(Math.max(...mine))],
      otherRange: [Math.round(Math.min(...theirs)), Math.round(Math.max(...theirs))],
    }),
  );
}

if (values.servers) {
  const { mine, theirs, ratios } = await serverPairs();
  report(mine, theirs, ratios);
  process.exit(0);
}

const self = await side('A', repoDir);
const other = await side('B', path.resolve(values.other));
const session = new Session();
session.connect();
try {
  const mine = [];
  const theirs = [];
  const ratios = [];
  const round = async (i) => {
    if (!values.together) {
      const order = i % 2 === 0 ? [self, other] : [other, self];
      const got = {};
      for (const s of order) got[s.name] = await s.measure();
      return { a: got.A.usPerWs, b: got.B.usPerWs, note: `${order.map((s) => (s === self ? 'this' : 'other')).join(',')}; ${got.A.seconds.toFixed(2)} s, ${got.B.seconds.toFixed(2)} s` };
    }
    const tops = { A: await self.build(), B: await other.build() };
    await settle();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: SAMPLING_US });
    await session.post('Profiler.start');
    const seconds = await Promise.all([self.remove(tops.A), other.remove(tops.B)]);
    const { profile } = await session.post('Profiler.stop');
    await session.post('Profiler.disable');
    const ms = attribute(profile, [self, other], SAMPLING_US);
    return { a: (ms.A * 1000) / count, b: (ms.B * 1000) / count, note: `together; ${seconds.map((x) => x.toFixed(2)).join(' s, ')} s; GC ${ms.gc.toFixed(0)} ms, neither ${ms.neither.toFixed(0)} ms` };
  };
  await round(0); // warm-up: both sides' JIT
  for (let i = 0; i < pairs; i++) {
    const { a, b, note } = await round(i);
    mine.push(a);
    theirs.push(b);
    ratios.push(a / b);
    console.log(`pair ${i + 1}: this ${a.toFixed(0)} µs/ws, other ${b.toFixed(0)} µs/ws, ratio ${(a / b).toFixed(3)} (${note}), load ${os.loadavg()[0].toFixed(1)}`);
  }
  report(mine, theirs, ratios);
} finally {
  session.disconnect();
  await self.close();
  await other.close();
}
