/**
 * Reserved fields and system objects over the wire, as a hostile tenant tries them: a workspace admin (user-2, or
 * user-1 as the other tenant) rewriting their own LogicalCluster's path, API set, type, object cap, phase label,
 * spec and status through every write path (PUT, JSON / merge / strategic merge patch, server-side apply, the status
 * subresource, dry runs, create, delete, deletecollection), then the attacks those writes enabled: a forged path
 * answering a binding, a forged status putting the workspace in another tenant's initializer view, a Shard inside a
 * workspace; the same rules through the APIExport and lifecycle virtual workspaces; and a snapshot whose file carries
 * forged paths, restored. kcp-admin and the shard admin are the positive controls (kcp's admin and system tiers).
 * Each test makes its own workspaces.
 */
import { describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import { apiRequest, type HttpAnswer } from '../helpers/http.js';
import { apiBinding, apiExport, resourceSchema } from './apis-fixtures.js';
import { eventually, useTenancyServer, users, type Json } from './tenancy-fixtures.js';

const e2e = useTenancyServer();
let serial = 0;
const unique = (name: string) => `${name}-${++serial}-${Math.random().toString(36).slice(2, 6)}`;

type Caller = { token: string } | { user: 'kcp-admin' | 'shard-admin' };
const alice: Caller = { token: users.user2.token };
const bob: Caller = { token: users.user1.token };
const kcpAdmin: Caller = { user: 'kcp-admin' };
const shardAdmin: Caller = { user: 'shard-admin' };

function call(who: Caller, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<HttpAnswer> {
  const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  return apiRequest(e2e.server, path, { method, ...who, ...(text !== undefined ? { body: text, headers: { 'content-type': contentType } } : {}) });
}

async function ok(who: Caller, method: string, path: string, body?: unknown, contentType?: string): Promise<Json> {
  const answer = await call(who, method, path, body, contentType);
  if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${answer.body}`);
  return answer.json();
}

const lcPath = (ws: string) => `/clusters/${ws}/apis/core.kcp.io/v1alpha1/logicalclusters`;

/** root:<name>, Ready, with `owner` (a token user) its cluster-admin; returns its cluster name. */
async function tenantWorkspace(name: string, owner: string): Promise<string> {
  await ok(kcpAdmin, 'POST', '/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces', { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name } });
  const cluster = await eventually(`root:${name} Ready`, async () => {
    const ws = await ok(kcpAdmin, 'GET', `/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces/${name}`);
    return ws.status?.phase === 'Ready' ? (ws.spec.cluster as string) : undefined;
  });
  await ok(kcpAdmin, 'POST', `/clusters/root:${name}/apis/rbac.authorization.k8s.io/v1/clusterrolebindings`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: `${owner}-admin` },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: owner }],
  });
  return cluster;
}

/** What a write may not have changed: the LogicalCluster without its bookkeeping. */
const essence = (lc: Json) => ({ annotations: lc.metadata.annotations, labels: lc.metadata.labels, finalizers: lc.metadata.finalizers, spec: lc.spec, status: lc.status });

interface Field {
  what: string;
  subresource?: 'status';
  /** The change as a JSON merge patch (also sent as a strategic merge patch, and applied server-side). */
  merge: Json;
  /** The same change as JSON patch operations. */
  json: Json[];
  message: string;
}

const fields = (extraInitializer: string): Field[] => [
  {
    what: 'kcp.io/path',
    merge: { metadata: { annotations: { 'kcp.io/path': 'root:prov' } } },
    json: [{ op: 'replace', path: '/metadata/annotations/kcp.io~1path', value: 'root:prov' }],
    message: 'modification of system-reserved annotation: "kcp.io/path"',
  },
  {
    what: 'the API groups it serves',
    merge: { metadata: { annotations: { 'internal.kcpt.dev/apis': 'tenancy.kcp.io,shards.core.kcp.io' } } },
    json: [{ op: 'replace', path: '/metadata/annotations/internal.kcpt.dev~1apis', value: 'tenancy.kcp.io,shards.core.kcp.io' }],
    message: 'modification of system-reserved annotation: "internal.kcpt.dev/apis"',
  },
  {
    what: 'its type',
    merge: { metadata: { annotations: { 'internal.tenancy.kcp.io/type': 'root:root' } } },
    json: [{ op: 'replace', path: '/metadata/annotations/internal.tenancy.kcp.io~1type', value: 'root:root' }],
    message: 'modification of system-reserved annotation: "internal.tenancy.kcp.io/type"',
  },
  {
    what: 'its object cap',
    merge: { metadata: { annotations: { 'core.kcp.io/max-total-objects': '100000000' } } },
    json: [{ op: 'add', path: '/metadata/annotations/core.kcp.io~1max-total-objects', value: '100000000' }],
    message: 'modification of admin-reserved annotation: "core.kcp.io/max-total-objects"',
  },
  {
    what: 'its phase label',
    merge: { metadata: { labels: { 'tenancy.kcp.io/phase': 'Initializing' } } },
    json: [{ op: 'replace', path: '/metadata/labels/tenancy.kcp.io~1phase', value: 'Initializing' }],
    message: 'modification of system-reserved label: "tenancy.kcp.io/phase"',
  },
  {
    what: 'spec.initializers',
    merge: { spec: { initializers: [extraInitializer] } },
    json: [{ op: 'add', path: '/spec/initializers', value: [extraInitializer] }],
    message: 'spec.initializers is immutable',
  },
  {
    what: 'status: back to Initializing on another tenant’s initializer',
    subresource: 'status',
    merge: { status: { phase: 'Initializing', initializers: [extraInitializer] } },
    json: [
      { op: 'replace', path: '/status/phase', value: 'Initializing' },
      { op: 'add', path: '/status/initializers', value: [extraInitializer] },
    ],
    message: 'status.initializers do not equal spec.initializers',
  },
  {
    what: 'status.URL',
    subresource: 'status',
    merge: { status: { URL: 'https://evil.example/clusters/root:b' } },
    json: [{ op: 'replace', path: '/status/URL', value: 'https://evil.example/clusters/root:b' }],
    message: 'status.URL can only be changed by system privileged users',
  },
];

function merged(target: Json, patch: Json): Json {
  const out = structuredClone(target);
  for (const [k, v] of Object.entries(patch)) {
    out[k] = v && typeof v === 'object' && !Array.isArray(v) && out[k] && typeof out[k] === 'object' ? merged(out[k], v) : v;
  }
  return out;
}

describe('a workspace admin and their LogicalCluster', () => {
  it('cannot write its reserved fields by any write path; kcp-admin and the shard admin as kcp allows', async () => {
    const ws = `root:${unique('table')}`;
    await tenantWorkspace(ws.slice(5), users.user2.name);
    const url = `${lcPath(ws)}/cluster`;
    const before = await ok(kcpAdmin, 'GET', url);
    const wrong: string[] = [];
    let tries = 0;
    const expectRefused = async (label: string, answer: Promise<HttpAnswer>, message: string) => {
      tries++;
      const got = await answer;
      const want = `logicalclusters.core.kcp.io "cluster" is forbidden: ${message}`;
      if (got.status !== 403 || got.json().message !== want) wrong.push(`${label}: ${got.status} ${got.body.slice(0, 300)}`);
    };
    for (const f of fields('root:other:provision')) {
      const target = f.subresource ? `${url}/status` : url;
      const current = await ok(alice, 'GET', url);
      await expectRefused(`${f.what} by PUT`, call(alice, 'PUT', target, merged(current, f.merge)), f.message);
      await expectRefused(`${f.what} by JSON patch`, call(alice, 'PATCH', target, f.json, 'application/json-patch+json'), f.message);
      await expectRefused(`${f.what} by merge patch`, call(alice, 'PATCH', target, f.merge, 'application/merge-patch+json'), f.message);
      await expectRefused(`${f.what} by merge patch, dry run`, call(alice, 'PATCH', `${target}?dryRun=All`, f.merge, 'application/merge-patch+json'), f.message);
      await expectRefused(`${f.what} by strategic merge patch`, call(alice, 'PATCH', target, f.merge, 'application/strategic-merge-patch+json'), f.message);
      const config = toYaml({ apiVersion: 'core.kcp.io/v1alpha1', kind: 'LogicalCluster', metadata: { name: 'cluster' }, ...merged({}, f.merge) });
      await expectRefused(`${f.what} by server-side apply`, call(alice, 'PATCH', `${target}?fieldManager=mallory&force=true`, config, 'application/apply-patch+yaml'), f.message);
    }
    const fresh = { apiVersion: 'core.kcp.io/v1alpha1', kind: 'LogicalCluster', metadata: { name: 'cluster' } };
    await expectRefused('create', call(alice, 'POST', lcPath(ws), fresh), 'LogicalCluster cannot be created');
    await expectRefused('delete, dry run', call(alice, 'DELETE', `${url}?dryRun=All`), 'LogicalCluster cannot be deleted');
    await expectRefused('delete', call(alice, 'DELETE', url), 'LogicalCluster cannot be deleted');
    await expectRefused('deletecollection', call(alice, 'DELETE', lcPath(ws)), 'LogicalCluster cannot be deleted');
    console.log(`reserved fields of a LogicalCluster: ${tries} writes by its workspace admin, ${wrong.length} not refused as kcp refuses them`);
    expect(wrong).toEqual([]);
    expect(essence(await ok(kcpAdmin, 'GET', url))).toEqual(essence(before));

    // kcp's admin may set the admin-reserved cap, not the system's keys; the shard admin (the system) may.
    const cap = { metadata: { annotations: { 'core.kcp.io/max-total-objects': '5000' } } };
    expect((await ok(kcpAdmin, 'PATCH', url, cap, 'application/merge-patch+json')).metadata.annotations['core.kcp.io/max-total-objects']).toBe('5000');
    const note = { metadata: { annotations: { 'internal.tenancy.kcp.io/note': 'by the system' } } };
    const byKcpAdmin = await call(kcpAdmin, 'PATCH', url, note, 'application/merge-patch+json');
    expect([byKcpAdmin.status, byKcpAdmin.json().message]).toEqual([403, 'logicalclusters.core.kcp.io "cluster" is forbidden: modification of system-reserved annotation: "internal.tenancy.kcp.io/note"']);
    expect((await ok(shardAdmin, 'PATCH', url, note, 'application/merge-patch+json')).metadata.annotations['internal.tenancy.kcp.io/note']).toBe('by the system');
    // What the workspace admin may set (kcp: required groups, owner, their own keys) still works.
    expect((await ok(alice, 'PATCH', url, { metadata: { annotations: { 'example.com/note': 'mine' } } }, 'application/merge-patch+json')).metadata.annotations['example.com/note']).toBe('mine');
  }, 180_000);

  it('answers the real kubectl as kcp does', async () => {
    const name = unique('kubectl');
    await tenantWorkspace(name, users.user2.name);
    const k = e2e.asUser(users.user2.token, `root:${name}`);
    const refusedWith = async (args: string[], message: string) => {
      const run = await k(args, { reject: false });
      expect(run.exitCode).not.toBe(0);
      expect(run.stderr).toContain(message);
    };
    await refusedWith(['annotate', 'logicalcluster', 'cluster', 'kcp.io/path=root:prov', '--overwrite'], 'Error from server (Forbidden): logicalclusters.core.kcp.io "cluster" is forbidden: modification of system-reserved annotation: "kcp.io/path"');
    await refusedWith(['label', 'logicalcluster', 'cluster', 'tenancy.kcp.io/phase=Initializing', '--overwrite'], 'modification of system-reserved label: "tenancy.kcp.io/phase"');
    await refusedWith(
      ['patch', 'logicalcluster', 'cluster', '--subresource=status', '--type=merge', '-p', '{"status":{"phase":"Initializing","initializers":["root:b:provision"]}}'],
      'logicalclusters.core.kcp.io "cluster" is forbidden: status.initializers do not equal spec.initializers',
    );
    await refusedWith(['delete', 'logicalcluster', 'cluster', '--dry-run=server'], 'logicalclusters.core.kcp.io "cluster" is forbidden: LogicalCluster cannot be deleted');
    const shard = await k(['create', '-f', '-'], { reject: false, input: toYaml({ apiVersion: 'core.kcp.io/v1alpha1', kind: 'Shard', metadata: { name: 'evil' }, spec: { baseURL: 'https://evil:6443' } }) });
    expect(shard.exitCode).not.toBe(0);
    expect(shard.stderr).toMatch(/no matches for kind "Shard"|the server could not find the requested resource/);
  }, 120_000);
});

describe('what a forged LogicalCluster enabled', () => {
  it('a path that is not in the workspace tree binds nothing, even where a LogicalCluster carries it', async () => {
    const mine = unique('alice');
    const theirs = unique('bob');
    const prov = unique('prov');
    await Promise.all([tenantWorkspace(mine, users.user2.name), tenantWorkspace(theirs, users.user1.name)]);
    const url = `${lcPath(`root:${mine}`)}/cluster`;
    const forge = { metadata: { annotations: { 'kcp.io/path': `root:${prov}` } } };
    const refused = await call(alice, 'PATCH', url, forge, 'application/merge-patch+json');
    expect([refused.status, refused.json().message]).toEqual([403, 'logicalclusters.core.kcp.io "cluster" is forbidden: modification of system-reserved annotation: "kcp.io/path"']);
    // An export made now carries the workspace's real path, whatever it asks for.
    const group = `${mine}.example.com`;
    await ok(alice, 'POST', `/clusters/root:${mine}/apis/apis.kcp.io/v1alpha1/apiresourceschemas`, resourceSchema({ group, plural: 'widgets', kind: 'Widget' }));
    const exp = await ok(alice, 'POST', `/clusters/root:${mine}/apis/apis.kcp.io/v1alpha2/apiexports`, merged(apiExport({ name: 'widgets', group, plural: 'widgets' }), forge));
    expect(exp.metadata.annotations['kcp.io/path']).toBe(`root:${mine}`);
    await ok(alice, 'POST', `/clusters/root:${mine}/apis/rbac.authorization.k8s.io/v1/clusterroles`, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'bind-widgets' },
      rules: [{ apiGroups: ['apis.kcp.io'], resources: ['apiexports'], verbs: ['bind'] }],
    });
    await ok(alice, 'POST', `/clusters/root:${mine}/apis/rbac.authorization.k8s.io/v1/clusterrolebindings`, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'everyone-binds' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'bind-widgets' },
      subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:authenticated' }],
    });
    // Even a LogicalCluster that does carry the path (the shard admin may write it; a store from before) does not
    // make a path the tree does not have lead there.
    await ok(shardAdmin, 'PATCH', url, forge, 'application/merge-patch+json');
    await ok(alice, 'PUT', `/clusters/root:${mine}/apis/apis.kcp.io/v1alpha2/apiexports/widgets`, await ok(alice, 'GET', `/clusters/root:${mine}/apis/apis.kcp.io/v1alpha2/apiexports/widgets`));
    const binding = await call(bob, 'POST', `/clusters/root:${theirs}/apis/apis.kcp.io/v1alpha2/apibindings`, apiBinding('widgets', 'widgets', { exportPath: `root:${prov}` }));
    expect([binding.status, binding.json().message]).toEqual([
      403,
      `apibindings.apis.kcp.io "widgets" is forbidden: unable to create APIBinding: no permission to bind to export root:${prov}:widgets`,
    ]);
    // The real path still binds.
    const real = await call(bob, 'POST', `/clusters/root:${theirs}/apis/apis.kcp.io/v1alpha2/apibindings`, apiBinding('real', 'widgets', { exportPath: `root:${mine}` }));
    expect(real.status).toBe(201);
  }, 180_000);

  it('a forged status does not put a workspace in another tenant’s initializer view', async () => {
    const mine = unique('alice');
    const theirs = unique('bob');
    const [aliceCluster] = await Promise.all([tenantWorkspace(mine, users.user2.name), tenantWorkspace(theirs, users.user1.name)]);
    await ok(bob, 'POST', `/clusters/root:${theirs}/apis/tenancy.kcp.io/v1alpha1/workspacetypes`, {
      apiVersion: 'tenancy.kcp.io/v1alpha1',
      kind: 'WorkspaceType',
      metadata: { name: 'provision' },
      spec: { initializer: true, extend: { with: [{ name: 'universal', path: 'root' }] } },
    });
    const initializer = `root:${theirs}:provision`;
    const status = { status: { phase: 'Initializing', initializers: [initializer] } };
    const forged = await call(alice, 'PATCH', `${lcPath(`root:${mine}`)}/cluster/status`, status, 'application/merge-patch+json');
    expect([forged.status, forged.json().message]).toEqual([403, 'logicalclusters.core.kcp.io "cluster" is forbidden: status.initializers do not equal spec.initializers']);
    const view = `/services/initializingworkspaces/${initializer}/clusters`;
    const listed = await ok(bob, 'GET', `${view}/*/apis/core.kcp.io/v1alpha1/logicalclusters`);
    expect(listed.items).toEqual([]);
    const written = await call(bob, 'POST', `${view}/${aliceCluster}/api/v1/namespaces/default/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'planted' } });
    expect(written.status).toBe(403);
    expect((await call(kcpAdmin, 'GET', `/clusters/root:${mine}/api/v1/namespaces/default/configmaps/planted`)).status).toBe(404);
  }, 120_000);

  it('no Shard inside a workspace', async () => {
    const mine = unique('alice');
    await tenantWorkspace(mine, users.user2.name);
    const shard = await call(alice, 'POST', `/clusters/root:${mine}/apis/core.kcp.io/v1alpha1/shards`, { apiVersion: 'core.kcp.io/v1alpha1', kind: 'Shard', metadata: { name: 'evil' }, spec: { baseURL: 'https://evil:6443' } });
    expect(shard.status).toBe(404);
    // Not even where the shard admin said the workspace serves Shards: they exist in root only.
    await ok(shardAdmin, 'PATCH', `${lcPath(`root:${mine}`)}/cluster`, { metadata: { annotations: { 'internal.kcpt.dev/apis': 'tenancy.kcp.io,shards.core.kcp.io' } } }, 'application/merge-patch+json');
    const again = await call(shardAdmin, 'POST', `/clusters/root:${mine}/apis/core.kcp.io/v1alpha1/shards`, { apiVersion: 'core.kcp.io/v1alpha1', kind: 'Shard', metadata: { name: 'evil' }, spec: { baseURL: 'https://evil:6443' } });
    expect(again.status).toBe(404);
  }, 120_000);
});

describe('the same rules through the virtual workspaces', () => {
  it('the APIExport view: a provider writes no reserved label into a consumer’s object', async () => {
    const provider = unique('provider');
    const consumer = unique('consumer');
    const [providerCluster, consumerCluster] = await Promise.all([tenantWorkspace(provider, users.user1.name), tenantWorkspace(consumer, users.user2.name)]);
    const group = `${provider}.example.com`;
    await ok(bob, 'POST', `/clusters/root:${provider}/apis/apis.kcp.io/v1alpha1/apiresourceschemas`, resourceSchema({ group, plural: 'widgets', kind: 'Widget' }));
    await ok(bob, 'POST', `/clusters/root:${provider}/apis/apis.kcp.io/v1alpha2/apiexports`, apiExport({ name: 'widgets', group, plural: 'widgets' }));
    await ok(kcpAdmin, 'POST', `/clusters/root:${consumer}/apis/apis.kcp.io/v1alpha2/apibindings`, apiBinding('widgets', 'widgets', { exportPath: `root:${provider}` }));
    const collection = `/clusters/root:${consumer}/apis/${group}/v1/namespaces/default/widgets`;
    await eventually('widgets served in the consumer', async () => ((await call(alice, 'GET', collection)).status === 200 ? true : undefined));
    await ok(alice, 'POST', collection, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 1 } });
    const inView = `/services/apiexport/${providerCluster}/widgets/clusters/${consumerCluster}/apis/${group}/v1/namespaces/default/widgets/w1`;
    const seen = await eventually<Json>('the provider sees w1', async () => {
      const got = await call(bob, 'GET', inView);
      return got.status === 200 ? got.json() : undefined;
    });
    const reserved = await call(bob, 'PATCH', inView, { metadata: { labels: { 'tenancy.kcp.io/phase': 'Ready' } } }, 'application/merge-patch+json');
    expect([reserved.status, reserved.json().message]).toEqual([403, `widgets.${group} "w1" is forbidden: modification of system-reserved label: "tenancy.kcp.io/phase"`]);
    const forgedPath = await ok(bob, 'PATCH', inView, { metadata: { labels: { tier: 'gold' }, annotations: { 'kcp.io/path': 'root:prov' } } }, 'application/merge-patch+json');
    expect(forgedPath.metadata.labels.tier).toBe('gold');
    expect(forgedPath.metadata.annotations['kcp.io/path']).toBe(`root:${consumer}`);
    expect(seen.metadata.name).toBe('w1');
  }, 180_000);

  it('the initializing view: an initializer removes itself and writes no reserved field', async () => {
    const parent = unique('gate');
    await tenantWorkspace(parent, users.user1.name);
    await ok(bob, 'POST', `/clusters/root:${parent}/apis/tenancy.kcp.io/v1alpha1/workspacetypes`, {
      apiVersion: 'tenancy.kcp.io/v1alpha1',
      kind: 'WorkspaceType',
      metadata: { name: 'gated' },
      spec: { initializer: true, extend: { with: [{ name: 'universal', path: 'root' }] } },
    });
    await ok(bob, 'POST', `/clusters/root:${parent}/apis/tenancy.kcp.io/v1alpha1/workspaces`, {
      apiVersion: 'tenancy.kcp.io/v1alpha1',
      kind: 'Workspace',
      metadata: { name: 'child' },
      spec: { type: { name: 'gated', path: `root:${parent}` } },
    });
    const initializer = `root:${parent}:gated`;
    const cluster = await eventually('child Initializing', async () => {
      const ws = await ok(bob, 'GET', `/clusters/root:${parent}/apis/tenancy.kcp.io/v1alpha1/workspaces/child`);
      return ws.status?.phase === 'Initializing' ? (ws.spec.cluster as string) : undefined;
    });
    const inside = `/services/initializingworkspaces/${initializer}/clusters/${cluster}`;
    const lc = `${inside}/apis/core.kcp.io/v1alpha1/logicalclusters/cluster/status`;
    const alsoReady = await call(bob, 'PATCH', lc, { status: { phase: 'Ready', initializers: [] } }, 'application/merge-patch+json');
    expect(alsoReady.status).toBe(422);
    expect(alsoReady.json().message).toContain(`only removing the "${initializer}" initializer is supported`);
    const planted = await call(bob, 'POST', `${inside}/api/v1/namespaces/default/configmaps`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'seed', labels: { 'tenancy.kcp.io/phase': 'Ready' } },
    });
    expect([planted.status, planted.json().message]).toEqual([403, 'configmaps "seed" is forbidden: modification of system-reserved label: "tenancy.kcp.io/phase"']);
    await ok(bob, 'PATCH', lc, [{ op: 'remove', path: '/status/initializers/0' }], 'application/json-patch+json');
    await eventually('child Ready', async () => ((await ok(bob, 'GET', `/clusters/root:${parent}/apis/tenancy.kcp.io/v1alpha1/workspaces/child`)).status?.phase === 'Ready' ? true : undefined));
  }, 120_000);
});

describe('snapshot restore', () => {
  it('takes no kcp.io/path from the file: every one is the restored tree’s', async () => {
    const name = unique('snap');
    await tenantWorkspace(name, users.user2.name);
    await ok(kcpAdmin, 'POST', `/clusters/root:${name}/apis/tenancy.kcp.io/v1alpha1/workspaces`, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name: 'inner' } });
    await eventually('inner Ready', async () => ((await ok(kcpAdmin, 'GET', `/clusters/root:${name}/apis/tenancy.kcp.io/v1alpha1/workspaces/inner`)).status?.phase === 'Ready' ? true : undefined));
    const group = `${name}.example.com`;
    await ok(kcpAdmin, 'POST', `/clusters/root:${name}:inner/apis/apis.kcp.io/v1alpha1/apiresourceschemas`, resourceSchema({ group, plural: 'widgets', kind: 'Widget' }));
    await ok(kcpAdmin, 'POST', `/clusters/root:${name}:inner/apis/apis.kcp.io/v1alpha2/apiexports`, apiExport({ name: 'widgets', group, plural: 'widgets' }));
    const snapshot = await call(shardAdmin, 'GET', `/kcpt/snapshot?workspace=root:${name}`);
    expect(snapshot.status).toBe(200);
    // A crafted file: every path it carries names someone else's workspace.
    const crafted = snapshot.body.replaceAll(new RegExp(`"kcp.io/path":"root:${name}(:inner)?"`, 'g'), '"kcp.io/path":"root:prov"');
    expect(crafted).not.toBe(snapshot.body);
    const copy = unique('copy');
    const restored = await call(shardAdmin, 'POST', `/kcpt/snapshot/restore?as=root:${copy}`, crafted, 'application/jsonl');
    expect(restored.status, restored.body).toBe(201);
    const pathOf = async (ws: string) => (await ok(kcpAdmin, 'GET', `${lcPath(ws)}/cluster`)).metadata.annotations['kcp.io/path'];
    expect(await pathOf(`root:${copy}`)).toBe(`root:${copy}`);
    expect(await pathOf(`root:${copy}:inner`)).toBe(`root:${copy}:inner`);
    const exp = await ok(kcpAdmin, 'GET', `/clusters/root:${copy}:inner/apis/apis.kcp.io/v1alpha2/apiexports/widgets`);
    expect(exp.metadata.annotations['kcp.io/path']).toBe(`root:${copy}:inner`);
    // Restoring is the shard admin's alone.
    expect((await call(alice, 'POST', `/kcpt/snapshot/restore?as=root:${unique('copy')}`, crafted, 'application/jsonl')).status).toBe(403);
  }, 180_000);
});
