/**
 * What a workspace is made of, as a client sees it, pinned field by field so that changes to how kcpt stores and
 * schedules workspaces (the workspace cost work) cannot change what kcp users see: the Workspace through its watch
 * (Scheduling, then Ready in one step), its LogicalCluster, the `default` namespace and the creator's
 * `workspace-admin` binding, a nested workspace's type, the deletion sequence, and a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRequest, openWatch, type WatchStream } from '../helpers/http.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { eventually } from '../helpers/eventually.js';

const WS = '/apis/tenancy.kcp.io/v1alpha1/workspaces';
let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.stop();
});

/**
 * Replaces what differs from run to run (uids, times, cluster names, the port) with stable placeholders; sorts
 * managedFields by manager (kube orders entries by time first, and the two writes may fall in different seconds).
 */
function normalize(value: unknown, clusters: Map<string, string>): unknown {
  const meta = (value as { metadata?: { managedFields?: { manager: string }[] } }).metadata;
  const sorted = meta?.managedFields
    ? { ...(value as object), metadata: { ...meta, managedFields: [...meta.managedFields].sort((a, b) => (a.manager < b.manager ? -1 : 1)) } }
    : value;
  const text = JSON.stringify(sorted)
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uid>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/g, '<time>')
    .replace(/"resourceVersion":"\d+"/g, '"resourceVersion":"<rv>"')
    .replace(/127\.0\.0\.1:\d+/g, '<host>')
    .replace(/\b[0-9a-z]{16}\b/g, (name) => {
      if (!clusters.has(name)) clusters.set(name, `<cluster-${clusters.size + 1}>`);
      return clusters.get(name)!;
    });
  return JSON.parse(text);
}

async function json(path: string, opts: Parameters<typeof apiRequest>[2] = {}) {
  const res = await apiRequest(server, path, opts);
  if (res.status >= 300) throw new Error(`${opts.method ?? 'GET'} ${path}: ${res.status} ${res.body}`);
  return res.json();
}

function createWorkspace(parent: string, name: string) {
  return json(`/clusters/${parent}${WS}?fieldManager=kubectl-create`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name } }),
  });
}

async function watchFromNow(path: string): Promise<WatchStream> {
  const list = await json(`${path}?limit=1`);
  return openWatch(server, `${path}?watch=true&resourceVersion=${list.metadata.resourceVersion}`);
}

