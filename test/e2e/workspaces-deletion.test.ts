/**
 * Deleting workspaces with the real kubectl: `kubectl delete ws` of a subtree with content returns once everything
 * is gone, every descendant's path answers kcp's NotFound, and nothing of it is left in storage (checked through
 * the `*` wildcard as the shard admin). Workspaces that never became Ready are deleted all the same. A finalizer
 * holding the deletion across a server restart is in workspaces-deletion-restart.test.ts (a server of its own).
 */
import { describe, expect, it } from 'vitest';
import { uniqueName } from '../helpers/kubectl.js';
import { expectError } from '../helpers/suite.js';
import { create, createWorkspace, getJson, root, useTenancyServer, waitForPhase, workspace, workspaceType } from './tenancy-fixtures.js';
import { deletionChecks } from './workspaces-deletion-fixtures.js';

// The shared server: every test makes and deletes workspaces of unique names of its own.
const e2e = useTenancyServer();
const k = e2e.at('root');

const { leftovers, expectPathGone } = deletionChecks(e2e);

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
