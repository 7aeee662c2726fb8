/**
 * Deleting workspaces with the real kubectl: `kubectl delete ws` of a subtree with content returns once everything
 * is gone, every descendant's path answers kcp's NotFound, and nothing of it is left in storage (checked through
 * the `*` wildcard as the shard admin). A finalizer inside holds the deletion (phase Deleting) until it is removed,
 * also across a server restart.
 */
import { describe, expect, it } from 'vitest';
import { uniqueName } from '../helpers/kubectl.js';
import { expectError } from '../helpers/suite.js';
import { create, createWorkspace, getJson, root, useTenancyServer, waitForPhase, workspace, workspaceType, type Json } from './tenancy-fixtures.js';

// A server of its own: it restarts the server.
const e2e = useTenancyServer({ private: true });
const k = e2e.at('root');

/** What the wildcard still holds of `clusters`, per resource, as the shard admin sees it. */
async function leftovers(clusters: string[]): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const resource of ['workspaces', 'logicalclusters', 'namespaces', 'configmaps', 'secrets', 'clusterrolebindings']) {
    const list = JSON.parse((await e2e.asShardAdmin('*')(['get', resource, '-A', '-o', 'json'])).stdout) as { items: Json[] };
    const found = list.items
      .filter((o) => clusters.includes(o.metadata.annotations?.['kcp.io/cluster']))
      .map((o) => `${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`);
    if (found.length > 0) out[resource] = found;
  }
  return out;
}

async function expectPathGone(path: string): Promise<void> {
  const result = await k(['get', '--raw', `/clusters/${path}/api/v1/namespaces`], { reject: false });
  expectError(result, `Error from server (NotFound): workspaces.tenancy.kcp.io "${path}" not found`);
}

describe('deleting a subtree', () => {
  it('kubectl delete ws returns when every descendant and its content are gone, leaving no rows', async () => {
    const org = uniqueName('org');
    const a = await createWorkspace(k, org);
    const b = await createWorkspace(e2e.at(`root:${org}`), 'b', root('team'));
    const c = await createWorkspace(e2e.at(`root:${org}:b`), 'c');
    const d = await createWorkspace(e2e.at(`root:${org}:b`), 'd');
    const clusters = [a, b, c, d].map((ws) => ws.spec.cluster as string);
    for (const path of [`root:${org}`, `root:${org}:b`, `root:${org}:b:c`, `root:${org}:b:d`]) {
      const inside = e2e.at(path);
      await inside(['create', 'namespace', 'apps']);
      await inside(['create', 'configmap', 'settings', '-n', 'apps', '--from-literal=path=' + path]);
      await inside(['create', 'secret', 'generic', 'token', '-n', 'default', '--from-literal=t=x']);
    }
    expect(Object.keys(await leftovers(clusters)).sort()).toEqual(['clusterrolebindings', 'configmaps', 'logicalclusters', 'namespaces', 'secrets', 'workspaces']);

    expect((await k(['delete', 'workspace', org])).stdout).toBe(`workspace.tenancy.kcp.io "${org}" deleted`);

    expectError(await k(['get', 'ws', org], { reject: false }), `Error from server (NotFound): workspaces.tenancy.kcp.io "${org}" not found`);
    for (const path of [`root:${org}`, `root:${org}:b`, `root:${org}:b:c`, `root:${org}:b:d`]) await expectPathGone(path);
    expect(await leftovers(clusters)).toEqual({});
    // Root and its other workspaces are untouched.
    expect((await k(['get', 'namespace', 'default', '-o', 'name'])).stdout).toBe('namespace/default');
  });

  it('a sibling survives the deletion of its neighbour', async () => {
    const keep = await createWorkspace(k, uniqueName('keep'));
    const drop = await createWorkspace(k, uniqueName('drop'));
    await e2e.at(`root:${keep.metadata.name}`)(['create', 'configmap', 'mine', '-n', 'default']);
    await k(['delete', 'workspace', drop.metadata.name]);
    expect((await getJson(e2e.at(`root:${keep.metadata.name}`), ['configmap', 'mine', '-n', 'default'])).metadata.name).toBe('mine');
    expect((await getJson(k, ['ws', keep.metadata.name])).status.phase).toBe('Ready');
  });
});

describe('a finalizer inside the workspace', () => {
  it('holds the deletion in phase Deleting until it is removed, across a restart', async () => {
    const name = uniqueName('held');
    const ws = await createWorkspace(k, name);
    const inside = e2e.at(`root:${name}`);
    await inside(['create', 'configmap', 'guarded', '-n', 'default']);
    await inside(['patch', 'configmap', 'guarded', '-n', 'default', '--type=merge', '-p', '{"metadata":{"finalizers":["example.com/hold"]}}']);

    await k(['delete', 'workspace', name, '--wait=false']);
    await waitForPhase(k, name, 'Deleting');
    const deleting = await getJson(k, ['ws', name]);
    expect(deleting.metadata.labels['tenancy.kcp.io/phase']).toBe('Deleting');
    expect(deleting.metadata.finalizers).toEqual(['core.kcp.io/logicalcluster']);
    // The workspace stays reachable while its content is being deleted; the held object is marked.
    const guarded = await getJson(inside, ['configmap', 'guarded', '-n', 'default']);
    expect(guarded.metadata.deletionTimestamp).toBeDefined();
    const lc = await getJson(inside, ['logicalcluster', 'cluster']);
    expect(lc.status.phase).toBe('Deleting');
    expect(lc.metadata.labels['tenancy.kcp.io/phase']).toBe('Deleting');

    await e2e.server.restart();

    expect((await getJson(k, ['ws', name])).status.phase).toBe('Deleting');
    await inside(['patch', 'configmap', 'guarded', '-n', 'default', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
    await k(['wait', '--for=delete', `workspace/${name}`, '--timeout=60s']);
    await expectPathGone(`root:${name}`);
    expect(await leftovers([ws.spec.cluster])).toEqual({});
  });
});

describe('workspaces that never became Ready', () => {
  it('an Initializing one and an unschedulable one are deleted all the same', async () => {
    const type = uniqueName('waits');
    await create(k, workspaceType(type, { extend: { with: [root('universal')] }, initializer: true }));
    const initializing = uniqueName('init');
    await create(k, workspace(initializing, root(type)));
    await waitForPhase(k, initializing, 'Initializing');
    const cluster = (await getJson(k, ['ws', initializing])).spec.cluster as string;
    const nowhere = uniqueName('nowhere');
    await create(k, workspace(nowhere, undefined, { spec: { location: { selector: { matchLabels: { region: 'nowhere' } } } } }));

    await k(['delete', 'workspace', initializing, nowhere]);
    for (const name of [initializing, nowhere]) {
      expectError(await k(['get', 'ws', name], { reject: false }), `Error from server (NotFound): workspaces.tenancy.kcp.io "${name}" not found`);
    }
    expect(await leftovers([cluster])).toEqual({});
  });
});
