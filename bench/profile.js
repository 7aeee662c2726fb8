#!/usr/bin/env node
// Where does kcpt's time go? Starts kcpt under `node --cpu-prof`, drives one benchmark's load at it, stops it
// (SIGTERM, so V8 writes the profile) and prints the top self-time frames, the time per module and the top frames by
// total time (with their callees); engine-bundle frames are named by their TypeScript source via the source map.
//
//   node bench/profile.js [get|get-h2|list|create|watch|startup|ws-create|ws-create-flat|ws-delete ...] [--duration S] [--top N] [--keep]
//   (startup: one start on a fresh root directory, stopped as soon as it printed its ready line; with --root-dir D a
//    restart of the server kept in D (its root directory is D/root, as bench/million.js and --keep leave it), D kept)
//   (ws-create: [--warmup N untimed flat ones first] [--http1: a pool of HTTP/1.1 connections, not one HTTP/2 one] --ws-count workspaces (default 3000) in a fan-out-7 tree under root, 16 in flight, each waited for
//    until a watch sees it Ready; ws-create-flat: as many directly under root; ws-delete: such a tree under one top workspace, then the top deleted and waited
//    for. Both profile only that phase, through bench/lib/server-hook.js, not the start-up or the tree's creation.
//    --bare: ws-create and ws-create-flat profile the bare workspace server instead (bench/lib/bare-workspaces.js,
//    with the rows of one workspace of a throwaway kcpt), under the same driver, for a side-by-side reading.)
//   (also reached with `npm run bench -- --profile`, which profiles get, list and create)
//
// Profiles are written to a temp dir and deleted unless --keep is given (then open them in Chrome DevTools).
import { readdirSync, readFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { SourceMap } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { client, ensureNamespace, hookLaunch, hookOf, parallel, startHooked, startKcpt } from './lib/kcpt.js';
import { startBareWorkspaces } from './lib/raw.js';
import { recordWorkspaceSample } from './lib/workspace-sample.js';
import { createWorkspaces, flatPlan, singleTopPlan, treePlan, WS_API } from './lib/workspace-driver.js';
import { findWrk, runH2, runNodeLoad, runWrk, wrkPostScript } from './lib/load.js';
import { configMap } from './lib/payload.js';
import { log, removeDir, repoDir, sleep, tempDir } from './lib/util.js';

/**
 * Folds a .cpuprofile into {total, byFrame, byModule} (self time in ms) and {totalByFrame, totalByModule} (time with
 * everything called from there, each frame counted once per sample). Frames of the engine bundle are named by their
 * TypeScript source through the bundle's source map, so `create src/engine/registry/generic-store.ts:174` rather
 * than a line of the one-line bundle.
 */
export function summarise(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map();
  const deltas = profile.timeDeltas;
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = (deltas[i + 1] ?? deltas[i] ?? 0) / 1000;
    self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + dt);
  }
  const names = new Map();
  const nameOf = (id) => {
    let named = names.get(id);
    if (!named) names.set(id, (named = frameName(byId.get(id).callFrame)));
    return named;
  };
  const byFrame = new Map();
  const byModule = new Map();
  const totalByFrame = new Map();
  const totalByModule = new Map();
  const add = (m, k, ms) => m.set(k, (m.get(k) ?? 0) + ms);
  let total = 0;
  for (const [id, ms] of self) {
    total += ms;
    const { frame, module } = nameOf(id);
    add(byFrame, frame, ms);
    add(byModule, module, ms);
    const frames = new Set();
    const modules = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const named = nameOf(at);
      frames.add(named.frame);
      modules.add(named.module);
    }
    for (const f of frames) add(totalByFrame, f, ms);
    for (const m of modules) add(totalByModule, m, ms);
  }
  const sorted = (m) => [...m].sort((a, b) => b[1] - a[1]);
  return { total, byFrame: sorted(byFrame), byModule: sorted(byModule), totalByFrame: sorted(totalByFrame), totalByModule: sorted(totalByModule) };
}

/** Source maps of bundles, by URL (null: none). */
const sourceMaps = new Map();

