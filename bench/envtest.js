#!/usr/bin/env node
// 16. A Go operator's envtest suite on kcpt: what a fresh, isolated workspace per Go test costs, up to
//     envtest.Start (UseExistingCluster, the Widget CRD installed from CRDDirectoryPaths) returning, measured by the
//     Go benchmark BenchmarkWorkspacePerTest of test/peers/go/controllerruntime against a kcpt of its own:
//     (a) `kcpt testenv` per test (a Node process creates the workspace and writes its kubeconfig), then envtest.Start;
//     (b) the workspace created from Go through the API, then envtest.Start.
//     Baseline: envtest's own start, a kube-apiserver and an etcd per suite. kube-apiserver cannot be had on this
//     machine (setup-envtest downloads it from outside the package registries), so what is measured is the part that
//     can be: a local etcd from spawn to its first answered request (the etcd of envtest's control plane, started
//     before the kube-apiserver), beside what envtest's documentation says (bench/testing.js `references`).
//
//   node bench/envtest.js [--runs N] [--count N]   (also `npm run bench -- --only envtest`; needs a build and Go)
import { spawn } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { startLocalEtcd } from '../dist/src/engine/storage/etcd-launcher.js';
import { buildGoPeers, goModuleDir } from '../scripts/go-peers.mjs';
import { startKcpt, runJs } from './lib/kcpt.js';
import { fmtMs, log, median, tempDir } from './lib/util.js';
import { references } from './testing.js';

/** Runs the Go benchmark and returns ms per op of each sub-benchmark. */
async function goBench(binary, env, count) {
  const args = ['-test.run=^$', '-test.bench=^BenchmarkWorkspacePerTest$', `-test.benchtime=${count}x`, '-test.count=1'];
  const child = spawn(binary, args, { cwd: path.join(goModuleDir, 'controllerruntime'), env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const code = await new Promise((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`the Go benchmark failed (exit ${code}):\n${out.slice(-4000)}`);
  const perOp = {};
  for (const m of out.matchAll(/^BenchmarkWorkspacePerTest\/(\S+?)(?:-\d+)?\s+\d+\s+(\d+(?:\.\d+)?) ns\/op/gm)) perOp[m[1]] = Number(m[2]) / 1e6;
  if (!perOp['kcpt-testenv'] || !perOp.api) throw new Error(`no figures in the Go benchmark's output:\n${out.slice(-4000)}`);
  return perOp;
}

/** spawn → first answered /health of a fresh single-member etcd, in ms (startLocalEtcd waits for it). */
async function etcdStartMs() {
  const t0 = performance.now();
  const etcd = await startLocalEtcd();
  const ms = performance.now() - t0;
  await etcd.stop();
  return ms;
}

export async function run(ctx) {
  const runs = Math.max(1, ctx.runs);
  const count = ctx.envtestCount ?? 10;
  const build = await buildGoPeers({ log: (m) => log(`  ${m}`) });
  log(`  Go peers ${build.cached ? 'compiled before' : 'compiled'} (${fmtMs(build.ms)})`);
  const testenv = [];
  const api = [];
  const etcd = [];
  for (let i = 0; i < runs; i++) {
    const rootDir = tempDir();
    const server = await startKcpt({ rootDir });
    try {
      const env = {
        ...process.env,
        HOME: rootDir,
        KCPT_KUBECONFIG: path.join(server.certDir, 'admin.kubeconfig'),
        KCPT_CLI: runJs,
      };
      const perOp = await goBench(build.binaries.controllerruntime, env, count);
      testenv.push(perOp['kcpt-testenv']);
      api.push(perOp.api);
    } finally {
      await server.stop();
    }
    etcd.push(await etcdStartMs().catch(() => NaN));
    log(`  run ${i + 1}: kcpt testenv + envtest.Start ${fmtMs(testenv.at(-1))}, API + envtest.Start ${fmtMs(api.at(-1))}, etcd start ${fmtMs(etcd.at(-1))}`);
  }
  const envtestRef = references.find((r) => r.tool.startsWith('envtest'));
  const refNote = `envtest's own start (kube-apiserver + etcd per suite) not measurable here; ${envtestRef.documented} [${envtestRef.source}]`;
  return [
    {
      name: 'envtest: workspace per Go test (kcpt testenv)',
      unit: 'ms',
      kcpt: median(testenv),
      baseline: median(etcd),
      target: { kind: 'info' },
      note: `baseline: etcd alone, spawn to first answer, a floor of envtest's start; ${refNote}; ${count} per run`,
    },
    {
      name: 'envtest: workspace per Go test (API)',
      unit: 'ms',
      kcpt: median(api),
      baseline: median(etcd),
      target: { kind: 'info' },
      note: `the workspace created from Go in-process; baseline as above`,
    },
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' }, count: { type: 'string', default: '10' } } });
  const rows = await run({ runs: Number(values.runs), envtestCount: Number(values.count) });
  const { tableLines } = await import('./lib/table.js');
  process.stdout.write(`${tableLines(rows).join('\n')}\n`);
  for (const r of rows) process.stdout.write(`  ${r.name}: ${r.note}\n`);
}
