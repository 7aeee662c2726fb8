// 6. Custom resources vs ConfigMaps: CREATE (8 connections) and GET of a custom resource whose CRD has a 30-field
//    spec schema (types, enums, patterns, bounds, a set list, a nested object, int-or-string, defaults), so each
//    create pays for validation, pruning and defaulting, next to the same requests for a ConfigMap of 30 data keys
//    of about the same size. Runs interleaved (ConfigMap, CR, ConfigMap, CR, ...). Target: CR create >= 70 %.
import { ensureNamespace } from './lib/kcpt.js';
import { runNodeLoad, runTemplated, runWrk } from './lib/load.js';
import { log, median, withServerCpu } from './lib/util.js';

const NS = 'bench-crd';
const GROUP = 'bench.kcpt.dev';
const CM_PATH = `/clusters/root/api/v1/namespaces/${NS}/configmaps`;
const CR_PATH = `/clusters/root/apis/${GROUP}/v1/namespaces/${NS}/gizmos`;

/** Thirty spec fields of ten kinds, three times over; every tenth field has a default the bodies leave out. */
function fieldKinds() {
  const kinds = [
    ['str', { type: 'string', maxLength: 64 }, 'value-{k}'],
    ['int', { type: 'integer', minimum: 0, maximum: 100000 }, 4242],
    ['bool', { type: 'boolean' }, true],
    ['enum', { type: 'string', enum: ['small', 'medium', 'large'] }, 'medium'],
    ['pat', { type: 'string', pattern: '^[a-z][a-z0-9-]*$' }, 'abc-def-{k}'],
    ['num', { type: 'number', minimum: 0 }, 3.25],
    ['set', { type: 'array', maxItems: 10, 'x-kubernetes-list-type': 'set', items: { type: 'string' } }, ['a', 'b', 'c']],
    ['obj', { type: 'object', properties: { host: { type: 'string' }, port: { type: 'integer', minimum: 1, maximum: 65535 } } }, { host: 'example.org', port: 8443 }],
    ['ios', { 'x-kubernetes-int-or-string': true }, '50%'],
    ['def', { type: 'string', default: 'defaulted-value' }, undefined],
  ];
  const fields = [];
  for (let round = 0; round < 3; round++) {
    for (const [kind, schema, value] of kinds) fields.push({ name: `${kind}${round}`, schema, value: typeof value === 'string' ? value.replace('{k}', String(round)) : value });
  }
  return fields;
}

const FIELDS = fieldKinds();

