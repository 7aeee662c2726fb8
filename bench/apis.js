// 10. API sharing, on a kcpt of its own (fresh root directory):
//   (a) CREATE (8 connections, unique names) and GET of a custom resource whose API a workspace has from an
//       APIBinding (root:bench-consumer binds export `gizmos` of root:bench-provider), next to the very same requests
//       for the same schema installed as a local CRD (root:bench-local), interleaved. Target: bound >= 90 % of local.
//   (b) The APIExport virtual workspace's wildcard watch across --apis-consumers (1,000) consumer workspaces, each
//       bound through a WorkspaceType's defaultAPIBindings (so creating them also exercises the system:apibindings
//       initializer): the writer POSTs objects into consumers round-robin at --apis-watch-rate (50/s) for
//       --watch-seconds, stamping its send time into spec.ts; one watcher on
//       /services/apiexport/<provider cluster>/gizmos/clusters/*/apis/... records arrival - stamp. Baseline: the same
//       writes and watch on the local CRD in one workspace. Target: p99 <= 10 ms.
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { client, startKcpt } from './lib/kcpt.js';
import { findWrk, runNodeLoad, runTemplated, runWrk } from './lib/load.js';
import { createWorkspaces, flatPlan, openWatch, waitFor, WS_API } from './lib/workspace-driver.js';
import { epochMs, fmtMs, log, median, percentile, removeDir, sleep, tempDir, withServerCpu } from './lib/util.js';

const GROUP = 'bench.kcpt.dev';
const NS = 'default';
const PROVIDER = 'root:bench-provider';
const CONSUMER = 'root:bench-consumer';
const LOCAL = 'root:bench-local';
const CONSUMERS = 'root:bench-consumers';

/** Ten spec fields of the usual kinds, plus the watch stamp. */
const properties = {
  name: { type: 'string', maxLength: 64 },
  size: { type: 'integer', minimum: 0, maximum: 100000 },
  enabled: { type: 'boolean' },
  tier: { type: 'string', enum: ['small', 'medium', 'large'] },
  slug: { type: 'string', pattern: '^[a-z][a-z0-9-]*$' },
  ratio: { type: 'number', minimum: 0 },
  tags: { type: 'array', maxItems: 10, 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
  endpoint: { type: 'object', properties: { host: { type: 'string' }, port: { type: 'integer', minimum: 1, maximum: 65535 } } },
  mode: { type: 'string', default: 'defaulted' },
  ts: { type: 'number' },
};
const openAPIV3Schema = { type: 'object', properties: { spec: { type: 'object', properties } } };
const names = { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' };
const version = (schema) => ({ name: 'v1', served: true, storage: true, schema });

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `gizmos.${GROUP}` },
  spec: { group: GROUP, scope: 'Namespaced', names, versions: [version({ openAPIV3Schema })] },
};
const schema = {
  apiVersion: 'apis.kcp.io/v1alpha1',
  kind: 'APIResourceSchema',
  metadata: { name: `v1.gizmos.${GROUP}` },
  spec: { group: GROUP, scope: 'Namespaced', names, versions: [version(openAPIV3Schema)] },
};
const apiExport = {
  apiVersion: 'apis.kcp.io/v1alpha2',
  kind: 'APIExport',
  metadata: { name: 'gizmos' },
  spec: { resources: [{ name: 'gizmos', group: GROUP, schema: `v1.gizmos.${GROUP}`, storage: { crd: {} } }] },
};
export const gizmo = (name, ts = 0) => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'Gizmo',
  metadata: { name, namespace: NS, labels: { app: 'kcpt-bench' } },
  spec: { name: 'value', size: 4242, enabled: true, tier: 'medium', slug: 'abc-def', ratio: 3.25, tags: ['a', 'b'], endpoint: { host: 'example.org', port: 8443 }, ts },
});
export const objects = (path) => `/clusters/${path}/apis/${GROUP}/v1/namespaces/${NS}/gizmos`;

async function post(c, path, body) {
  const res = await c.request('POST', path, body);
  if (res.status !== 201 && res.status !== 409) throw new Error(`POST ${path}: HTTP ${res.status} ${res.body.toString().slice(0, 300)}`);
}

async function workspace(c, parent, name, type) {
  await post(c, `/clusters/${parent}${WS_API}`, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name }, ...(type ? { spec: { type } } : {}) });
  await waitFor(async () => (await c.json('GET', `/clusters/${parent}${WS_API}/${name}`)).status?.phase === 'Ready', { what: `workspace ${name} Ready` });
}

