#!/usr/bin/env node
// 11. kcpt/testing, as a test suite uses it: each run is a fresh Node process (bench/testing-worker.js) that imports
//     kcpt/testing, starts a control plane in-process (memory storage, random port, temporary root directory, the
//     cached test keys), creates --testing-count workspaces one after another without a CRD and as many with one CRD
//     installed (resolved once Ready / Established), and stops. Medians over --runs processes. Targets:
//     start <= 300 ms, <= 10 ms per workspace without a CRD, <= 50 ms with one. CPU is the process's user+sys (client
//     and server share it): on a busy machine compare that, not wall time.
//     The figures are printed beside envtest's and kind's start-up as their documentation gives it (see `references`).
//
//   node bench/testing.js [--runs N] [--count N] [--json FILE]   (also `npm run bench -- --only testing`)
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { benchDir, fmtMs, log, median, runNodeJson } from './lib/util.js';

/**
 * What the tools' own documentation says about start-up. Neither documents a typical start-up time (searched: the
 * kubebuilder envtest reference, controller-runtime's envtest package, kind's quick start); they document the
 * timeouts they wait for start-up, which are quoted here as what they are.
 */
export const references = [
  {
    tool: 'envtest (controller-runtime)',
    documented: 'no typical start-up time documented; start timeout configurable with KUBEBUILDER_CONTROLPLANE_START_TIMEOUT',
    source: 'https://kubebuilder.io/reference/testing/envtest.html',
  },
  {
    tool: 'kind',
    documented: 'no typical start-up time in kind\'s docs; `kind create cluster --wait` waits for the control plane, helm/kind-action waits up to 60s by default',
    source: 'https://raw.githubusercontent.com/kubernetes-sigs/kind/main/site/content/docs/user/quick-start.md, https://github.com/helm/kind-action/blob/main/action.yml',
  },
];

export async function run(ctx) {
  const runs = Math.max(1, ctx.runs);
  const count = ctx.testingCount ?? 200;
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const s = await runNodeJson(path.join(benchDir, 'testing-worker.js'), ['--count', String(count)], { timeoutMs: 300_000 });
    log(
      `  run ${i + 1}: import ${fmtMs(s.importMs)}, start ${fmtMs(s.startMs)} (CPU ${fmtMs(s.startCpuMs)}), workspace ${fmtMs(s.plainMsEach)} ` +
        `(CPU ${fmtMs(s.plainCpuMsEach)}), with CRD ${fmtMs(s.crdMsEach)} (CPU ${fmtMs(s.crdCpuMsEach)}), stop ${fmtMs(s.stopMs)}`,
    );
    samples.push(s);
  }
  const med = (key) => median(samples.map((s) => s[key]));
  for (const r of references) log(`  ${r.tool}: ${r.documented} (${r.source})`);
  const refNote = references.map((r) => `${r.tool}: ${r.documented} [${r.source}]`).join('; ');
  return [
    {
      name: 'testing: startControlPlane()',
      unit: 'ms',
      kcpt: med('startMs'),
      baseline: NaN,
      target: { kind: 'max', max: 300 },
      note: `CPU ${fmtMs(med('startCpuMs'))}; import of kcpt/testing ${fmtMs(med('importMs'))} more; ${refNote}`,
    },
    {
      name: 'testing: workspaces/s (no CRD)',
      unit: 'rate',
      kcpt: 1000 / med('plainMsEach'),
      baseline: NaN,
      target: { kind: 'min', min: 100 },
      note: `${fmtMs(med('plainMsEach'))} each, CPU ${fmtMs(med('plainCpuMsEach'))} each (client + server)`,
    },
    {
      name: 'testing: workspaces/s (one CRD)',
      unit: 'rate',
      kcpt: 1000 / med('crdMsEach'),
      baseline: NaN,
      target: { kind: 'min', min: 20 },
      note: `${fmtMs(med('crdMsEach'))} each, CPU ${fmtMs(med('crdCpuMsEach'))} each (client + server); ${count} per run`,
    },
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' }, count: { type: 'string', default: '200' }, json: { type: 'string' } } });
  const rows = await run({ runs: Number(values.runs), testingCount: Number(values.count) });
  const { tableLines } = await import('./lib/table.js');
  process.stdout.write(`${tableLines(rows).join('\n')}\n`);
  for (const r of rows) process.stdout.write(`  ${r.name}: ${r.note}\n`);
  if (values.json) writeFileSync(values.json, JSON.stringify(rows, null, 2));
}