describe('a workspace created by kcp-admin', () => {
  const clusters = new Map<string, string>();
  let watch: WatchStream;
  let created: any;

  beforeAll(async () => {
    watch = await watchFromNow(`/clusters/root${WS}`);
    created = await createWorkspace('root', 'objects-org');
    await eventually('Ready', () => (watch.events.some((e) => e.object?.status?.phase === 'Ready') ? true : undefined), 15_000, 20);
  });
  afterAll(() => watch?.close());

  it('is answered in phase Scheduling, and watched Scheduling then Ready, nothing in between', () => {
    expect(normalize(created, clusters)).toEqual({
      apiVersion: 'tenancy.kcp.io/v1alpha1',
      kind: 'Workspace',
      metadata: {
        annotations: {
          'experimental.tenancy.kcp.io/owner': '{"username":"kcp-admin","uid":"<uid>","groups":["system:kcp:admin","system:authenticated"]}',
          'kcp.io/cluster': 'root',
        },
        creationTimestamp: '<time>',
        generation: 1,
        labels: { 'tenancy.kcp.io/phase': 'Scheduling' },
        managedFields: [
          { apiVersion: 'tenancy.kcp.io/v1alpha1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': {} }, manager: 'kubectl-create', operation: 'Update', time: '<time>' },
        ],
        name: 'objects-org',
        resourceVersion: '<rv>',
        uid: '<uid>',
      },
      spec: { type: { name: 'organization', path: 'root' } },
      status: { phase: 'Scheduling' },
    });
    const mine = watch.events.filter((e) => e.object?.metadata?.name === 'objects-org');
    expect(mine.map((e) => [e.type, e.object.status?.phase])).toEqual([
      ['ADDED', 'Scheduling'],
      ['MODIFIED', 'Ready'],
    ]);
    expect(normalize(mine[0]!.object, clusters)).toEqual(normalize(created, clusters));
    const ready = normalize(mine[1]!.object, clusters);
    expect(ready).toEqual({
      apiVersion: 'tenancy.kcp.io/v1alpha1',
      kind: 'Workspace',
      metadata: {
        annotations: {
          'core.kcp.io/shard': 'root',
          'experimental.tenancy.kcp.io/owner': '{"username":"kcp-admin"}',
          'internal.tenancy.kcp.io/cluster': '<cluster-1>',
          'internal.tenancy.kcp.io/shard': '1pfxsevk',
          'kcp.io/cluster': 'root',
        },
        creationTimestamp: '<time>',
        finalizers: ['core.kcp.io/logicalcluster'],
        generation: 2,
        labels: { 'tenancy.kcp.io/phase': 'Ready' },
        managedFields: [
          {
            apiVersion: 'tenancy.kcp.io/v1alpha1',
            fieldsType: 'FieldsV1',
            fieldsV1: {
              'f:metadata': {
                'f:annotations': {
                  'f:core.kcp.io/shard': {},
                  'f:experimental.tenancy.kcp.io/owner': {},
                  'f:internal.tenancy.kcp.io/cluster': {},
                  'f:internal.tenancy.kcp.io/shard': {},
                },
                'f:finalizers': { '.': {}, 'v:"core.kcp.io/logicalcluster"': {} },
                'f:labels': { 'f:tenancy.kcp.io/phase': {} },
              },
              'f:spec': { 'f:URL': {}, 'f:cluster': {} },
            },
            manager: 'kcpt',
            operation: 'Update',
            time: '<time>',
          },
          { apiVersion: 'tenancy.kcp.io/v1alpha1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': {} }, manager: 'kubectl-create', operation: 'Update', time: '<time>' },
        ],
        name: 'objects-org',
        resourceVersion: '<rv>',
        uid: '<uid>',
      },
      spec: { URL: 'https://<host>/clusters/root:objects-org', cluster: '<cluster-1>', type: { name: 'organization', path: 'root' } },
      status: {
        conditions: [
          { lastTransitionTime: '<time>', status: 'True', type: 'WorkspaceScheduled' },
          { lastTransitionTime: '<time>', status: 'True', type: 'WorkspaceInitialized' },
        ],
        phase: 'Ready',
      },
    });
  });

  it('has a LogicalCluster naming its path, type, owner and creator', async () => {
    const lc = normalize(await json(`/clusters/root:objects-org/apis/core.kcp.io/v1alpha1/logicalclusters/cluster`), clusters);
    expect(lc).toEqual({
      apiVersion: 'core.kcp.io/v1alpha1',
      kind: 'LogicalCluster',
      metadata: {
        annotations: {
          'core.kcp.io/shard': 'root',
          'experimental.tenancy.kcp.io/owner': '{"username":"kcp-admin"}',
          'internal.kcpt.dev/apis': 'tenancy.kcp.io',
          'internal.tenancy.kcp.io/type': 'root:organization',
          'kcp.io/cluster': '<cluster-1>',
          'kcp.io/path': 'root:objects-org',
        },
        creationTimestamp: '<time>',
        finalizers: ['core.kcp.io/logicalcluster-deletion'],
        generation: 1,
        labels: { 'tenancy.kcp.io/phase': 'Ready' },
        managedFields: [
          {
            apiVersion: 'core.kcp.io/v1alpha1',
            fieldsType: 'FieldsV1',
            fieldsV1: {
              'f:metadata': {
                'f:annotations': {
                  '.': {},
                  'f:core.kcp.io/shard': {},
                  'f:experimental.tenancy.kcp.io/owner': {},
                  'f:internal.kcpt.dev/apis': {},
                  'f:internal.tenancy.kcp.io/type': {},
                  'f:kcp.io/path': {},
                },
                'f:finalizers': { '.': {}, 'v:"core.kcp.io/logicalcluster-deletion"': {} },
                'f:labels': { '.': {}, 'f:tenancy.kcp.io/phase': {} },
              },
              'f:spec': {
                '.': {},
                'f:createdBy': { '.': {}, 'f:groups': {}, 'f:uid': {}, 'f:username': {} },
                'f:directlyDeletable': {},
                'f:owner': { '.': {}, 'f:apiVersion': {}, 'f:cluster': {}, 'f:name': {}, 'f:resource': {}, 'f:uid': {} },
              },
            },
            manager: 'kcpt',
            operation: 'Update',
            time: '<time>',
          },
        ],
        name: 'cluster',
        resourceVersion: '<rv>',
        uid: '<uid>',
      },
      spec: {
        createdBy: { groups: ['system:kcp:admin', 'system:authenticated'], uid: '<uid>', username: 'kcp-admin' },
        directlyDeletable: false,
        owner: { apiVersion: 'tenancy.kcp.io/v1alpha1', cluster: 'root', name: 'objects-org', resource: 'workspaces', uid: '<uid>' },
      },
      status: {
        URL: 'https://<host>/clusters/<cluster-1>',
        conditions: [{ lastTransitionTime: '<time>', status: 'True', type: 'WorkspaceInitialized' }],
        phase: 'Ready',
      },
    });
  });

  it('has the `default` and `kube-system` namespaces and gives its creator cluster-admin through `workspace-admin`', async () => {
    const ns = await json(`/clusters/root:objects-org/api/v1/namespaces`);
    expect(ns.items.map((n: any) => n.metadata.name)).toEqual(['default', 'kube-system']);
    // A list's items carry no kind or apiVersion, as kube-apiserver writes typed lists; the list names them.
    expect(ns).toMatchObject({ kind: 'NamespaceList', apiVersion: 'v1' });
    expect(normalize(ns.items[0], clusters)).toEqual({
      metadata: {
        annotations: { 'kcp.io/cluster': '<cluster-1>' },
        creationTimestamp: '<time>',
        labels: { 'kubernetes.io/metadata.name': 'default' },
        managedFields: [
          {
            apiVersion: 'v1',
            fieldsType: 'FieldsV1',
            fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:kubernetes.io/metadata.name': {} } } },
            manager: 'kcpt',
            operation: 'Update',
            time: '<time>',
          },
        ],
        name: 'default',
        resourceVersion: '<rv>',
        uid: '<uid>',
      },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    });
    const bindings = await json(`/clusters/root:objects-org/apis/rbac.authorization.k8s.io/v1/clusterrolebindings`);
    expect(bindings).toMatchObject({ kind: 'ClusterRoleBindingList', apiVersion: 'rbac.authorization.k8s.io/v1' });
    expect(bindings.items.map((b: any) => normalize(b, clusters))).toEqual([
      {
        metadata: {
          annotations: { 'kcp.io/cluster': '<cluster-1>' },
          creationTimestamp: '<time>',
          managedFields: [
            { apiVersion: 'rbac.authorization.k8s.io/v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:roleRef': {}, 'f:subjects': {} }, manager: 'kcpt', operation: 'Update', time: '<time>' },
          ],
          name: 'workspace-admin',
          resourceVersion: '<rv>',
          uid: '<uid>',
        },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'kcp-admin' }],
      },
    ]);
  });

  it('takes universal children by default, reachable by path, with the same set of objects', async () => {
    const child = await createWorkspace('root:objects-org', 'team');
    expect(child.spec.type).toEqual({ name: 'universal', path: 'root' });
    const ready = await eventually('team Ready', async () => {
      const ws = await json(`/clusters/root:objects-org${WS}/team`);
      return ws.status?.phase === 'Ready' ? ws : undefined;
    }, 15_000, 20);
    expect(ready.spec.URL).toMatch(/\/clusters\/root:objects-org:team$/);
    const lc = await json(`/clusters/root:objects-org:team/apis/core.kcp.io/v1alpha1/logicalclusters/cluster`);
    expect(lc.metadata.annotations['kcp.io/path']).toBe('root:objects-org:team');
    expect(lc.metadata.annotations['internal.tenancy.kcp.io/type']).toBe('root:universal');
    expect(lc.spec.owner.cluster).toBe(ready.metadata.annotations['kcp.io/cluster']);
    expect((await json(`/clusters/root:objects-org:team/api/v1/namespaces/default`)).status.phase).toBe('Active');
  });

  it('keeps every object as it was across a restart', async () => {
    const before = await Promise.all([
      json(`/clusters/root${WS}/objects-org`),
      json(`/clusters/root:objects-org/apis/core.kcp.io/v1alpha1/logicalclusters/cluster`),
      json(`/clusters/root:objects-org/api/v1/namespaces/default`),
    ]);
    watch.close();
    await server.restart();
    const after = await Promise.all([
      json(`/clusters/root${WS}/objects-org`),
      json(`/clusters/root:objects-org/apis/core.kcp.io/v1alpha1/logicalclusters/cluster`),
      json(`/clusters/root:objects-org/api/v1/namespaces/default`),
    ]);
    // the LogicalCluster's status.URL follows the (same) port; everything else is byte for byte the same
    expect(after).toEqual(before);
  });

  it('is deleted with its child: Deleting, then gone with its LogicalClusters, watched in that order', async () => {
    const ws = await watchFromNow(`/clusters/root${WS}`);
    const lcs = await watchFromNow('/clusters/root:objects-org/apis/core.kcp.io/v1alpha1/logicalclusters');
    try {
      const res = await apiRequest(server, `/clusters/root${WS}/objects-org`, { method: 'DELETE' });
      expect(res.status).toBe(200);
      await eventually('the workspace DELETED event', () => (ws.events.some((e) => e.type === 'DELETED') ? true : undefined), 30_000, 20);
      const mine = ws.events.filter((e) => e.object?.metadata?.name === 'objects-org');
      const steps = mine.map((e) => [e.type, e.object.status?.phase, e.object.metadata.labels?.['tenancy.kcp.io/phase'], Boolean(e.object.metadata.deletionTimestamp), e.object.metadata.finalizers ?? []]);
      expect(steps[0]).toEqual(['MODIFIED', 'Ready', 'Ready', true, ['core.kcp.io/logicalcluster']]);
      expect(steps).toContainEqual(['MODIFIED', 'Deleting', 'Deleting', true, ['core.kcp.io/logicalcluster']]);
      // Letting go of the last finalizer removes the workspace in one delete, as kube does: DELETED carries the
      // workspace as last stored, finalizer included, and no MODIFIED without it comes first.
      expect(steps.at(-1)).toEqual(['DELETED', 'Deleting', 'Deleting', true, ['core.kcp.io/logicalcluster']]);
      expect(steps.filter(([type, , , , finalizers]) => type === 'MODIFIED' && (finalizers as string[]).length === 0)).toEqual([]);
      expect(lcs.events.at(-1)?.type).toBe('DELETED');
      expect((await apiRequest(server, `/clusters/root${WS}/objects-org`)).status).toBe(404);
      expect((await apiRequest(server, `/clusters/root:objects-org/api/v1/namespaces`)).status).toBe(404);
    } finally {
      ws.close();
      lcs.close();
    }
  });
});