/** Provider with schema + export, a consumer bound to it, and a workspace with the same schema as a local CRD. */
export async function setUp(c) {
  await workspace(c, 'root', 'bench-provider', { name: 'organization', path: 'root' });
  await post(c, `/clusters/${PROVIDER}/apis/apis.kcp.io/v1alpha1/apiresourceschemas`, schema);
  await post(c, `/clusters/${PROVIDER}/apis/apis.kcp.io/v1alpha2/apiexports`, apiExport);
  await workspace(c, 'root', 'bench-local', { name: 'organization', path: 'root' });
  await post(c, `/clusters/${LOCAL}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, crd);
  await workspace(c, 'root', 'bench-consumer', { name: 'organization', path: 'root' });
  await post(c, `/clusters/${CONSUMER}/apis/apis.kcp.io/v1alpha2/apibindings`, {
    apiVersion: 'apis.kcp.io/v1alpha2',
    kind: 'APIBinding',
    metadata: { name: 'gizmos' },
    spec: { reference: { export: { path: PROVIDER, name: 'gizmos' } } },
  });
  await waitFor(async () => (await c.json('GET', `/clusters/${CONSUMER}/apis/apis.kcp.io/v1alpha2/apibindings/gizmos`)).status?.phase === 'Bound', {
    what: 'the bench APIBinding Bound',
  });
  // Served in both (discovery follows the binding / CRD asynchronously).
  for (const path of [LOCAL, CONSUMER]) {
    await waitFor(async () => (await c.request('GET', `${objects(path)}?limit=1`)).status === 200, { what: `gizmos served in ${path}` });
  }
}

async function throughput(ctx, server, c) {
  const headers = { Authorization: `Bearer ${server.token}`, Accept: 'application/json' };
  const body = JSON.stringify(gizmo('{n}'));
  const create = (path, prefix, durationS) =>
    runTemplated(ctx, { url: server.url, method: 'POST', pathTemplate: objects(path), bodyTemplate: body.replace('"{n}"', `"${prefix}{n}"`), headers, connections: 8, durationS });
  for (const path of [LOCAL, CONSUMER]) await post(c, objects(path), gizmo('get-target'));
  // The bound object must come back defaulted like the local one: the same work is done on both paths.
  const bound = await c.json('GET', `${objects(CONSUMER)}/get-target`);
  if (bound.spec.mode !== 'defaulted') throw new Error('the bound custom resource was not defaulted');
  const getLoad = (path) => {
    const opts = { url: `${server.url}${objects(path)}/get-target`, connections: 8, durationS: ctx.durationS, headers };
    return ctx.useWrk ? runWrk(opts) : runNodeLoad(opts);
  };
  await create(LOCAL, 'warm-', 2);
  await create(CONSUMER, 'warm-', 2);
  const runs = { localCreate: [], boundCreate: [], localGet: [], boundGet: [] };
  for (let i = 0; i < ctx.runs; i++) {
    runs.localCreate.push(await withServerCpu(server.child.pid, () => create(LOCAL, `r${i}-`)));
    runs.boundCreate.push(await withServerCpu(server.child.pid, () => create(CONSUMER, `r${i}-`)));
    runs.localGet.push(await withServerCpu(server.child.pid, () => getLoad(LOCAL)));
    runs.boundGet.push(await withServerCpu(server.child.pid, () => getLoad(CONSUMER)));
    const r = (k) => `${runs[k].at(-1).rps.toFixed(0)}/s (${runs[k].at(-1).cpuUsPerReq.toFixed(0)} us CPU/req)`;
    log(`  run ${i + 1}: create local ${r('localCreate')}, bound ${r('boundCreate')}; GET local ${r('localGet')}, bound ${r('boundGet')}`);
  }
  const bad = Object.values(runs).flat().reduce((a, x) => a + x.non2xx + x.errors, 0);
  if (bad) throw new Error(`${bad} requests failed (every create must be 201 and every GET 200)`);
  const row = (name, k, b) => ({
    name,
    unit: 'rate',
    kcpt: median(k.map((x) => x.rps)),
    baseline: median(b.map((x) => x.rps)),
    baselineName: 'same CRD installed locally',
    target: { kind: 'ratio', min: 0.9 },
    runs: { kcpt: k.map((x) => x.rps), baseline: b.map((x) => x.rps) },
    extra: { kcptP99: median(k.map((x) => x.p99)), kcptCpuUs: median(k.map((x) => x.cpuUsPerReq)), rawCpuUs: median(b.map((x) => x.cpuUsPerReq)), rawCpuLabel: 'local CRD' },
  });
  return [row('CREATE bound resource, 8 conns', runs.boundCreate, runs.localCreate), row('GET bound resource, 8 conns', runs.boundGet, runs.localGet)];
}

/** N consumer workspaces, each bound through the type's defaultAPIBindings: Ready means bound. */
async function consumers(server, c, n, concurrency) {
  await post(c, `/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspacetypes`, {
    apiVersion: 'tenancy.kcp.io/v1alpha1',
    kind: 'WorkspaceType',
    metadata: { name: 'bench-bound' },
    spec: { extend: { with: [{ name: 'universal', path: 'root' }] }, defaultAPIBindings: [{ path: PROVIDER, export: 'gizmos' }] },
  });
  await workspace(c, 'root', 'bench-consumers', { name: 'organization', path: 'root' });
  const made = await createWorkspaces({
    server,
    c,
    agent: c.agent,
    basePath: CONSUMERS,
    prefix: 'c',
    plan: flatPlan(n),
    concurrency,
    type: { name: 'bench-bound', path: 'root' },
  });
  log(`  ${n} bound consumers Ready in ${made.seconds.toFixed(1)} s (${made.rate.toFixed(0)} ws/s, p50 create -> Ready ${fmtMs(percentile(made.latencies, 50))})`);
  return made;
}

/** Writes at `rate`/s into `paths` round-robin for `seconds`, one watch on `watchPath`; latencies of every event. */
async function watchRun(server, c, watchPath, paths, rate, seconds) {
  const total = Math.round(rate * seconds);
  const latencies = [];
  let failure;
  const list = await c.json('GET', `${watchPath}${watchPath.includes('?') ? '&' : '?'}limit=1`);
  const watch = openWatch(
    { url: server.url, token: server.token, agent: c.agent },
    `${watchPath}${watchPath.includes('?') ? '&' : '?'}watch=true&resourceVersion=${list.metadata.resourceVersion}`,
    (ev) => {
      const ts = ev.object?.spec?.ts;
      if (ev.type === 'ADDED' && ts) latencies.push(epochMs() - ts);
    },
    (err) => (failure ??= err),
    { wanted: (line) => line.startsWith('{"type":"ADDED"') },
  );
  await sleep(200);
  const t0 = performance.now();
  const writes = [];
  for (let i = 0; i < total && !failure; i++) {
    const due = t0 + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    writes.push(post(c, objects(paths[i % paths.length]), gizmo(`w${Date.now().toString(36)}-${i}`, epochMs())));
  }
  await Promise.all(writes);
  await waitFor(() => failure || latencies.length >= total, { timeoutMs: 30_000, everyMs: 50, what: `${total} watch events` });
  watch.close();
  if (failure) throw failure;
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), events: latencies.length };
}

async function virtualWorkspaceWatch(ctx, server, c) {
  const n = ctx.apis?.consumers ?? 1000;
  const made = await consumers(server, c, n, ctx.apis?.concurrency ?? 16);
  const slice = await waitFor(async () => {
    const s = await c.json('GET', `/clusters/${PROVIDER}/apis/apis.kcp.io/v1alpha1/apiexportendpointslices/gizmos`);
    return s.status?.endpoints?.[0]?.url;
  }, { what: 'the endpoint slice URL' });
  const vwPath = `${new URL(slice).pathname}/clusters/*/apis/${GROUP}/v1/gizmos`;
  const rate = ctx.apis?.watchRate ?? 50;
  const seconds = ctx.watch?.seconds ?? 4;
  const vw = [];
  const local = [];
  for (let i = 0; i < ctx.runs; i++) {
    local.push(await watchRun(server, c, `/clusters/${LOCAL}/apis/${GROUP}/v1/gizmos`, [LOCAL], rate, seconds));
    vw.push(await watchRun(server, c, vwPath, made.paths, rate, seconds));
    log(`  run ${i + 1}: ${rate} writes/s, VW wildcard p50 ${fmtMs(vw.at(-1).p50)} p99 ${fmtMs(vw.at(-1).p99)}; local CRD p50 ${fmtMs(local.at(-1).p50)} p99 ${fmtMs(local.at(-1).p99)}`);
  }
  return [
    {
      name: `VW wildcard watch, ${n} bound consumers, ${rate} writes/s: p99`,
      unit: 'ms',
      kcpt: median(vw.map((x) => x.p99)),
      baseline: median(local.map((x) => x.p99)),
      baselineName: 'watch of the local CRD, same writes',
      target: { kind: 'max', max: 10 },
      runs: { kcpt: vw.map((x) => x.p99), baseline: local.map((x) => x.p99) },
      extra: { p50: median(vw.map((x) => x.p50)), consumersReadySeconds: made.seconds },
    },
  ];
}

export async function run(ctx) {
  const dir = tempDir();
  const server = await startKcpt({ rootDir: dir });
  const c = client(server.url, { token: server.token, maxSockets: 32 });
  try {
    await setUp(c);
    return [...(await throughput(ctx, server, c)), ...(await virtualWorkspaceWatch(ctx, server, c))];
  } finally {
    c.close();
    await server.stop();
    removeDir(dir);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '3' },
      duration: { type: 'string', default: '4' },
      consumers: { type: 'string', default: '1000' },
      'watch-rate': { type: 'string', default: '50' },
      'watch-seconds': { type: 'string', default: '4' },
      'node-load': { type: 'boolean', default: false },
    },
  });
  const ctx = {
    useWrk: !values['node-load'] && Boolean(findWrk()),
    runs: Number(values.runs),
    durationS: Number(values.duration),
    watch: { seconds: Number(values['watch-seconds']) },
    apis: { consumers: Number(values.consumers), watchRate: Number(values['watch-rate']) },
  };
  const rows = await run(ctx);
  const { printTable } = await import('./lib/table.js');
  printTable(rows, 'API sharing');
}
