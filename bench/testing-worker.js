#!/usr/bin/env node
// Child of bench/testing.js: one fresh process using kcpt/testing exactly as a test file does. Prints one JSON line:
// import and start times (wall and process CPU), then --count workspaces created one after another without and with
// one CRD (wall and CPU per workspace), and stop(). CPU is process user+sys: client and server share this process.
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { count: { type: 'string', default: '200' }, storage: { type: 'string', default: 'memory' } } });
const count = Number(values.count);
const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.bench.kcpt.dev' },
  spec: {
    group: 'bench.kcpt.dev',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } },
      },
    ],
  },
};

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
async function timed(fn) {
  const t0 = performance.now();
  const c0 = cpuMs();
  const value = await fn();
  return { value, ms: performance.now() - t0, cpuMs: cpuMs() - c0 };
}

const imported = await timed(() => import('kcpt/testing'));
const { startControlPlane } = imported.value;
const started = await timed(() => startControlPlane({ storage: values.storage }));
const cp = started.value;
const plain = await timed(async () => {
  for (let i = 0; i < count; i++) await cp.workspace();
});
const withCrd = await timed(async () => {
  for (let i = 0; i < count; i++) await cp.workspace({ crds: [crd] });
});
const stopped = await timed(() => cp.stop());
process.stdout.write(
  `${JSON.stringify({
    importMs: imported.ms,
    importCpuMs: imported.cpuMs,
    startMs: started.ms,
    startCpuMs: started.cpuMs,
    plainMsEach: plain.ms / count,
    plainCpuMsEach: plain.cpuMs / count,
    crdMsEach: withCrd.ms / count,
    crdCpuMsEach: withCrd.cpuMs / count,
    stopMs: stopped.ms,
  })}\n`,
);
