/**
 * Initializers and terminators through kcp's lifecycle virtual workspaces, driven as their controllers drive them:
 * with kubectl (`--server` set to the URL the WorkspaceType publishes) and with a @kubernetes/client-node watch.
 * A workspace of a type with `initializer: true` waits in Initializing until the initializer removes itself from
 * the LogicalCluster's status; one with `terminator: true` is kept on deletion until the terminator does. Both
 * survive a server restart in the middle (lifecycle-virtual-workspaces-restart.test.ts).
 */
import * as k8s from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { matrixBinaries, uniqueName, type ClusterKubectl } from '../helpers/kubectl.js';
import { apiRequest, openWatch } from '../helpers/http.js';
import { expectError } from '../helpers/suite.js';
import { removeFirst, lifecycleWorld } from './lifecycle-fixtures.js';
import { condition, create, eventually, getJson, useTenancyServer, waitForPhase, workspaceByApi, workspaceType, type Json } from './tenancy-fixtures.js';

// The shared server: the types and workspaces live in an organization of this file's own (the restart case is in
// lifecycle-virtual-workspaces-restart.test.ts, with a server of its own).
const e2e = useTenancyServer();
const { orgPath, k, initA, initB, term, ofOrg, setUp, publishedUrl, workspaceIn } = lifecycleWorld(e2e);

beforeAll(setUp, 60_000);