function sourceMapOf(url) {
  if (!sourceMaps.has(url)) {
    let map = null;
    try {
      map = new SourceMap(JSON.parse(readFileSync(`${fileURLToPath(url)}.map`, 'utf8')));
    } catch {
      // no map beside it: frames keep the bundle's positions
    }
    sourceMaps.set(url, map);
  }
  return sourceMaps.get(url);
}

export function frameName(f) {
  const name = f.functionName || '(anonymous)';
  const url = f.url ?? '';
  const entry = url.startsWith('file:') ? sourceMapOf(url)?.findEntry(f.lineNumber, f.columnNumber) : undefined;
  if (entry?.originalSource) {
    const source = entry.originalSource.replace(/^.*?\/(src|node_modules)\//, (_, dir) => (dir === 'src' ? 'src/' : 'npm:'));
    return { frame: `${name} ${source}:${entry.originalLine + 1}`, module: source.startsWith('npm:') ? source.split('/')[0] : source };
  }
  // Packages as the bundle's source map names them (npm:fastify/lib/…), so a bundled and an unbundled process's
  // frames of one package compare (bench/get-frames.js).
  const file = url ? url.replace(pathToFileURL(repoDir).href + '/', '').replace(/^.*\/node_modules\//, 'npm:').replace(/^node_modules\//, 'npm:') : '';
  return { frame: `${name} ${file ? `${file}:${f.lineNumber + 1}` : ''}`.trim(), module: moduleOf(f) };
}

function moduleOf(f) {
  const url = f.url ?? '';
  if (!url) return f.functionName.startsWith('(') ? f.functionName : '(native / V8 builtins)';
  if (url.startsWith('node:')) return url.split('/').slice(0, 2).join('/');
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return `npm:${rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  const rel = url.replace(pathToFileURL(repoDir).href + '/', '');
  return rel.split('/').slice(0, 4).join('/');
}

export function printSummary(label, s, top = 15) {
  const pct = (ms) => `${((ms / s.total) * 100).toFixed(1).padStart(5)} %`;
  const lines = [`\n-- ${label}: ${(s.total / 1000).toFixed(1)} s of samples; top self time by module --`];
  for (const [m, ms] of s.byModule.slice(0, 12)) lines.push(`  ${pct(ms)}  ${m}`);
  lines.push(`-- top ${top} frames by self time --`);
  for (const [f, ms] of s.byFrame.slice(0, top)) lines.push(`  ${pct(ms)}  ${f}`);
  lines.push(`-- top ${top} frames by total time (with what they call) --`);
  for (const [f, ms] of s.totalByFrame.slice(0, top)) lines.push(`  ${pct(ms)}  ${f}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function drive(kind, server, { durationS, useWrk, pad }) {
  const c = client(server.url, { token: server.token });
  const headers = { Authorization: `Bearer ${server.token}`, Accept: 'application/json' };
  const base = '/clusters/root/api/v1/namespaces';
  try {
    if (kind === 'startup') return { rps: NaN };
    if (kind === 'get' || kind === 'get-h2') {
      await c.request('POST', `${base}/default/configmaps`, configMap('bench-get', 'default', pad));
      const opts = { url: `${server.url}${base}/default/configmaps/bench-get`, connections: 8, durationS, headers };
      // get-h2: one HTTP/2 connection with 8 streams in flight, as the GET benchmark's HTTP/2 row
      if (kind === 'get-h2') return runH2({ ...opts, connections: 1, streams: 8, useTool: useWrk });
      return useWrk ? runWrk(opts) : runNodeLoad(opts);
    }
    if (kind === 'list') {
      await ensureNamespace(c, 'bench-list');
      const names = Array.from({ length: 1000 }, (_, i) => `list-${i}`);
      await parallel(names, 8, (n) => c.request('POST', `${base}/bench-list/configmaps`, configMap(n, 'bench-list', pad)));
      const opts = { url: `${server.url}${base}/bench-list/configmaps`, connections: 8, durationS, headers };
      return useWrk ? runWrk(opts) : runNodeLoad(opts);
    }
    if (kind === 'create') {
      await ensureNamespace(c, 'bench-create');
      const p = `${base}/bench-create/configmaps`;
      const template = JSON.stringify(configMap('%s', 'bench-create', pad));
      if (useWrk) {
        return runWrk({ url: `${server.url}${p}`, connections: 8, durationS, script: wrkPostScript({ path: p, bodyTemplate: template, namePrefix: 'p-', headers }) });
      }
      return runNodeLoad({ url: `${server.url}${p}`, connections: 8, durationS, headers, makeRequest: (i) => ({ method: 'POST', path: p, body: template.replace('%s', `p-${i}`) }) });
    }
    if (kind === 'watch') {
      // 100 watchers, 200 writes/s (the watch benchmark's defaults), all in this process
      await ensureNamespace(c, 'bench-watch');
      const list = await c.json('GET', `${base}/bench-watch/configmaps`);
      const agent = new https.Agent({ maxSockets: Infinity, rejectUnauthorized: false });
      const u = new URL(server.url);
      const reqs = [];
      for (let i = 0; i < 100; i++) {
        const req = https.get({ host: u.hostname, port: u.port, agent, path: `${base}/bench-watch/configmaps?watch=true&resourceVersion=${list.metadata.resourceVersion}`, headers, rejectUnauthorized: false }, (res) => res.resume());
        req.on('error', () => {});
        reqs.push(req);
      }
      await sleep(500);
      const end = performance.now() + durationS * 1000;
      let i = 0;
      while (performance.now() < end) {
        c.request('POST', `${base}/bench-watch/configmaps`, configMap(`w-${i++}`, 'bench-watch', pad));
        await sleep(5);
      }
      await sleep(500);
      for (const r of reqs) r.destroy();
      return { rps: i / durationS };
    }
    throw new Error(`unknown profile target ${kind}`);
  } finally {
    c.close();
  }
}

/** ws-create / ws-delete: the server profiles itself only while the measured phase runs. */
async function profileWorkspaces(kind, { top, keep, ...options }) {
  const { label, summary, file } = await profileWorkspacePhase(kind, options);
  printSummary(label, summary, top);
  if (keep) log(`  profile kept: ${file}`);
  else removeDir(path.dirname(file));
}

/**
 * One profiled workspace phase (see profileWorkspaces) on kcpt or, with `bare`, on the bare workspace server;
 * resolves {label, summary, n (workspaces), file (the .cpuprofile, in a temp dir of its own)}.
 */
export async function profileWorkspacePhase(kind, { wsCount = 3000, warmup = 0, http1 = false, bare = false }) {
  const dir = tempDir('kcpt-bench-prof-');
  const file = path.join(dir, `${kind}.cpuprofile`);
  let server;
  let c;
  let bareServer;
  if (bare && kind === 'ws-delete') throw new Error('--bare profiles ws-create and ws-create-flat only (bench/workspaces.js times the bare deletion)');
  if (bare) {
    // The sample's throwaway kcpt runs in `dir`, whose serving certificate the bare server then uses.
    const sampleFile = path.join(dir, 'workspace-sample.json');
    await recordWorkspaceSample(sampleFile, { rootDir: dir });
    const launch = hookLaunch(dir);
    bareServer = await startBareWorkspaces(path.join(dir, 'root'), sampleFile, { concurrency: 16, http1, nodeArgs: launch.nodeArgs, env: launch.env });
    server = { ...bareServer.server, hook: hookOf(bareServer.server.child, launch.hookFile), stop: () => bareServer.stop() };
    c = bareServer.c;
  } else {
    server = await startHooked({ rootDir: dir, timeoutMs: 60_000 });
    // One HTTP/2 connection for every POST and watch, as bench/workspaces.js (and kubectl) talk; --http1 for the old pool.
    c = client(server.url, { token: server.token, maxSockets: 20, http2: !http1 });
  }
  const agent = new https.Agent({ keepAlive: false, maxSockets: Infinity, rejectUnauthorized: false });
  let label;
  try {
    const common = { server, c, agent, basePath: 'root', concurrency: 16 };
    if (kind === 'ws-create' || kind === 'ws-create-flat') {
      // Untimed, unprofiled workspaces first: a fresh server pays ~30 % more per workspace while V8 tiers up.
      if (warmup > 0) await createWorkspaces({ ...common, prefix: 'w', plan: flatPlan(warmup) });
      await server.hook('profile-start');
      const plan = kind === 'ws-create' ? treePlan(wsCount, 7) : flatPlan(wsCount);
      const r = await createWorkspaces({ ...common, prefix: 'p', plan });
      await server.hook(`profile-stop ${file}`);
      label = `${bare ? 'bare workspace server, ' : ''}${kind} (${wsCount} workspaces, ${r.rate.toFixed(0)} ws/s under the profiler)`;
    } else {
      await createWorkspaces({ ...common, prefix: 'd', plan: singleTopPlan(wsCount, 7) });
      await server.hook('profile-start');
      const t0 = performance.now();
      const res = await c.request('DELETE', `/clusters/root${WS_API}/d0`);
      if (res.status >= 300) throw new Error(`delete: HTTP ${res.status}`);
      while ((await c.request('GET', `/clusters/root${WS_API}/d0`)).status !== 404) await sleep(100);
      const s = (performance.now() - t0) / 1000;
      await server.hook(`profile-stop ${file}`);
      label = `ws-delete (a ${wsCount}-workspace tree gone in ${s.toFixed(1)} s under the profiler)`;
    }
  } finally {
    c.close();
    agent.destroy();
    await server.stop();
  }
  return { label, summary: summarise(JSON.parse(readFileSync(file, 'utf8'))), n: wsCount, file };
}

export async function profileAll({ kinds = ['get', 'list', 'create'], durationS = 4, useWrk = Boolean(findWrk()), pad = 560, top = 15, keep = false, wsCount, warmup, http1 = false, bare = false, restartDir } = {}) {
  for (const kind of kinds) {
    if (kind.startsWith('ws-')) {
      await profileWorkspaces(kind, { wsCount, warmup, top, keep, http1, bare });
      continue;
    }
    const dir = tempDir('kcpt-bench-prof-');
    const profDir = path.join(dir, 'profiles');
    const interval = kind === 'startup' ? ['--cpu-prof-interval', '200'] : [];
    const t0 = performance.now();
    const restart = kind === 'startup' && restartDir !== undefined;
    const server = await startKcpt({ rootDir: restart ? restartDir : dir, nodeArgs: ['--cpu-prof', '--cpu-prof-dir', profDir, ...interval], timeoutMs: 600_000 });
    const readyMs = performance.now() - t0;
    let res;
    try {
      res = await drive(kind, server, { durationS, useWrk, pad });
    } finally {
      await server.stop();
    }
    const files = readdirSync(profDir).filter((f) => f.endsWith('.cpuprofile'));
    if (!files.length) {
      log(`  ${kind}: no profile written (did kcpt exit cleanly on SIGTERM?)`);
      continue;
    }
    const profile = JSON.parse(readFileSync(path.join(profDir, files[0]), 'utf8'));
    const label =
      kind === 'startup'
        ? `startup (${restart ? `restart of ${restartDir}` : 'fresh root dir'}, ready line after ${readyMs.toFixed(0)} ms under --cpu-prof)`
        : `${kind} (${res.rps.toFixed(0)} req/s under --cpu-prof, includes start-up and fill)`;
    printSummary(label, summarise(profile), top);
    if (keep) log(`  profile kept: ${path.join(profDir, files[0])}`);
    else removeDir(dir);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      duration: { type: 'string', default: '5' },
      top: { type: 'string', default: '15' },
      keep: { type: 'boolean', default: false },
      'node-load': { type: 'boolean', default: false },
      'ws-count': { type: 'string', default: '3000' },
      warmup: { type: 'string', default: '0' },
      http1: { type: 'boolean', default: false },
      bare: { type: 'boolean', default: false },
      'root-dir': { type: 'string' },
    },
  });
  await profileAll({
    kinds: positionals.length ? positionals : ['get', 'list', 'create'],
    durationS: Number(values.duration),
    top: Number(values.top),
    keep: values.keep,
    useWrk: !values['node-load'] && Boolean(findWrk()),
    pad: 724,
    wsCount: Number(values['ws-count']),
    warmup: Number(values.warmup),
    http1: values.http1,
    bare: values.bare,
    restartDir: values['root-dir'] && path.resolve(values['root-dir']),
  });
}
