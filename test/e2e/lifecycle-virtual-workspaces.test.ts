/**
 * Initializers and terminators through kcp's lifecycle virtual workspaces, driven as their controllers drive them:
 * with kubectl (`--server` set to the URL the WorkspaceType publishes) and with a @kubernetes/client-node watch.
 * A workspace of a type with `initializer: true` waits in Initializing until the initializer removes itself from
 * the LogicalCluster's status; one with `terminator: true` is kept on deletion until the terminator does. Both
 * survive a server restart in the middle.
 */
import * as k8s from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { matrixBinaries, uniqueName, type ClusterKubectl } from '../helpers/kubectl.js';
import { expectError } from '../helpers/suite.js';
import {
  condition,
  create,
  createWorkspace,
  eventually,
  getJson,
  root,
  useTenancyServer,
  waitForPhase,
  workspace,
  workspaceType,
  type Json,
} from './tenancy-fixtures.js';

// A server of its own: it restarts the server.
const e2e = useTenancyServer({ private: true });
const k = e2e.at('root');
const removeFirst = (field: string) => JSON.stringify([{ op: 'remove', path: `/status/${field}/0` }]);

/** The URL a type publishes for one lifecycle virtual workspace. */
async function publishedUrl(type: string, vw: 'initializingworkspaces' | 'terminatingworkspaces'): Promise<string> {
  return eventually(`${vw} URL of ${type}`, async () => {
    const wst = await getJson(k, ['workspacetype', type]);
    return (wst.status?.virtualWorkspaces as { url: string }[] | undefined)?.find((v) => v.url.includes(`/${vw}/`))?.url;
  });
}

/** A workspace created in root that must reach `phase` (Initializing for types with an initializer). */
async function workspaceIn(phase: string, type: string): Promise<Json> {
  const name = uniqueName('ws');
  await create(k, workspace(name, root(type)));
  await waitForPhase(k, name, phase);
  return getJson(k, ['ws', name]);
}

let initA: string;
let initB: string;
let term: string;
beforeAll(async () => {
  initA = uniqueName('init-a');
  initB = uniqueName('init-b');
  term = uniqueName('term');
  await create(k, workspaceType(initA, { extend: { with: [root('universal')] }, initializer: true }));
  await create(k, workspaceType(initB, { extend: { with: [root('universal')] }, initializer: true }));
  await create(k, workspaceType(term, { extend: { with: [root('universal')] }, terminator: true }));
}, 60_000);

