#!/usr/bin/env node
// In-process A/B of tree deletion: this checkout's server and another checkout's (`--other DIR`, its TypeScript
// sources run through tsx) started side by side in ONE process (each its own root directory and SQLite file), so both
// see the same moment of a shared box's load. Each measurement builds a fan-out-7 tree of --count workspaces under one
// top workspace on one side (not measured), collects garbage, then deletes the top and polls it until it is gone
// (the top goes last: its LogicalCluster waits for every child); the process's CPU over that window, per workspace,
// is the side's figure. Sides alternate who goes first; prints each pair and the median ratio (this / other).
//
//   node --expose-gc --import tsx bench/ws-delete-pairs.js --other /path/to/other/checkout [--count 700] [--pairs 8]
//
// The process's CPU includes the idle side's timers and the poll (one GET every 25 ms): the same on both sides.
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { client } from './lib/kcpt.js';
import { createWorkspaces, singleTopPlan, WS_API } from './lib/workspace-driver.js';
import { median, removeDir, repoDir, sleep, tempDir } from './lib/util.js';

const { values } = parseArgs({ options: { other: { type: 'string' }, count: { type: 'string' }, pairs: { type: 'string' } } });
if (!values.other) throw new Error('--other DIR: the checkout to compare with');
const count = Number(values.count ?? 700);
const pairs = Number(values.pairs ?? 8);

async function side(name, dir) {
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
    /** Builds a tree, deletes it; returns server CPU µs per workspace and the deletion's wall seconds. */
    async measure() {
      const top = `d${name.toLowerCase()}${round++}x`;
      await createWorkspaces({ ...ctx, prefix: top, plan: singleTopPlan(count, 7) });
      globalThis.gc?.();
      await sleep(200);
      const t0 = performance.now();
      const cpu = process.cpuUsage();
      const res = await c.request('DELETE', `/clusters/root${WS_API}/${top}0`);
      if (res.status >= 300) throw new Error(`${name}: delete: HTTP ${res.status}`);
      while ((await c.request('GET', `/clusters/root${WS_API}/${top}0`)).status !== 404) await sleep(25);
      const d = process.cpuUsage(cpu);
      return { usPerWs: (d.user + d.system) / count, seconds: (performance.now() - t0) / 1000 };
    },
    async close() {
      c.close();
      agent.destroy();
      await server.close();
      removeDir(root);
    },
  };
}

const self = await side('A', repoDir);
const other = await side('B', path.resolve(values.other));
try {
  // Warm-up: both sides' JIT.
  await self.measure();
  await other.measure();
  const ratios = [];
  const mine = [];
  const theirs = [];
  for (let i = 0; i < pairs; i++) {
    const order = i % 2 === 0 ? [self, other] : [other, self];
    const got = {};
    for (const s of order) got[s.name] = await s.measure();
    mine.push(got.A.usPerWs);
    theirs.push(got.B.usPerWs);
    ratios.push(got.A.usPerWs / got.B.usPerWs);
    console.log(
      `pair ${i + 1} (${order.map((s) => (s === self ? 'this' : 'other')).join(',')}): this ${got.A.usPerWs.toFixed(0)} µs/ws (${got.A.seconds.toFixed(2)} s), other ${got.B.usPerWs.toFixed(0)} µs/ws (${got.B.seconds.toFixed(2)} s), ratio ${ratios[i].toFixed(3)}, load ${os.loadavg()[0].toFixed(1)}`,
    );
  }
  console.log(
    JSON.stringify({
      count,
      pairs,
      thisMedian: Math.round(median(mine)),
      otherMedian: Math.round(median(theirs)),
      medianRatio: Number(median(ratios).toFixed(3)),
      thisCheaper: ratios.filter((r) => r < 1).length,
      thisRange: [Math.round(Math.min(...mine)), Math.round(Math.max(...mine))],
      otherRange: [Math.round(Math.min(...theirs)), Math.round(Math.max(...theirs))],
    }),
  );
} finally {
  await self.close();
  await other.close();
}