describe.each(matrixBinaries())('an initializer with kubectl $version', ({ path: binary }) => {
  const vwAt = (url: string): ClusterKubectl => (args, o) => e2e.atUrl(url)(args, { binary, ...o });

  it('sees only the workspaces waiting on it, seeds one, removes itself and the workspace turns Ready', async () => {
    const mine = await workspaceIn('Initializing', initA);
    const other = await workspaceIn('Initializing', initB);
    expect(mine.status.initializers).toEqual([`${orgPath}:${initA}`]);
    expect(condition(mine, 'WorkspaceInitialized')).toBe(`False InitializerExists Initializers still exist: [${orgPath}:${initA}]`);
    expect(mine.metadata.labels['tenancy.kcp.io/phase']).toBe('Initializing');

    const vw = await publishedUrl(initA, 'initializingworkspaces');
    expect(vw).toBe(`${e2e.server.url}/services/initializingworkspaces/${orgPath}:${initA}`);
    const waiting = await getJson(vwAt(`${vw}/clusters/*`), ['logicalclusters']);
    const clusters = (waiting.items as Json[]).map((lc) => lc.metadata.annotations['kcp.io/cluster']);
    expect(clusters).toContain(mine.spec.cluster);
    expect(clusters).not.toContain(other.spec.cluster);
    const lc = (waiting.items as Json[]).find((x) => x.metadata.annotations['kcp.io/cluster'] === mine.spec.cluster)!;
    expect(lc.metadata.annotations['kcp.io/path']).toBe(`${orgPath}:${mine.metadata.name}`);
    expect(lc.status).toMatchObject({ phase: 'Initializing', initializers: [`${orgPath}:${initA}`] });

    const inside = vwAt(`${vw}/clusters/${mine.spec.cluster}`);
    // The workspace's content is reachable while it initializes: the initializer seeds it.
    await inside(['create', 'configmap', 'seeded', '-n', 'default', '--from-literal=by=initializer']);
    // The LogicalCluster is read-only there, and only the initializer's own entry may go.
    const relabel = await inside(['patch', 'logicalcluster', 'cluster', '--type=merge', '-p', '{"metadata":{"labels":{"x":"y"}}}'], { reject: false });
    expectError(relabel, /^Error from server \(MethodNotAllowed\): patch is not supported on resources of kind "logicalclusters/);
    const hijack = await inside(
      ['patch', 'logicalcluster', 'cluster', '--subresource=status', '--type=merge', '-p', '{"status":{"initializers":["root:someone-else"]}}'],
      { reject: false },
    );
    expectError(
      hijack,
      `The Workspace "cluster" is invalid: status.initializers: Invalid value: []string{"root:someone-else"}: only removing the "${orgPath}:${initA}" initializer is supported`,
    );
    const removed = await inside(['patch', 'logicalcluster', 'cluster', '--subresource=status', '--type=json', '-p', removeFirst('initializers')]);
    expect(removed.stdout).toBe('logicalcluster.core.kcp.io/cluster patched');

    await waitForPhase(vwAt(e2e.url(orgPath)), mine.metadata.name);
    const ready = await getJson(k, ['ws', mine.metadata.name]);
    expect(ready.status.initializers).toBeUndefined();
    const readyCluster = await getJson(e2e.at(`${orgPath}:${mine.metadata.name}`), ['logicalcluster', 'cluster']);
    expect(readyCluster.metadata.labels).toEqual({ 'tenancy.kcp.io/phase': 'Ready' });
    expect(readyCluster.status.phase).toBe('Ready');
    expect(condition(ready, 'WorkspaceInitialized')).toBe('True');
    expect((await getJson(e2e.at(`${orgPath}:${mine.metadata.name}`), ['configmap', 'seeded', '-n', 'default'])).data).toEqual({ by: 'initializer' });
    // Done: the workspace has left the virtual workspace.
    const after = await getJson(vwAt(`${vw}/clusters/*`), ['logicalclusters']);
    expect((after.items as Json[]).map((x) => x.metadata.annotations['kcp.io/cluster'])).not.toContain(mine.spec.cluster);
    expectError(await inside(['get', 'logicalcluster', 'cluster'], { reject: false }), 'Error from server (NotFound): logicalclusters.core.kcp.io "cluster" not found');
    expectError(
      await inside(['get', 'configmaps', '-n', 'default'], { reject: false }),
      `Error from server (Forbidden): initializer "${orgPath}:${initA}" cannot access this workspace`,
    );
    // The other initializer's workspace is still waiting.
    expect((await getJson(k, ['ws', other.metadata.name])).status.phase).toBe('Initializing');
  });
});

describe('two initializers', () => {
  it('each removes only itself; the workspace stays Initializing until the last one is done', async () => {
    const both = uniqueName('both');
    await create(k, workspaceType(both, { extend: { with: [ofOrg(initA)] }, initializer: true }));
    const ws = await workspaceIn('Initializing', both);
    const name = ws.metadata.name as string;
    expect(ws.status.initializers).toEqual([`${orgPath}:${initA}`, `${orgPath}:${both}`]);
    const vwA = await publishedUrl(initA, 'initializingworkspaces');
    await e2e.atUrl(`${vwA}/clusters/${ws.spec.cluster}`)([
      'patch', 'logicalcluster', 'cluster', '--subresource=status', '--type=json', '-p', removeFirst('initializers'),
    ]);
    const halfway = await eventually('the first initializer gone', async () => {
      const got = await getJson(k, ['ws', name]);
      return got.status.initializers?.length === 1 ? got : undefined;
    });
    expect(halfway.status.phase).toBe('Initializing');
    expect(condition(halfway, 'WorkspaceInitialized')).toBe(`False InitializerExists Initializers still exist: [${orgPath}:${both}]`);
    const lc = await getJson(e2e.at(`${orgPath}:${name}`), ['logicalcluster', 'cluster']);
    expect(Object.keys(lc.metadata.labels).filter((l) => l.startsWith('initializer.internal.kcp.io/'))).toHaveLength(1);
    // initA is done here: the workspace left its virtual workspace, but not the other one.
    expectError(
      await e2e.atUrl(`${vwA}/clusters/${ws.spec.cluster}`)(['get', 'logicalcluster', 'cluster'], { reject: false }),
      'Error from server (NotFound): logicalclusters.core.kcp.io "cluster" not found',
    );
    const vwBoth = await publishedUrl(both, 'initializingworkspaces');
    await e2e.atUrl(`${vwBoth}/clusters/${ws.spec.cluster}`)([
      'patch', 'logicalcluster', 'cluster', '--subresource=status', '--type=json', '-p', removeFirst('initializers'),
    ]);
    await waitForPhase(k, name);
  });
});

describe('an initializer with @kubernetes/client-node', () => {
  /** The admin kubeconfig with its current context pointed at `server`. */
  function kubeConfigFor(server: string): k8s.KubeConfig {
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(e2e.server.kubeconfig);
    const rootCluster = kc.getCluster('root')!;
    const name = `vw-${uniqueName('c')}`;
    kc.addCluster({ ...rootCluster, name, server });
    kc.addContext({ name, cluster: name, user: 'kcp-admin' });
    kc.setCurrentContext(name);
    return kc;
  }

  it('watches the waiting LogicalClusters, patches its entry away and sees the workspace leave', async () => {
    const vw = await publishedUrl(initA, 'initializingworkspaces');
    const events: { type: string; cluster: string; initializers: string[] }[] = [];
    const watch = new k8s.Watch(kubeConfigFor(`${vw}/clusters/*`));
    let watchError: unknown;
    const controller = await watch.watch(
      '/apis/core.kcp.io/v1alpha1/logicalclusters',
      {},
      (type, obj: Json) => events.push({ type, cluster: obj.metadata.annotations['kcp.io/cluster'], initializers: obj.status?.initializers ?? [] }),
      (err) => (watchError = err),
    );
    try {
      const ws = await workspaceIn('Initializing', initA);
      const cluster = ws.spec.cluster as string;
      await eventually('ADDED for the new workspace', async () => events.find((e) => e.type === 'ADDED' && e.cluster === cluster) ?? (watchError ? Promise.reject(watchError) : undefined));

      const objects = kubeConfigFor(`${vw}/clusters/${cluster}`).makeApiClient(k8s.CustomObjectsApi);
      const patched = (await objects.patchClusterCustomObjectStatus({
        group: 'core.kcp.io',
        version: 'v1alpha1',
        plural: 'logicalclusters',
        name: 'cluster',
        body: [{ op: 'remove', path: '/status/initializers/0' }],
      })) as Json;
      expect(patched.status.initializers ?? []).toEqual([]);
      // It no longer matches the virtual workspace: the watch says it is gone (as a label selector would), with the
      // content it last matched with, as kube's watch cache sends it.
      const gone = await eventually('DELETED for the initialized workspace', async () => events.find((e) => e.type === 'DELETED' && e.cluster === cluster));
      expect(gone.initializers).toEqual([`${orgPath}:${initA}`]);
      await waitForPhase(k, ws.metadata.name);
    } finally {
      controller.abort();
    }
  });
});

describe('a terminator', () => {
  it('holds a deleted workspace and its LogicalCluster in Terminating until it removes itself', async () => {
    const ws = await workspaceByApi(e2e, orgPath, uniqueName('ws'), ofOrg(term));
    const name = ws.metadata.name as string;
    expect(ws.status.terminators).toEqual([`${orgPath}:${term}`]);
    await e2e.at(`${orgPath}:${name}`)(['create', 'configmap', 'data', '-n', 'default']);
    expect((await k(['delete', 'workspace', name, '--wait=false'])).stdout).toBe(`workspace.tenancy.kcp.io "${name}" deleted`);
    await waitForPhase(k, name, 'Terminating');
    const held = await getJson(k, ['ws', name]);
    expect(held.metadata.deletionTimestamp).toBeDefined();
    expect(held.status.terminators).toEqual([`${orgPath}:${term}`]);
    // kcp labels anything being deleted `Deleting`, whatever the phase says.
    expect(held.metadata.labels['tenancy.kcp.io/phase']).toBe('Deleting');
    const lc = await getJson(e2e.at(`${orgPath}:${name}`), ['logicalcluster', 'cluster']);
    expect(lc.metadata.deletionTimestamp).toBeDefined();
    expect(lc.metadata.labels['tenancy.kcp.io/phase']).toBe('Deleting');
    expect(lc.status).toMatchObject({ phase: 'Terminating', terminators: [`${orgPath}:${term}`] });

    const vw = await publishedUrl(term, 'terminatingworkspaces');
    const listed = await getJson(e2e.atUrl(`${vw}/clusters/*`), ['logicalclusters']);
    expect((listed.items as Json[]).map((x) => x.metadata.annotations['kcp.io/cluster'])).toEqual([ws.spec.cluster]);
    const inside = e2e.atUrl(`${vw}/clusters/${ws.spec.cluster}`);
    // The terminator can still read what it cleans up.
    expect((await getJson(inside, ['configmap', 'data', '-n', 'default'])).metadata.name).toBe('data');
    // Emptying the list removes exactly this terminator (the only one), so it is allowed.
    await inside(['patch', 'logicalcluster', 'cluster', '--subresource=status', '--type=merge', '-p', '{"status":{"terminators":[]}}']);
    await k(['wait', '--for=delete', `workspace/${name}`, '--timeout=60s']);
    expectError(
      await k(['get', '--raw', `/clusters/${orgPath}:${name}/api/v1/configmaps`], { reject: false }),
      `Error from server (NotFound): workspaces.tenancy.kcp.io "${orgPath}:${name}" not found`,
    );
    const rows = await e2e.asShardAdmin('*')(['get', 'configmaps', '-A', '-o', 'json']);
    expect((JSON.parse(rows.stdout).items as Json[]).filter((cm) => cm.metadata.annotations['kcp.io/cluster'] === ws.spec.cluster)).toEqual([]);
  });

  it('refuses to remove another terminator’s entry', async () => {
    const ws = await workspaceByApi(e2e, orgPath, uniqueName('ws'), ofOrg(term));
    await k(['delete', 'workspace', ws.metadata.name, '--wait=false']);
    await waitForPhase(k, ws.metadata.name, 'Terminating');
    const vw = await publishedUrl(term, 'terminatingworkspaces');
    const inside = e2e.atUrl(`${vw}/clusters/${ws.spec.cluster}`);
    const result = await inside(
      ['patch', 'logicalcluster', 'cluster', '--subresource=status', '--type=merge', '-p', '{"status":{"terminators":["root:other"]}}'],
      { reject: false },
    );
    expectError(
      result,
      `The LogicalCluster "cluster" is invalid: status.terminators: Invalid value: []string{"root:other"}: only removing the "${orgPath}:${term}" terminator is supported`,
    );
    await inside(['patch', 'logicalcluster', 'cluster', '--subresource=status', '--type=json', '-p', removeFirst('terminators')]);
    await k(['wait', '--for=delete', `workspace/${ws.metadata.name}`, '--timeout=60s']);
  });
});

describe('a live watch of workspaces', () => {
  // Workspaces written by this server go to live watches as stored, without the custom-resource read (prune,
  // defaults) that a resumed watch, a LIST or a GET applies: each step of a workspace's life must store what that read
  // gives back, or the two watches below differ.
  it('shows every workspace as a watch resumed over the same history does, through creation, initializers, updates, terminators and deletion', async () => {
    const path = `/clusters/${orgPath}/apis/tenancy.kcp.io/v1alpha1/workspaces`;
    const from = (await apiRequest(e2e.server, path)).json().metadata.resourceVersion as string;
    const live = await openWatch(e2e.server, `${path}?watch=true&resourceVersion=${from}`);
    try {
      const plain = await workspaceByApi(e2e, orgPath, uniqueName('ws'));
      await k(['label', 'ws', plain.metadata.name, 'team=blue']);
      await k(['annotate', 'ws', plain.metadata.name, 'note=kept']);

      const initialized = await workspaceIn('Initializing', initA);
      const vwInit = await publishedUrl(initA, 'initializingworkspaces');
      await e2e.atUrl(`${vwInit}/clusters/${initialized.spec.cluster}`)([
        'patch', 'logicalcluster', 'cluster', '--subresource=status', '--type=json', '-p', removeFirst('initializers'),
      ]);
      await waitForPhase(k, initialized.metadata.name);

      const held = await workspaceByApi(e2e, orgPath, uniqueName('ws'), ofOrg(term));
      await k(['delete', 'workspace', held.metadata.name, '--wait=false']);
      await waitForPhase(k, held.metadata.name, 'Terminating');
      const vwTerm = await publishedUrl(term, 'terminatingworkspaces');
      await e2e.atUrl(`${vwTerm}/clusters/${held.spec.cluster}`)([
        'patch', 'logicalcluster', 'cluster', '--subresource=status', '--type=json', '-p', removeFirst('terminators'),
      ]);
      await k(['wait', '--for=delete', `workspace/${held.metadata.name}`, '--timeout=60s']);
      await k(['delete', 'workspace', plain.metadata.name, '--wait=true', '--timeout=60s']);

      const resumed = await openWatch(e2e.server, `${path}?watch=true&resourceVersion=${from}&timeoutSeconds=2`);
      await resumed.ended;
      const replayed = resumed.events;
      const phases = (name: string) => replayed.filter((e) => e.object.metadata.name === name).map((e) => `${e.type} ${e.object.status?.phase}`);
      // The history covers what it says it does.
      expect(phases(initialized.metadata.name)).toEqual(expect.arrayContaining(['ADDED Scheduling', 'MODIFIED Initializing', 'MODIFIED Ready']));
      expect(phases(held.metadata.name)).toEqual(expect.arrayContaining(['ADDED Scheduling', 'MODIFIED Ready', 'MODIFIED Terminating', 'DELETED Deleting']));
      expect(replayed.some((e) => e.type === 'MODIFIED' && e.object.metadata.labels?.team === 'blue')).toBe(true);
      await eventually('the live watch at the resumed one’s last event', async () => live.events.length >= replayed.length || undefined);
      expect(live.events.slice(0, replayed.length)).toEqual(replayed);
    } finally {
      live.close();
    }
  }, 120_000);
});