describe.each(matrixBinaries())('an initializer with kubectl $version', ({ path: binary }) => {
  const vwAt = (url: string): ClusterKubectl => (args, o) => e2e.atUrl(url)(args, { binary, ...o });

  it('sees only the workspaces waiting on it, seeds one, removes itself and the workspace turns Ready', async () => {
    const mine = await workspaceIn('Initializing', initA);
    const other = await workspaceIn('Initializing', initB);
    expect(mine.status.initializers).toEqual([`root:${initA}`]);
    expect(condition(mine, 'WorkspaceInitialized')).toBe(`False InitializerExists Initializers still exist: [root:${initA}]`);
    expect(mine.metadata.labels['tenancy.kcp.io/phase']).toBe('Initializing');

    const vw = await publishedUrl(initA, 'initializingworkspaces');
    expect(vw).toBe(`${e2e.server.url}/services/initializingworkspaces/root:${initA}`);
    const waiting = await getJson(vwAt(`${vw}/clusters/*`), ['logicalclusters']);
    const clusters = (waiting.items as Json[]).map((lc) => lc.metadata.annotations['kcp.io/cluster']);
    expect(clusters).toContain(mine.spec.cluster);
    expect(clusters).not.toContain(other.spec.cluster);
    const lc = (waiting.items as Json[]).find((x) => x.metadata.annotations['kcp.io/cluster'] === mine.spec.cluster)!;
    expect(lc.metadata.annotations['kcp.io/path']).toBe(`root:${mine.metadata.name}`);
    expect(lc.status).toMatchObject({ phase: 'Initializing', initializers: [`root:${initA}`] });

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
      `The Workspace "cluster" is invalid: status.initializers: Invalid value: []string{"root:someone-else"}: only removing the "root:${initA}" initializer is supported`,
    );
    const removed = await inside(['patch', 'logicalcluster', 'cluster', '--subresource=status', '--type=json', '-p', removeFirst('initializers')]);
    expect(removed.stdout).toBe('logicalcluster.core.kcp.io/cluster patched');

    await waitForPhase(vwAt(e2e.url('root')), mine.metadata.name);
    const ready = await getJson(k, ['ws', mine.metadata.name]);
    expect(ready.status.initializers).toBeUndefined();
    const readyCluster = await getJson(e2e.at(`root:${mine.metadata.name}`), ['logicalcluster', 'cluster']);
    expect(readyCluster.metadata.labels).toEqual({ 'tenancy.kcp.io/phase': 'Ready' });
    expect(readyCluster.status.phase).toBe('Ready');
    expect(condition(ready, 'WorkspaceInitialized')).toBe('True');
    expect((await getJson(e2e.at(`root:${mine.metadata.name}`), ['configmap', 'seeded', '-n', 'default'])).data).toEqual({ by: 'initializer' });
    // Done: the workspace has left the virtual workspace.
    const after = await getJson(vwAt(`${vw}/clusters/*`), ['logicalclusters']);
    expect((after.items as Json[]).map((x) => x.metadata.annotations['kcp.io/cluster'])).not.toContain(mine.spec.cluster);
    expectError(await inside(['get', 'logicalcluster', 'cluster'], { reject: false }), 'Error from server (NotFound): logicalclusters.core.kcp.io "cluster" not found');
    expectError(
      await inside(['get', 'configmaps', '-n', 'default'], { reject: false }),
      `Error from server (Forbidden): initializer "root:${initA}" cannot access this workspace`,
    );
    // The other initializer's workspace is still waiting.
    expect((await getJson(k, ['ws', other.metadata.name])).status.phase).toBe('Initializing');
  });
});

describe('two initializers', () => {
  it('each removes only itself; the workspace stays Initializing until the last one is done', async () => {
    const both = uniqueName('both');
    await create(k, workspaceType(both, { extend: { with: [root(initA)] }, initializer: true }));
    const ws = await workspaceIn('Initializing', both);
    const name = ws.metadata.name as string;
    expect(ws.status.initializers).toEqual([`root:${initA}`, `root:${both}`]);
    const vwA = await publishedUrl(initA, 'initializingworkspaces');
    await e2e.atUrl(`${vwA}/clusters/${ws.spec.cluster}`)([
      'patch', 'logicalcluster', 'cluster', '--subresource=status', '--type=json', '-p', removeFirst('initializers'),
    ]);
    const halfway = await eventually('the first initializer gone', async () => {
      const got = await getJson(k, ['ws', name]);
      return got.status.initializers?.length === 1 ? got : undefined;
    });
    expect(halfway.status.phase).toBe('Initializing');
    expect(condition(halfway, 'WorkspaceInitialized')).toBe(`False InitializerExists Initializers still exist: [root:${both}]`);
    const lc = await getJson(e2e.at(`root:${name}`), ['logicalcluster', 'cluster']);
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
      expect(gone.initializers).toEqual([`root:${initA}`]);
      await waitForPhase(k, ws.metadata.name);
    } finally {
      controller.abort();
    }
  });
});

