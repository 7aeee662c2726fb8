#!/usr/bin/env node
// Server and client CPU per workspace for A/B comparisons of two builds on a shared, noisy box. One run: a fresh
// kcpt of THIS checkout, 100 warm-up workspaces, then --count flat under root and --count in a fan-out-7 tree, 16 in
// flight (the plan and client of bench/workspaces.js), printing one JSON line: ws/s, server CPU (user+sys from
// /proc) and this client's CPU per workspace, for each phase. With --pairs N --other DIR it alternates N runs of
// this checkout's copy and DIR's copy of this file (each in its own process, so client CPU is its own).
//
//   node bench/ws-pairs.js [--count 1500]
//   node bench/ws-pairs.js --pairs 3 --other /path/to/other/checkout [--count 1500]
//   node bench/ws-pairs.js --pairs 3 --bare [--count 1500]   this checkout's kcpt against the bare workspace server
//     (bench/lib/bare-workspaces.js: the least a server must do per workspace; the floor of bench/workspaces.js's rows)
//     in alternating runs, each its own process; one run with --bare alone drives only the bare server
//   --tree-first: the tree phase before the flat one (does the first phase pay the JIT's warm-up?)
//   --http2: the client's requests and watches share one HTTP/2 connection (as client-go's); default HTTP/1.1
//   --wildcard-watch: Ready seen by one watch of every workspace instead of one per parent (workspace-driver.js)
//   --together: each pair runs both sides at once (each its own server and client), so both see the same moment of a
//     shared box's load; alternating runs of ~15 s each saw CPU per workspace swing 2× under other engineers' work
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { client, startKcpt } from './lib/kcpt.js';
import { startBareWorkspaces } from './lib/raw.js';
import { createWorkspaces, flatPlan, treePlan } from './lib/workspace-driver.js';
import { recordWorkspaceSample } from './lib/workspace-sample.js';
import { procCpuMs, removeDir, tempDir } from './lib/util.js';

const { values } = parseArgs({ options: { count: { type: 'string' }, pairs: { type: 'string' }, other: { type: 'string' }, bare: { type: 'boolean' }, 'wildcard-watch': { type: 'boolean' }, 'tree-first': { type: 'boolean' }, http2: { type: 'boolean' }, together: { type: 'boolean' } } });
const count = Number(values.count ?? 1500);
const self = fileURLToPath(import.meta.url);

if (values.pairs) {
  const sides = [
    { name: 'this', script: self, flags: [] },
    values.bare ? { name: 'bare', script: self, flags: ['--bare'] } : { name: 'other', script: path.join(values.other, 'bench', 'ws-pairs.js'), flags: [] },
  ];
  const flags = ['wildcard-watch', 'tree-first', 'http2'].filter((f) => values[f]).map((f) => `--${f}`);
  const argsOf = (side) => [side.script, '--count', String(count), ...flags, ...side.flags];
  const report = (side, pair, out) => console.log(JSON.stringify({ side: side.name, pair, ...JSON.parse(out.trim().split('\n').pop()) }));
  for (let i = 0; i < Number(values.pairs); i++) {
    if (values.together) {
      const outs = await Promise.all(sides.map((side) => promisify(execFile)(process.execPath, argsOf(side), { encoding: 'utf8' })));
      sides.forEach((side, k) => report(side, i + 1, outs[k].stdout));
      continue;
    }
    // Alternate who goes first, so a load trend does not favour one side.
    for (const side of i % 2 === 0 ? sides : [...sides].reverse()) report(side, i + 1, execFileSync(process.execPath, argsOf(side), { encoding: 'utf8' }));
  }
} else {
  const dir = tempDir('kcpt-ws-pairs-');
  // KCPT_NODE_ARGS: extra node flags for the server (e.g. V8 heap settings), space-separated.
  const nodeArgs = (process.env.KCPT_NODE_ARGS ?? '').split(' ').filter(Boolean);
  let server;
  let c;
  if (values.bare) {
    // The sample's throwaway kcpt runs in `dir`; the bare server uses its serving certificate.
    const sampleFile = path.join(dir, 'workspace-sample.json');
    await recordWorkspaceSample(sampleFile, { rootDir: dir });
    const bare = await startBareWorkspaces(path.join(dir, 'root'), sampleFile, { concurrency: 16, http1: !values.http2 });
    server = { ...bare.server, stop: () => bare.stop() };
    c = bare.c;
  } else {
    server = await startKcpt({ rootDir: dir, timeoutMs: 120_000, nodeArgs });
    c = client(server.url, { token: server.token, maxSockets: 20, http2: values.http2 ?? false });
  }
  const agent = new https.Agent({ keepAlive: false, maxSockets: Infinity, rejectUnauthorized: false });
  const common = { server, c, agent, basePath: 'root', concurrency: 16, wildcardWatch: values['wildcard-watch'] ?? false };
  const result = { load: os.loadavg()[0].toFixed(1) };
  try {
    await createWorkspaces({ ...common, prefix: 'w', plan: flatPlan(100) });
    const phases = [['flat', 'f', flatPlan(count)], ['tree', 't', treePlan(count, 7)]];
    if (values['tree-first']) phases.reverse();
    for (const [label, prefix, plan] of phases) {
      const server0 = procCpuMs(server.child.pid);
      const client0 = process.cpuUsage();
      const r = await createWorkspaces({ ...common, prefix, plan });
      const clientUs = process.cpuUsage(client0);
      result[label] = {
        rate: Math.round(r.rate),
        serverUs: Math.round(((procCpuMs(server.child.pid) - server0) * 1000) / r.n),
        clientUs: Math.round((clientUs.user + clientUs.system) / r.n),
      };
    }
  } finally {
    agent.destroy();
    await server.stop();
    removeDir(dir);
  }
  console.log(JSON.stringify(result));
}
