#!/usr/bin/env node
// `npm run bench` -> node bench/run.js [options]. Runs the kcpt benchmarks, each beside its raw baseline
// measured in the same run, and prints a summary table. See bench/README.md.
//
//   --only get,list,create,crd,ssa,watch,startup,workspaces,cli,apis,snapshots,storage,testing,envtest,tui,front-proxy   subset
//                     (default: all of these; `storage`, GET/LIST/CREATE/WATCH on etcd vs SQLite, only when an etcd binary is
//                     on PATH; `envtest`, a Go operator's envtest suite on kcpt, only when `go` is on PATH)
//                     also `restart`: restart with --restart-workspaces / --restart-objects on disk (not in the default: the
//                     state is generated once through the API, ~10-20 min, and cached under /tmp)
//   --runs N          measured runs per side (default 3; medians are reported), but for GET and CREATE x8 (below)
//   --get-rounds N    GET rows: interleaved rounds, each running every side once (bare, kcp-admin, RBAC-bound user),
//                     the order reversed every other round; the verdict is the median per-round ratio (default 8)
//   --get-seconds S   seconds per side and round for GET (default 3)
//   --get-aa          GET: kcp-admin a second time in the HTTP/1.1 rounds (bare, again, admin, reader), its per-round
//                     ratio to the first printed: an A/A control, the spread the RBAC-bound row's ratio has with
//                     nothing different; no verdict (kcp-admin is then two windows from the bare server, not one)
//   --create-rounds N CREATE x8 row: interleaved rounds of the bare server and kcpt, the order reversed every other
//                     round; the verdict is the median per-round ratio (default 8)
//   --create-seconds S  seconds per side and round for CREATE x8 (default 3)
//   --create-aa       CREATE x8: kcpt a second time in the rounds (bare, again, kcpt), its per-round ratio to the first
//                     printed: an A/A control, the spread the row's ratio has with nothing different; no verdict
//   --duration S      seconds per load run, but for the GET and CREATE x8 rounds (default 4)
//   --node-load       use the in-process Node load generator even if wrk is installed
//   --watch-rate R[,R2]  writes per second in the watch benchmark (default 100; a list runs each rate)
//   --watch-seconds S seconds of writing per watch run (default 4)
//   --watchers N      concurrent watchers (default 1000)
//   --watch-processes P  watch-client processes the watchers are shared among (default 1)
//   --ws-count N      workspaces for the memory / disk / restart figures (default 10000; the targets are at 100000)
//   --ws-rate-count N workspaces per creation-rate run, flat and tree (default 2000)
//   --ws-delete-count N  size of the tree deleted at the end (default 2000; the target is for 10000)
//   --restart-workspaces N  workspaces on disk for `restart` (default 100000)
//   --restart-objects N     stored objects on disk for `restart`, ConfigMaps added to reach it (default 1000000)
//   --cli-samples N   timed runs of each CLI command (default 9; medians are reported)
//   --apis-consumers N   bound consumer workspaces under the API virtual workspace's wildcard watch (default 1000)
//   --apis-watch-rate R  writes per second into them in that benchmark (default 50)
//   --testing-count N workspaces per kcpt/testing run, without and with a CRD (default 200)
//   --envtest-count N Go tests (workspace + envtest.Start) per envtest run (default 10)
//   --kcpt-storage URL  the GET/LIST/CREATE/WATCH server's --storage (default: SQLite in its root directory), e.g.
//                     'sqlite://kcpt.db?synchronous=FULL'
//   --profile         afterwards, CPU-profile kcpt under GET, LIST and CREATE load and print the top frames
//   --json FILE       also write all figures as JSON
//   --help            this text
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { client, logServerTail, startKcpt, watchCapArgs } from './lib/kcpt.js';
import { findWrk, wrkVersion } from './lib/load.js';
import { tableLines } from './lib/table.js';
import { fmtMs, fmtNum, fmtRate, log, removeDir, tempDir } from './lib/util.js';