describe('a terminator', () => {
  it('holds a deleted workspace and its LogicalCluster in Terminating until it removes itself', async () => {
    const ws = await createWorkspace(k, uniqueName('ws'), root(term));
    const name = ws.metadata.name as string;
    expect(ws.status.terminators).toEqual([`root:${term}`]);
    await e2e.at(`root:${name}`)(['create', 'configmap', 'data', '-n', 'default']);
    expect((await k(['delete', 'workspace', name, '--wait=false'])).stdout).toBe(`workspace.tenancy.kcp.io "${name}" deleted`);
    await waitForPhase(k, name, 'Terminating');
    const held = await getJson(k, ['ws', name]);
    expect(held.metadata.deletionTimestamp).toBeDefined();
    expect(held.status.terminators).toEqual([`root:${term}`]);
    // kcp labels anything being deleted `Deleting`, whatever the phase says.
    expect(held.metadata.labels['tenancy.kcp.io/phase']).toBe('Deleting');
    const lc = await getJson(e2e.at(`root:${name}`), ['logicalcluster', 'cluster']);
    expect(lc.metadata.deletionTimestamp).toBeDefined();
    expect(lc.metadata.labels['tenancy.kcp.io/phase']).toBe('Deleting');
    expect(lc.status).toMatchObject({ phase: 'Terminating', terminators: [`root:${term}`] });

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
      await k(['get', '--raw', `/clusters/root:${name}/api/v1/configmaps`], { reject: false }),
      `Error from server (NotFound): workspaces.tenancy.kcp.io "root:${name}" not found`,
    );
    const rows = await e2e.asShardAdmin('*')(['get', 'configmaps', '-A', '-o', 'json']);
    expect((JSON.parse(rows.stdout).items as Json[]).filter((cm) => cm.metadata.annotations['kcp.io/cluster'] === ws.spec.cluster)).toEqual([]);
  });

  it('refuses to remove another terminator’s entry', async () => {
    const ws = await createWorkspace(k, uniqueName('ws'), root(term));
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
      `The LogicalCluster "cluster" is invalid: status.terminators: Invalid value: []string{"root:other"}: only removing the "root:${term}" terminator is supported`,
    );
    await inside(['patch', 'logicalcluster', 'cluster', '--subresource=status', '--type=json', '-p', removeFirst('terminators')]);
    await k(['wait', '--for=delete', `workspace/${ws.metadata.name}`, '--timeout=60s']);
  });
});

describe('a restart in the middle', () => {
  it('resumes an Initializing workspace and a Terminating one', async () => {
    const initializing = await workspaceIn('Initializing', initA);
    const terminating = await createWorkspace(k, uniqueName('ws'), root(term));
    await k(['delete', 'workspace', terminating.metadata.name, '--wait=false']);
    await waitForPhase(k, terminating.metadata.name, 'Terminating');

    await e2e.server.restart();

    expect((await getJson(k, ['ws', initializing.metadata.name])).status.phase).toBe('Initializing');
    expect((await getJson(k, ['ws', terminating.metadata.name])).status.phase).toBe('Terminating');
    const initVw = await publishedUrl(initA, 'initializingworkspaces');
    await e2e.atUrl(`${initVw}/clusters/${initializing.spec.cluster}`)([
      'patch', 'logicalcluster', 'cluster', '--subresource=status', '--type=json', '-p', removeFirst('initializers'),
    ]);
    await waitForPhase(k, initializing.metadata.name);
    const termVw = await publishedUrl(term, 'terminatingworkspaces');
    await e2e.atUrl(`${termVw}/clusters/${terminating.spec.cluster}`)([
      'patch', 'logicalcluster', 'cluster', '--subresource=status', '--type=json', '-p', removeFirst('terminators'),
    ]);
    await k(['wait', '--for=delete', `workspace/${terminating.metadata.name}`, '--timeout=60s']);
    // Both are usable / gone as if nothing had happened.
    expect((await e2e.at(`root:${initializing.metadata.name}`)(['get', 'namespace', 'default', '-o', 'name'])).stdout).toBe('namespace/default');
    const lcs = await e2e.asShardAdmin('*')(['get', 'logicalclusters', '-o', 'json']);
    expect((JSON.parse(lcs.stdout).items as Json[]).map((lc) => lc.metadata.annotations['kcp.io/cluster'])).not.toContain(terminating.spec.cluster);
  });
});
