/**
 * Workspaces with the real kubectl, as in kcp: create from a file, wait for Ready, the printer columns, the object
 * kcp's admission and controller write (cluster name, URL, phase label, owner annotation, shard annotations,
 * finalizer, conditions), the LogicalCluster inside, the creator's workspace-admin binding, and root's Shard and
 * LogicalCluster. The first block runs with kubectl 1.32 and 1.33. Root's exact list of WorkspaceTypes and placement
 * (which relabels the shard) are in workspaces-private.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { matrixBinaries, uniqueName } from '../helpers/kubectl.js';
import { freshAge, parseTable } from '../helpers/table.js';
import {
  condition,
  create,
  createWorkspace,
  getJson,
  getYaml,
  root,
  useTenancyServer,
  waitForPhase,
  workspace,
} from './tenancy-fixtures.js';

// The shared server: every test makes workspaces of unique names of its own.
const e2e = useTenancyServer();
const clusterName = /^[0-9a-z]{16}$/;

describe.each(matrixBinaries())('kubectl $version: create, wait for and read workspaces', ({ path: binary }) => {
  const k = (args: string[], o?: { reject?: boolean }) => e2e.at('root', binary)(args, o);

  it('create -f, wait for Ready, get workspaces with kcp’s columns', async () => {
    const name = uniqueName('ws');
    expect((await create(k, workspace(name))).stdout).toBe(`workspace.tenancy.kcp.io/${name} created`);
    expect((await waitForPhase(k, name)).stdout).toBe(`workspace.tenancy.kcp.io/${name} condition met`);
    const table = parseTable((await k(['get', 'workspaces', name])).stdout);
    expect(table.header).toEqual(['NAME', 'TYPE', 'REGION', 'PHASE', 'URL', 'AGE']);
    expect(table.rows).toHaveLength(1);
    const [row] = table.records;
    expect(row).toMatchObject({ NAME: name, TYPE: 'organization', REGION: '', PHASE: 'Ready', URL: e2e.url(`root:${name}`) });
    expect(row!.AGE).toMatch(freshAge);
    // The short name and the listing show the same workspace.
    expect(parseTable((await k(['get', 'ws'])).stdout).records.map((r) => r.NAME)).toContain(name);
  });

  it('get ws -o yaml shows what kcp writes on a workspace', async () => {
    const name = uniqueName('ws');
    await create(k, workspace(name));
    await waitForPhase(k, name);
    const ws = await getYaml(k, ['ws', name]);
    expect(ws.spec.cluster).toMatch(clusterName);
    expect(ws.spec).toEqual({ cluster: ws.spec.cluster, URL: e2e.url(`root:${name}`), type: { name: 'organization', path: 'root' } });
    expect(ws.metadata.labels).toEqual({ 'tenancy.kcp.io/phase': 'Ready' });
    expect(ws.metadata.annotations).toEqual({
      'kcp.io/cluster': 'root',
      'core.kcp.io/shard': 'root',
      'internal.tenancy.kcp.io/shard': '1pfxsevk',
      'internal.tenancy.kcp.io/cluster': ws.spec.cluster,
      // Trimmed to the user name once the workspace is Ready.
      'experimental.tenancy.kcp.io/owner': '{"username":"kcp-admin"}',
    });
    expect(ws.metadata.finalizers).toEqual(['core.kcp.io/logicalcluster']);
    expect(ws.status.phase).toBe('Ready');
    expect(condition(ws, 'WorkspaceScheduled')).toBe('True');
    expect(condition(ws, 'WorkspaceInitialized')).toBe('True');
    expect(ws.status.initializers).toBeUndefined();
  });
});

describe('inside a new workspace', () => {
  const k = e2e.at('root');

  it('its LogicalCluster names the path, the type, the owner and the cluster URL', async () => {
    const name = uniqueName('ws');
    const ws = await createWorkspace(k, name);
    const inside = e2e.at(`root:${name}`);
    const table = parseTable((await inside(['get', 'logicalclusters'])).stdout);
    expect(table.header).toEqual(['NAME', 'PHASE', 'URL', 'AGE']);
    expect(table.rows.map((r) => r.slice(0, 3))).toEqual([['cluster', 'Ready', e2e.url(ws.spec.cluster)]]);
    const lc = await getYaml(inside, ['logicalcluster', 'cluster']);
    expect(lc.metadata.annotations).toMatchObject({
      'kcp.io/cluster': ws.spec.cluster,
      'kcp.io/path': `root:${name}`,
      'internal.tenancy.kcp.io/type': 'root:organization',
    });
    // Like the Workspace's, trimmed to the user name once Ready; the phase is a label too.
    expect(lc.metadata.annotations['experimental.tenancy.kcp.io/owner']).toBe('{"username":"kcp-admin"}');
    expect(lc.metadata.labels).toEqual({ 'tenancy.kcp.io/phase': 'Ready' });
    expect(lc.spec.owner).toEqual({
      apiVersion: 'tenancy.kcp.io/v1alpha1',
      resource: 'workspaces',
      name,
      cluster: 'root',
      uid: ws.metadata.uid,
    });
    expect(lc.spec.createdBy.username).toBe('kcp-admin');
    expect(lc.status).toMatchObject({ phase: 'Ready', URL: e2e.url(ws.spec.cluster) });
  });

  it('the creator is cluster-admin through workspace-admin, and kcp’s universal namespaces exist', async () => {
    const name = uniqueName('ws');
    await createWorkspace(k, name);
    const inside = e2e.at(`root:${name}`);
    const crb = await getJson(inside, ['clusterrolebinding', 'workspace-admin']);
    expect(crb.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' });
    expect(crb.subjects).toEqual([{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'kcp-admin' }]);
    const namespaces = parseTable((await inside(['get', 'namespaces'])).stdout).records.map((r) => [r.NAME, r.STATUS]);
    expect(namespaces).toEqual([
      ['default', 'Active'],
      ['kube-system', 'Active'],
    ]);
  });

  it('a system:masters creator is not recorded as owner and gets no binding', async () => {
    const name = uniqueName('ws');
    await create(e2e.asShardAdmin('root'), workspace(name));
    await waitForPhase(k, name);
    const ws = await getJson(k, ['ws', name]);
    expect(ws.metadata.annotations['experimental.tenancy.kcp.io/owner']).toBeUndefined();
    const inside = e2e.at(`root:${name}`);
    const missing = await inside(['get', 'clusterrolebinding', 'workspace-admin'], { reject: false });
    expect(missing.stderr.trim()).toBe('Error from server (NotFound): clusterrolebindings.rbac.authorization.k8s.io "workspace-admin" not found');
    expect((await getJson(inside, ['logicalcluster', 'cluster'])).spec.createdBy).toBeUndefined();
  });

  it('kubectl wait --for=delete follows a workspace away', async () => {
    const name = uniqueName('ws');
    await createWorkspace(k, name, root('organization'));
    expect((await k(['delete', 'workspace', name, '--wait=false'])).stdout).toBe(`workspace.tenancy.kcp.io "${name}" deleted`);
    await k(['wait', '--for=delete', `workspace/${name}`, '--timeout=60s']);
    const gone = await k(['get', 'ws', name], { reject: false });
    expect(gone.stderr.trim()).toBe(`Error from server (NotFound): workspaces.tenancy.kcp.io "${name}" not found`);
  });
});

describe('root’s built-ins', () => {
  const k = e2e.at('root');

  it('get shards shows this server as Shard root', async () => {
    const table = parseTable((await k(['get', 'shards'])).stdout);
    expect(table.header).toEqual(['NAME', 'REGION', 'URL', 'EXTERNAL URL', 'AGE']);
    expect(table.rows.map((r) => r.slice(0, 4))).toEqual([['root', '', e2e.server.url, e2e.server.url]]);
    const shard = await getJson(k, ['shard', 'root']);
    expect(shard.metadata.labels).toEqual({ name: 'root' });
    expect(shard.spec).toEqual({ baseURL: e2e.server.url, externalURL: e2e.server.url, virtualWorkspaceURL: e2e.server.url });
  });

  it('root’s own LogicalCluster is Ready and of type root:root', async () => {
    const lc = await getJson(k, ['logicalcluster', 'cluster']);
    expect(lc.metadata.annotations['internal.tenancy.kcp.io/type']).toBe('root:root');
    expect(lc.status).toMatchObject({ phase: 'Ready', URL: e2e.url('root') });
  });
});