const { values: opts } = parseArgs({
  options: {
    only: { type: 'string' },
    runs: { type: 'string', default: '3' },
    duration: { type: 'string', default: '4' },
    'get-rounds': { type: 'string', default: '8' },
    'get-seconds': { type: 'string', default: '3' },
    'get-aa': { type: 'boolean', default: false },
    'create-rounds': { type: 'string', default: '8' },
    'create-seconds': { type: 'string', default: '3' },
    'create-aa': { type: 'boolean', default: false },
    'node-load': { type: 'boolean', default: false },
    'watch-rate': { type: 'string', default: '100' },
    'watch-seconds': { type: 'string', default: '4' },
    watchers: { type: 'string', default: '1000' },
    'watch-processes': { type: 'string', default: '1' },
    'ws-count': { type: 'string', default: '10000' },
    'ws-rate-count': { type: 'string', default: '2000' },
    'ws-delete-count': { type: 'string', default: '2000' },
    'restart-workspaces': { type: 'string', default: '100000' },
    'restart-objects': { type: 'string', default: '1000000' },
    'cli-samples': { type: 'string', default: '9' },
    'apis-consumers': { type: 'string', default: '1000' },
    'apis-watch-rate': { type: 'string', default: '50' },
    'testing-count': { type: 'string', default: '200' },
    'envtest-count': { type: 'string', default: '10' },
    'kcpt-storage': { type: 'string' },
    profile: { type: 'boolean', default: false },
    json: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (opts.help) {
  const { readFileSync } = await import('node:fs');
  const lines = readFileSync(new URL(import.meta.url), 'utf8').split('\n').slice(1);
  const head = lines.slice(0, lines.findIndex((l) => !l.startsWith('//')));
  process.stdout.write(`${head.map((l) => l.slice(3)).join('\n')}\n`);
  process.exit(0);
}

/** The etcd-vs-SQLite section starts a local etcd (`$ETCD_BIN` or `etcd`): in the default set only when there is one. */
const etcdFound = spawnSync(process.env.ETCD_BIN ?? 'etcd', ['--version'], { stdio: 'ignore', timeout: 10_000 }).status === 0;
/** The envtest section compiles and runs the Go peers: in the default set only when there is a Go toolchain. */
const goFound = spawnSync('go', ['version'], { stdio: 'ignore', timeout: 10_000 }).status === 0;
const defaultOnly = `get,list,create,crd,ssa,watch,startup,workspaces,cli,apis,snapshots,${etcdFound ? 'storage,' : ''}testing,${goFound ? 'envtest,' : ''}tui,front-proxy`;
const only = new Set((opts.only ?? defaultOnly).split(',').map((s) => s.trim()).filter(Boolean));
const useWrk = !opts['node-load'] && Boolean(findWrk());
const started = performance.now();
const env = {
  date: new Date().toISOString(),
  node: process.version,
  cpus: os.cpus().length,
  cpuModel: os.cpus()[0]?.model,
  memGiB: Math.round(os.totalmem() / 2 ** 30),
  generator: useWrk ? `${wrkVersion()} (-t1, keep-alive)` : 'in-process Node https.Agent keep-alive generator',
  loadavgStart: os.loadavg().map((x) => x.toFixed(2)).join(' '),
};
log(`kcpt benchmarks - ${env.date}`);
log(`node ${env.node}, ${env.cpus} CPUs (${env.cpuModel}), ${env.memGiB} GiB; load generator: ${env.generator}`);
log(`load average at start: ${env.loadavgStart}${os.loadavg()[0] > env.cpus * 0.5 ? '  (the machine is busy: expect noisy figures)' : ''}`);
if (opts.only === undefined && !etcdFound) log('no etcd on PATH: the etcd vs SQLite section (storage) is left out (Debian: apt-get install etcd-server)');
if (opts.only === undefined && !goFound) log('no go on PATH: the envtest section (a Go operator\'s envtest suite on kcpt) is left out');
if (!useWrk && !opts['node-load']) log('wrk not found: using the in-process Node generator for both sides (it under-reports ~40 % vs wrk, baseline B.2 in docs/benchmarks.md)');

const ctx = {
  useWrk,
  runs: Math.max(1, Number(opts.runs)),
  durationS: Math.max(1, Number(opts.duration)),
  getRounds: Math.max(1, Number(opts['get-rounds'])),
  getSeconds: Math.max(1, Number(opts['get-seconds'])),
  getAA: opts['get-aa'],
  createRounds: Math.max(1, Number(opts['create-rounds'])),
  createSeconds: Math.max(1, Number(opts['create-seconds'])),
  createAA: opts['create-aa'],
  watchRuns: Math.max(1, Number(opts.runs)),
  startRuns: Math.max(3, Number(opts.runs) + 2),
  watch: { rates: opts['watch-rate'].split(',').map(Number).filter((x) => x > 0), seconds: Number(opts['watch-seconds']), watchers: Number(opts.watchers), processes: Number(opts['watch-processes']) },
  tmp: tempDir(),
  calibration: { pad: 560, body: undefined },
  rawClient: (url) => client(url, { maxSockets: 2 }),
  cliSamples: Math.max(1, Number(opts['cli-samples'])),
  apis: { consumers: Math.max(1, Number(opts['apis-consumers'])), watchRate: Math.max(1, Number(opts['apis-watch-rate'])) },
  testingCount: Math.max(1, Number(opts['testing-count'])),
  envtestCount: Math.max(1, Number(opts['envtest-count'])),
  restart: { workspaces: Number(opts['restart-workspaces']), objects: Number(opts['restart-objects']) },
  workspaces: { count: Number(opts['ws-count']), rateCount: Number(opts['ws-rate-count']), deleteCount: Number(opts['ws-delete-count']) },
};

process.once('exit', () => removeDir(ctx.tmp));
const rows = [];
const failures = [];

async function section(name, fn) {
  if (!only.has(name)) return;
  log(`\n== ${name} ==`);
  const t0 = performance.now();
  try {
    rows.push(...(await fn()));
  } catch (err) {
    failures.push(name);
    log(`  ${name} FAILED: ${err.stack ?? err}`);
    rows.push({ name: `${name} (failed)`, unit: 'rate', kcpt: NaN, baseline: NaN, target: { kind: 'info' }, failed: String(err.message ?? err) });
  }
  log(`  (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
}

const needsServer = ['get', 'list', 'create', 'crd', 'ssa', 'watch'].some((b) => only.has(b));
if (needsServer) {
  log(`\nstarting kcpt (fresh root directory, ${opts['kcpt-storage'] ? `--storage ${opts['kcpt-storage']}` : 'default SQLite storage'})...`);
  // A non-admin user for the RBAC-bound GET figure (bench/get.js grants it a Role).
  const { writeTokenFile } = await import('./get.js');
  const server = await startKcpt({
    rootDir: ctx.tmp,
    storage: opts['kcpt-storage'],
    extraArgs: ['--token-auth-file', writeTokenFile(ctx.tmp), ...watchCapArgs(ctx.watch.watchers)],
  });
  ctx.server = server;
  ctx.c = client(server.url, { token: server.token });
  try {
    const { calibrate } = await import('./get.js');
    ctx.calibration = await calibrate(ctx);
    log(`  ConfigMap pad ${ctx.calibration.pad} -> GET body ${ctx.calibration.body.length} B`);
    await section('get', async () => (await import('./get.js')).run(ctx));
    await section('list', async () => (await import('./list.js')).run(ctx));
    await section('create', async () => (await import('./create.js')).run(ctx));
    await section('crd', async () => (await import('./crd.js')).run(ctx));
    await section('ssa', async () => (await import('./ssa.js')).run(ctx));
    await section('watch', async () => (await import('./watch.js')).run(ctx));
  } finally {
    if (failures.length) logServerTail(server);
    ctx.c.close();
    await server.stop();
  }
}
await section('startup', async () => (await import('./startup.js')).run(ctx));
await section('restart', async () => (await import('./restart.js')).run(ctx));
await section('workspaces', async () => (await import('./workspaces.js')).run(ctx));
await section('cli', async () => (await import('./cli.js')).run(ctx));
await section('apis', async () => (await import('./apis.js')).run(ctx));
await section('snapshots', async () => (await import('./snapshots.js')).run(ctx));
await section('storage', async () => (await import('./storage.js')).run(ctx));
await section('testing', async () => (await import('./testing.js')).run(ctx));
await section('envtest', async () => (await import('./envtest.js')).run(ctx));
await section('tui', async () => (await import('./tui.js')).run(ctx));
await section('front-proxy', async () => (await import('./front-proxy.js')).run(ctx));

if (opts.profile) {
  log('\n== profile ==');
  const { profileAll } = await import('./profile.js');
  await profileAll({ durationS: ctx.durationS, useWrk, pad: ctx.calibration.pad });
}

removeDir(ctx.tmp);
env.loadavgEnd = os.loadavg().map((x) => x.toFixed(2)).join(' ');
env.totalSeconds = Math.round((performance.now() - started) / 1000);

// ---- summary table ----
const out = [];
out.push('');
out.push(`kcpt benchmark summary (${env.date}, node ${env.node}, ${env.cpus} CPUs, generator: ${env.generator})`);
out.push(`load average start/end: ${env.loadavgStart} / ${env.loadavgEnd}; total ${env.totalSeconds} s; medians of ${ctx.runs} runs (start-up: ${ctx.startRuns})`);
out.push(...tableLines(rows));
const details = rows
  .filter((r) => r.extra && !r.failed)
  .map((r) => {
    const e = r.extra;
    const parts = [];
    if (e.kcptP50 !== undefined && r.unit === 'rate') parts.push(`kcpt latency p50 ${fmtMs(e.kcptP50)} p99 ${fmtMs(e.kcptP99)}`);
    if (e.rawP50 !== undefined && r.unit === 'rate') parts.push(`raw p50 ${fmtMs(e.rawP50)} p99 ${fmtMs(e.rawP99)}`);
    if (e.rawPluck !== undefined) parts.push(`raw .pluck() scan ${fmtRate(e.rawPluck)}`);
    if (e.kcptCpuUs !== undefined && Number.isFinite(e.kcptCpuUs)) {
      parts.push(
        `CPU per op: kcpt ${fmtNum(e.kcptCpuUs)} us, ${e.rawCpuLabel ?? 'raw server'} ${fmtNum(e.rawCpuUs)} us ` +
          `(CPU-normalised ratio ${fmtNum((e.rawCpuUs / e.kcptCpuUs) * 100)} %)`,
      );
    }
    if (e.bytes !== undefined) parts.push(`body ${fmtNum(e.bytes)} B`);
    if (e.kcptMax !== undefined && r.name.includes('p99')) {
      parts.push(`kcpt max ${fmtMs(e.kcptMax)}, missed events ${e.missing}, writer achieved ${fmtRate(e.achievedRate)}`);
      parts.push(
        `server CPU per write incl. ${ctx.watch.watchers}-way fan-out: kcpt ${fmtNum(e.kcptCpuUsPerWrite)} us, raw ${fmtNum(e.rawCpuUsPerWrite)} us`,
        `bytes per event delivered: kcpt ${fmtNum(e.kcptBytesPerEvent)}, raw ${fmtNum(e.rawBytesPerEvent)}`,
        `writes answered p99: kcpt ${fmtMs(e.kcptAnswerP99)}, raw ${fmtMs(e.rawAnswerP99)}`,
      );
    }
    if (e.lineMs !== undefined) parts.push(`ready line ${fmtMs(e.lineMs)}; node -e 0 ${fmtMs(e.nodeOnlyMs)}`);
    if (r.runs?.ratios) parts.push(`per-round ratios [${r.runs.ratios.map((x) => `${fmtNum(x * 100)} %`).join(', ')}], median ${fmtNum(r.ratio * 100)} %${Number.isFinite(e.cpuRatio) ? ` (CPU-normalised median ${fmtNum(e.cpuRatio * 100)} %)` : ''}`);
    if (r.runs) parts.push(`runs kcpt [${r.runs.kcpt.map((x) => fmtNum(x, r.unit === 'ms' ? 1 : 0)).join(', ')}] base [${r.runs.baseline.map((x) => fmtNum(x, r.unit === 'ms' ? 1 : 0)).join(', ')}]`);
    return parts.length ? `  ${r.name}: ${parts.join('; ')}` : undefined;
  })
  .filter(Boolean);
if (details.length) out.push('', 'details:', ...details);
process.stdout.write(`${out.join('\n')}\n`);

if (opts.json) writeFileSync(opts.json, JSON.stringify({ env, rows }, null, 2));
process.exit(failures.length ? 1 : 0);
