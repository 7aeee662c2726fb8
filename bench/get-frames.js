#!/usr/bin/env node
// Where kcpt's GET spends more than the bare TLS server's: both profiled (V8 sampler, load window only, through
// bench/lib/server-hook.js) under the same wrk load, one after the other, and their frames printed side by side in
// sampled µs per GET (self time), largest difference first. The sampler counts wall time on a busy box: read the
// differences, not the absolutes. With --create, the CREATE row instead: kcpt's POST of a ~1 KB ConfigMap with a
// unique name against the bare server's POST /write (parse, one SQLite transaction, answer), 8 connections, wrk.
// --watch: the watch benchmark's load instead (bench/watch.js: --watchers HTTPS watchers in bench/watch-client.js, a
// writer at --rate writes/s, the bare side sent the very object kcpt delivers), frames in sampled µs per write.
// --reader: kcpt's GETs as bench/get.js's RBAC-bound user (a --token-auth-file user with workspace access and a Role
// allowing get on configmaps) instead of kcp-admin.
// --workspaces: workspace creation instead (bench/profile.js's ws-create-flat, or ws-create with --tree: --ws-count
// workspaces after --warmup untimed ones, 16 in flight, one HTTP/2 connection) on kcpt and on the bare workspace
// server (bench/lib/bare-workspaces.js), frames in sampled µs per workspace.
//   node bench/get-frames.js [--duration S] [--top N] [--h2 | --create | --watch [--watchers N] [--rate R]] [--reader]
//   node bench/get-frames.js --workspaces [--tree] [--ws-count 2000] [--warmup 300] [--top N]
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { client, ensureNamespace, startHooked, watchCapArgs } from './lib/kcpt.js';
import { findWrk, runH2, runWrk, wrkPostScript } from './lib/load.js';
import { configMap } from './lib/payload.js';
import { grantReader, READER, writeTokenFile } from './get.js';
import { profileWorkspacePhase, summarise } from './profile.js';
import { kcptWatchPath, prepareWatchObjects, startWatchers, watchWrites, writeSteadily } from './watch.js';
import { benchDir, removeDir, sleep, tempDir, trackChild, waitExit } from './lib/util.js';

const { values } = parseArgs({ options: { duration: { type: 'string', default: '6' }, top: { type: 'string', default: '40' }, h2: { type: 'boolean', default: false }, watch: { type: 'boolean', default: false }, watchers: { type: 'string', default: '1000' }, rate: { type: 'string', default: '100' }, create: { type: 'boolean', default: false }, reader: { type: 'boolean', default: false }, workspaces: { type: 'boolean', default: false }, tree: { type: 'boolean', default: false }, 'ws-count': { type: 'string', default: '2000' }, warmup: { type: 'string', default: '300' } } });
const op = values.create ? 'CREATE' : 'GET';
const durationS = Number(values.duration);
if (!values.watch && !values.workspaces && !findWrk()) throw new Error('wrk is needed');
const tmp = tempDir();

async function hookable(spawnArgs, hookFile) {
  const child = trackChild(spawn(process.execPath, ['--import', pathToFileURL(path.join(benchDir, 'lib', 'server-hook.js')).href, ...spawnArgs], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, KCPT_BENCH_HOOK_FILE: hookFile } }));
  const port = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => { out += d; const m = /listening (\d+)/.exec(out); if (m) resolve(Number(m[1])); });
    child.on('exit', (code) => reject(new Error(`exited ${code}`)));
  });
  const hook = async (command) => {
    rmSync(`${hookFile}.out`, { force: true });
    writeFileSync(hookFile, command);
    child.kill('SIGUSR2');
    for (;;) { try { return JSON.parse(readFileSync(`${hookFile}.out`, 'utf8')); } catch { await sleep(20); } }
  };
  return { child, url: `https://127.0.0.1:${port}`, hook, stop: async () => { child.kill('SIGTERM'); await waitExit(child, 5000); } };
}

let passes = 0;
async function profiled(server, url, headers, name) {
  const post = (d) => {
    const { origin, pathname } = new URL(url);
    const template = JSON.stringify(configMap('%s', 'bench-create', 560));
    const script = wrkPostScript({ path: pathname, bodyTemplate: template, namePrefix: `f${passes++}-`, headers });
    return runWrk({ url: `${origin}${pathname}`, connections: 8, durationS: d, script });
  };
  const load = (d) => (values.create ? post(d) : values.h2 ? runH2({ url, connections: 1, streams: 8, durationS: d, headers }) : runWrk({ url, connections: 8, durationS: d, headers }));
  await load(2);
  const file = path.join(tmp, `${name}.cpuprofile`);
  await server.hook('profile-start');
  const r = await load(durationS);
  await server.hook(`profile-stop ${file}`);
  const requests = r.rps * durationS;
  return { summary: summarise(JSON.parse(readFileSync(file, 'utf8'))), requests, rps: r.rps };
}

/** Both sides under the watch benchmark's load, profiled for the writes of the window: per-write rows. */
async function watchProfiled(ctx, server, side, name) {
  const watchers = Number(values.watchers);
  const rate = Number(values.rate);
  const { url, token, path: p, write, close } = watchWrites(ctx, side, name, ctx.delivered, side === 'kcpt' ? await kcptWatchPath(ctx.c) : undefined);
  const clients = startWatchers({ url, path: p, token, watchers, timeoutMs: (durationS * 30 + 90) * 1000 });
  await clients.ready();
  await writeSteadily({ rate, seconds: 1, write: (i, ts) => write(1_000_000 + i, ts) });
  const file = path.join(tmp, `${name}.cpuprofile`);
  await server.hook('profile-start');
  const wr = await writeSteadily({ rate, seconds: durationS, write });
  await server.hook(`profile-stop ${file}`);
  const res = await clients.stop(wr.n + rate);
  close();
  return { summary: summarise(JSON.parse(readFileSync(file, 'utf8'))), requests: wr.n, rps: wr.achievedRate, bytesPerEvent: res.bytesPerEvent, p99: res.p99 };
}

