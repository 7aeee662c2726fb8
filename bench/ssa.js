// 7. Server-side apply vs a plain update: 8 connections write to 50 existing ~1 KB ConfigMaps, every request
//    changing one data value (so every write is a real write). kcpt side: PATCH application/apply-patch+yaml
//    (fieldManager=bench, the full configuration as JSON, as kubectl sends it); baseline side (same run,
//    interleaved): PUT of the full object without a resourceVersion. A JSON merge patch of the same change is
//    printed for information. Target: apply >= 50 % of update.
import { ensureNamespace, parallel } from './lib/kcpt.js';
import { runTemplated } from './lib/load.js';
import { configMap } from './lib/payload.js';
import { log, median, withServerCpu } from './lib/util.js';

const NS = 'bench-ssa';
const OBJECTS = 50;
const CM_PATH = `/clusters/root/api/v1/namespaces/${NS}/configmaps`;

export async function run(ctx) {
  const { server, c } = ctx;
  await ensureNamespace(c, NS);
  const names = Array.from({ length: OBJECTS }, (_, i) => `ssa-${i}`);
  await parallel(names, 8, async (name) => {
    const res = await c.request('POST', CM_PATH, configMap(name, NS, ctx.calibration.pad));
    if (res.status !== 201 && res.status !== 409) throw new Error(`create ${name}: HTTP ${res.status} ${res.body}`);
  });
  // The same configuration for every method: the object with a changing `counter` value.
  const full = JSON.stringify(configMap('ssa-{i}', NS, ctx.calibration.pad, { counter: '{n}' }));
  const headers = { Authorization: `Bearer ${server.token}`, Accept: 'application/json' };
  const write = (method, contentType, query, body, start) =>
    runTemplated(ctx, {
      url: server.url,
      method,
      pathTemplate: `${CM_PATH}/ssa-{i}${query}`,
      bodyTemplate: body,
      contentType,
      headers,
      connections: 8,
      objects: OBJECTS,
      start,
    });
  const put = (start) => write('PUT', 'application/json', '?fieldManager=bench-update', full, start);
  // force: the PUTs and merge patches of the other runs take `counter` over, as a controller's updates would.
  const apply = (start) => write('PATCH', 'application/apply-patch+yaml', '?fieldManager=bench&force=true', full, start);
  const merge = (start) => write('PATCH', 'application/merge-patch+json', '?fieldManager=bench-merge', '{"data":{"counter":"{n}"}}', start);

  // Warm-up, and the first apply takes the fields over from the creator (force would be needed otherwise).
  await write('PATCH', 'application/apply-patch+yaml', '?fieldManager=bench&force=true', full, 10_000_000);
  await put(20_000_000);
  const puts = [];
  const applies = [];
  const merges = [];
  for (let i = 0; i < ctx.runs; i++) {
    // Distinct counters per run and method, so no write is a no-op.
    puts.push(await withServerCpu(server.child.pid, () => put((i * 3 + 1) * 1_000_000)));
    applies.push(await withServerCpu(server.child.pid, () => apply((i * 3 + 2) * 1_000_000)));
    merges.push(await withServerCpu(server.child.pid, () => merge((i * 3 + 3) * 1_000_000)));
    log(`  run ${i + 1}: PUT ${puts.at(-1).rps.toFixed(0)}/s, apply ${applies.at(-1).rps.toFixed(0)}/s, merge patch ${merges.at(-1).rps.toFixed(0)}/s`);
  }
  const bad = [...puts, ...applies, ...merges].reduce((a, x) => a + x.non2xx + x.errors, 0);
  if (bad) throw new Error(`${bad} writes failed (conflicts or errors): the comparison would be meaningless`);
  const check = await c.json('GET', `${CM_PATH}/ssa-0`);
  const managers = (check.metadata.managedFields ?? []).map((m) => `${m.manager}/${m.operation}`);
  if (!managers.includes('bench/Apply')) throw new Error(`apply did not record its manager: ${managers.join(', ')}`);
  const row = (name, k, b, target) => ({
    name,
    unit: 'rate',
    kcpt: median(k.map((x) => x.rps)),
    baseline: median(b.map((x) => x.rps)),
    baselineName: 'PUT (update)',
    target,
    runs: { kcpt: k.map((x) => x.rps), baseline: b.map((x) => x.rps) },
    extra: { kcptP50: median(k.map((x) => x.p50)), kcptP99: median(k.map((x) => x.p99)), kcptCpuUs: median(k.map((x) => x.cpuUsPerReq)), rawCpuUs: median(b.map((x) => x.cpuUsPerReq)), rawCpuLabel: 'PUT' },
  });
  return [
    row('SSA apply ConfigMap, 8 conns', applies, puts, { kind: 'ratio', min: 0.5 }),
    row('  (info) merge patch vs PUT', merges, puts, { kind: 'info-ratio' }),
  ];
}