function crd() {
  const properties = Object.fromEntries(FIELDS.map((f) => [f.name, f.schema]));
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `gizmos.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: { spec: { type: 'object', required: ['str0', 'int0'], properties } },
            },
          },
        },
      ],
    },
  };
}

function gizmo(name) {
  const spec = Object.fromEntries(FIELDS.filter((f) => f.value !== undefined).map((f) => [f.name, f.value]));
  return { apiVersion: `${GROUP}/v1`, kind: 'Gizmo', metadata: { name, namespace: NS, labels: { app: 'kcpt-bench' } }, spec };
}

/** A ConfigMap of 30 keys whose JSON is about as long as the Gizmo's. */
function configMap(name, targetBytes) {
  const data = Object.fromEntries(FIELDS.map((f) => [f.name, 'v']));
  const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS, labels: { app: 'kcpt-bench' } }, data };
  const pad = Math.max(1, Math.floor((targetBytes - JSON.stringify(obj).length) / FIELDS.length) + 1);
  for (const f of FIELDS) data[f.name] = 'v'.repeat(pad);
  return obj;
}

async function waitEstablished(c) {
  for (let i = 0; i < 200; i++) {
    const got = await c.json('GET', `/clusters/root/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.${GROUP}`);
    if ((got.status?.conditions ?? []).some((x) => x.type === 'Established' && x.status === 'True')) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('the bench CRD did not become Established');
}

export async function run(ctx) {
  const { server, c } = ctx;
  await ensureNamespace(c, NS);
  const made = await c.request('POST', '/clusters/root/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd());
  if (made.status !== 201 && made.status !== 409) throw new Error(`create CRD: HTTP ${made.status} ${made.body}`);
  await waitEstablished(c);

  const crBody = JSON.stringify(gizmo('{n}'));
  const cmBody = JSON.stringify(configMap('{n}', crBody.length));
  const headers = { Authorization: `Bearer ${server.token}`, Accept: 'application/json' };
  const create = (path, body, prefix, durationS) =>
    runTemplated(ctx, { url: server.url, method: 'POST', pathTemplate: path, bodyTemplate: body.replace('"{n}"', `"${prefix}{n}"`), headers, connections: 8, durationS });

  // One object of each to GET; the created CR must come back defaulted (proves the work is being done).
  for (const [path, body] of [[CM_PATH, cmBody], [CR_PATH, crBody]]) {
    const res = await c.request('POST', path, body.replace('{n}', 'get-target'));
    if (res.status !== 201 && res.status !== 409) throw new Error(`create GET target: HTTP ${res.status} ${res.body}`);
  }
  const target = await c.json('GET', `${CR_PATH}/get-target`);
  if (target.spec.def0 !== 'defaulted-value') throw new Error('the custom resource was not defaulted');
  const getLoad = (path) => {
    const opts = { url: `${server.url}${path}/get-target`, connections: 8, durationS: ctx.durationS, headers };
    return ctx.useWrk ? runWrk(opts) : runNodeLoad(opts);
  };
  log(`  bodies: Gizmo ${crBody.length} B (30 spec fields), ConfigMap ${cmBody.length} B (30 data keys)`);

  await create(CM_PATH, cmBody, 'warm-', 2);
  await create(CR_PATH, crBody, 'warm-', 2);
  const cmCreate = [];
  const crCreate = [];
  const cmGet = [];
  const crGet = [];
  for (let i = 0; i < ctx.runs; i++) {
    cmCreate.push(await withServerCpu(server.child.pid, () => create(CM_PATH, cmBody, `r${i}-`)));
    crCreate.push(await withServerCpu(server.child.pid, () => create(CR_PATH, crBody, `r${i}-`)));
    cmGet.push(await withServerCpu(server.child.pid, () => getLoad(CM_PATH)));
    crGet.push(await withServerCpu(server.child.pid, () => getLoad(CR_PATH)));
    log(
      `  run ${i + 1}: create ConfigMap ${cmCreate.at(-1).rps.toFixed(0)}/s, Gizmo ${crCreate.at(-1).rps.toFixed(0)}/s; ` +
        `GET ConfigMap ${cmGet.at(-1).rps.toFixed(0)}/s, Gizmo ${crGet.at(-1).rps.toFixed(0)}/s`,
    );
  }
  const bad = [...cmCreate, ...crCreate, ...cmGet, ...crGet].reduce((a, x) => a + x.non2xx + x.errors, 0);
  if (bad) throw new Error(`${bad} requests failed (every create must be 201 and every GET 200)`);
  const row = (name, k, b, target) => ({
    name,
    unit: 'rate',
    kcpt: median(k.map((x) => x.rps)),
    baseline: median(b.map((x) => x.rps)),
    baselineName: 'same for a ConfigMap',
    target,
    runs: { kcpt: k.map((x) => x.rps), baseline: b.map((x) => x.rps) },
    extra: { kcptP50: median(k.map((x) => x.p50)), kcptP99: median(k.map((x) => x.p99)), kcptCpuUs: median(k.map((x) => x.cpuUsPerReq)), rawCpuUs: median(b.map((x) => x.cpuUsPerReq)), rawCpuLabel: 'ConfigMap' },
  });
  return [
    row('CREATE custom resource (30-field schema), 8 conns', crCreate, cmCreate, { kind: 'ratio', min: 0.7 }),
    row('GET custom resource, 8 conns', crGet, cmGet, { kind: 'info-ratio' }),
  ];
}