function printSideBySide(k, b, unit) {
  const perReq = (s, n) => new Map([...s.byFrame].map(([f, ms]) => [f, (ms * 1000) / n]));
  const kf = perReq(k.summary, k.requests);
  const bf = perReq(b.summary, b.requests);
  const frames = new Set([...kf.keys(), ...bf.keys()]);
  const rows = [...frames].map((f) => [f, kf.get(f) ?? 0, bf.get(f) ?? 0]).sort((x, y) => (y[1] - y[2]) - (x[1] - x[2]));
  console.log(`   kcpt    raw   diff  frame (self, sampled µs per ${unit})`);
  const print = ([f, kv, bv]) => console.log(`${kv.toFixed(1).padStart(7)}${bv.toFixed(1).padStart(7)}${(kv - bv).toFixed(1).padStart(7)}  ${f}`);
  rows.slice(0, Number(values.top)).forEach(print);
  console.log('-- where kcpt spends less --');
  rows.slice(-10).reverse().forEach(print);
  const km = perReq({ byFrame: k.summary.byModule }, k.requests);
  const bm = perReq({ byFrame: b.summary.byModule }, b.requests);
  console.log('-- by module --');
  const mods = [...new Set([...km.keys(), ...bm.keys()])].map((m) => [m, km.get(m) ?? 0, bm.get(m) ?? 0]).sort((x, y) => (y[1] - y[2]) - (x[1] - x[2]));
  for (const [m, kv, bv] of mods.slice(0, 30)) console.log(`${kv.toFixed(1).padStart(7)}${bv.toFixed(1).padStart(7)}${(kv - bv).toFixed(1).padStart(7)}  ${m}`);
}

if (values.workspaces) {
  const kind = values.tree ? 'ws-create' : 'ws-create-flat';
  const options = { wsCount: Number(values['ws-count']), warmup: Number(values.warmup) };
  const sides = [];
  for (const bare of [false, true]) {
    const r = await profileWorkspacePhase(kind, { ...options, bare });
    removeDir(path.dirname(r.file));
    const busy = r.summary.total - (r.summary.byModule.find(([m]) => m === '(idle)')?.[1] ?? 0);
    console.log(`${r.label}: ${((busy * 1000) / r.n).toFixed(0)} sampled busy µs per workspace`);
    sides.push({ summary: r.summary, requests: r.n });
  }
  printSideBySide(sides[0], sides[1], 'workspace');
  removeDir(tmp);
  process.exit(0);
}
const server = await startHooked(values.watch ? { extraArgs: watchCapArgs(Number(values.watchers)) } : values.reader ? { extraArgs: ['--token-auth-file', writeTokenFile(tmp)] } : {});
const c = client(server.url, { token: server.token });
const base = '/clusters/root/api/v1/namespaces';
if (values.watch) {
  const pad = 560;
  const delivered = await prepareWatchObjects(c, pad);
  const objFile = path.join(tmp, 'obj.json');
  writeFileSync(objFile, JSON.stringify(delivered));
  const raw = await hookable([path.join(benchDir, 'raw-server.js'), server.certDir, objFile, '0'], path.join(tmp, 'raw-hook'));
  const ctx = { c, server, rawServer: raw, calibration: { pad }, delivered };
  try {
    const k = await watchProfiled(ctx, server, 'kcpt', 'kcpt');
    const b = await watchProfiled(ctx, raw, 'raw', 'raw');
    const line = (x) => `${x.rps.toFixed(0)} writes/s, ${((x.summary.total * 1000) / x.requests).toFixed(0)} sampled µs/write, ${x.bytesPerEvent.toFixed(0)} B/event, p99 ${x.p99.toFixed(1)} ms`;
    console.log(`kcpt ${line(k)}; raw ${line(b)} (${values.watchers} watchers)`);
    printSideBySide(k, b, 'write');
  } finally {
    c.close();
    await raw.stop();
    await server.stop();
    removeDir(tmp);
  }
  process.exit(0);
}
await ensureNamespace(c, 'default');
const created = await c.request('POST', `${base}/default/configmaps`, configMap('bench-get', 'default', 560));
const objFile = path.join(tmp, 'obj.json');
writeFileSync(objFile, (await c.request('GET', `${base}/default/configmaps/bench-get`)).body);
const raw = await hookable([path.join(benchDir, 'raw-server.js'), server.certDir, objFile, '0'], path.join(tmp, 'raw-hook'));
const headers = { Authorization: `Bearer ${server.token}`, Accept: 'application/json' };
if (values.reader) await grantReader(c);
const kcptHeaders = values.reader ? { ...headers, Authorization: `Bearer ${READER.token}` } : headers;
try {
  if (values.create) await ensureNamespace(c, 'bench-create');
  const k = await profiled(server, `${server.url}${base}/${values.create ? 'bench-create/configmaps' : 'default/configmaps/bench-get'}`, kcptHeaders, 'kcpt');
  const b = await profiled(raw, `${raw.url}/${values.create ? 'write' : 'obj'}`, headers, 'raw');
  console.log(`kcpt ${k.rps.toFixed(0)}/s, ${((k.summary.total * 1000) / k.requests).toFixed(1)} sampled µs/${op}; raw ${b.rps.toFixed(0)}/s, ${((b.summary.total * 1000) / b.requests).toFixed(1)} µs/${op} (status ${created.status})`);
  printSideBySide(k, b, op);
} finally {
  await raw.stop();
  await server.stop();
  removeDir(tmp);
}
