/**
 * Deleting workspaces with the real kubectl: `kubectl delete ws` of a subtree with content returns once everything
 * is gone, every descendant's path answers kcp's NotFound, and nothing of it is left in storage (checked through
 * the `*` wildcard as the shard admin); a wildcard watch resumed from before sees each of its objects go once, in
 * resourceVersion order. Workspaces that never became Ready are deleted all the same. A finalizer
 * holding the deletion across a server restart is in workspaces-deletion-restart.test.ts (a server of its own).
 */
import { describe, expect, it } from 'vitest';
import { clusterArgs, kubectlBackground, uniqueName } from '../helpers/kubectl.js';
import { words } from '../helpers/table.js';
import { expectError } from '../helpers/suite.js';
import { create, createWorkspace, getJson, root, type Json, useTenancyServer, waitForPhase, workspace, workspaceType } from './tenancy-fixtures.js';
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

  it('a wildcard watch resumed from before sees each object of the tree go exactly once, in resourceVersion order', async () => {
    const org = uniqueName('wild');
    const top = await createWorkspace(k, org);
    const kids = [await createWorkspace(e2e.at(`root:${org}`), 'left'), await createWorkspace(e2e.at(`root:${org}`), 'right')];
    const leaf = await createWorkspace(e2e.at(`root:${org}:left`), 'leaf');
    const clusters = [top, ...kids, leaf].map((ws) => ws.spec.cluster as string);
    const admin = e2e.asShardAdmin('*');
    const resources = ['/api/v1/namespaces', '/api/v1/serviceaccounts', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', '/apis/core.kcp.io/v1alpha1/logicalclusters'];
    const treeObjects = (items: Json[]) => items.filter((o) => clusters.includes(o.metadata.annotations?.['kcp.io/cluster']));
    const id = (o: Json) => `${o.kind}/${o.metadata.annotations['kcp.io/cluster']}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
    const before = new Map<string, { rv: string; ids: string[] }>();
    for (const r of resources) {
      const list = JSON.parse((await admin(['get', '--raw', `/clusters/*${r}`])).stdout) as { metadata: { resourceVersion: string }; items: Json[]; kind: string };
      const kind = list.kind.replace(/List$/, '');
      before.set(r, { rv: list.metadata.resourceVersion, ids: treeObjects(list.items.map((o) => ({ ...o, kind }))).map(id).sort() });
    }

    await k(['delete', 'workspace', org]);

    for (const r of resources) {
      const { rv, ids } = before.get(r)!;
      expect(ids.length, r).toBeGreaterThanOrEqual(clusters.length);
      const watched = await admin(['get', '--raw', `/clusters/*${r}?watch=1&resourceVersion=${rv}&timeoutSeconds=2`]);
      const events = treeObjects(watched.stdout.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as Json).map((e) => ({ ...e.object, type: e.type })));
      const deleted = events.filter((e) => e.type === 'DELETED');
      // One DELETED per object the tree held, none twice, and the watch's events in resourceVersion order.
      expect(deleted.map(id).sort()).toEqual(ids);
      const rvs = events.map((e) => Number(e.metadata.resourceVersion));
      expect(rvs).toEqual([...rvs].sort((a, b) => a - b));
      expect(new Set(rvs).size).toBe(rvs.length);
    }
    expect(await leftovers(clusters)).toEqual({});
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

describe('a finalizer of a user deep in the tree', () => {
  it('holds every level in Deleting; the objects around it go, each with its DELETED, also to a watch resumed from before', async () => {
    const org = uniqueName('held');
    const top = await createWorkspace(k, org);
    const b = await createWorkspace(e2e.at(`root:${org}`), 'b');
    const c = await createWorkspace(e2e.at(`root:${org}:b`), 'c');
    const inC = e2e.at(`root:${org}:b:c`);
    await inC(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'guarded', namespace: 'default', finalizers: ['example.com/hold'] } }) });
    await inC(['create', 'configmap', 'plain', '-n', 'default']);
    const cmsPath = `/clusters/root:${org}:b:c/api/v1/namespaces/default/configmaps`;
    const before = JSON.parse((await inC(['get', '--raw', cmsPath])).stdout).metadata.resourceVersion as string;
    const background = (path: string, args: string[]) => kubectlBackground(e2e.server, [...clusterArgs(e2e.server, path), ...args]);
    const children = background(`root:${org}`, ['get', 'workspaces', '-w', '--output-watch-events', '-o', 'jsonpath={.type} {.object.metadata.name} {.object.status.phase} {.object.metadata.deletionTimestamp}{"\\n"}']);
    const cms = background(`root:${org}:b:c`, ['get', 'configmaps', '-n', 'default', '-w', '--output-watch-events']);
    try {
      await children.waitForLine(/^ADDED b Ready\s*$/);
      await cms.waitForLine(/^ADDED\s+plain\s/);

      await k(['delete', 'workspace', org, '--wait=false']);
      // The object without a finalizer goes; the one with it is marked and holds c, so b and the top wait too.
      await cms.waitForLine(/^DELETED\s+plain\s/);
      await waitForPhase(e2e.at(`root:${org}:b`), 'c', 'Deleting');
      for (const [at, name] of [[k, org], [e2e.at(`root:${org}`), 'b'], [e2e.at(`root:${org}:b`), 'c']] as const) {
        const ws = await getJson(at, ['workspace', name]);
        expect([ws.status.phase, ws.metadata.labels['tenancy.kcp.io/phase'], Boolean(ws.metadata.deletionTimestamp)]).toEqual(['Deleting', 'Deleting', true]);
      }
      expect((await getJson(inC, ['configmap', 'guarded', '-n', 'default'])).metadata.deletionTimestamp).toBeDefined();
      expect((await getJson(inC, ['logicalcluster', 'cluster'])).status.phase).toBe('Deleting');
      // A child marked by its parent's deletion shows Deleting in the very event that marks it, when both clusters
      // are on one shard (the parent's deleter marks the child's LogicalCluster in that commit).
      const marks = words(children.stdout()).filter((row) => row[1] === 'b' && row[3] !== undefined);
      const shardOf = (ws: Json) => ws.metadata.annotations?.['core.kcp.io/shard'] as string | undefined;
      if (shardOf(top) === shardOf(b)) expect(marks[0]?.slice(0, 3)).toEqual(['MODIFIED', 'b', 'Deleting']);
      expect(marks.at(-1)?.slice(1, 3)).toEqual(['b', 'Deleting']);

      // Resumed from before the deletion, a watch still sees the mark and the removal, in order.
      const resumed = await inC(['get', '--raw', `${cmsPath}?watch=1&resourceVersion=${before}&timeoutSeconds=2`]);
      const events = resumed.stdout.trim().split('\n').map((line) => JSON.parse(line) as Json).filter((e) => e.object.metadata.name !== 'kube-root-ca.crt');
      expect(events.map((e) => [e.type, e.object.metadata.name, Boolean(e.object.metadata.deletionTimestamp)])).toEqual([
        ['MODIFIED', 'guarded', true],
        ['DELETED', 'plain', false],
      ]);

      await inC(['patch', 'configmap', 'guarded', '-n', 'default', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
      await cms.waitForLine(/^DELETED\s+guarded\s/);
      await k(['wait', '--for=delete', `workspace/${org}`, '--timeout=60s']);
    } finally {
      await children.stop();
      await cms.stop();
    }
    for (const path of [`root:${org}`, `root:${org}:b`, `root:${org}:b:c`]) await expectPathGone(path);
    expect(await leftovers([top, b, c].map((ws) => ws.spec.cluster as string))).toEqual({});
  });
});

describe('the objects a workspace keeps until its last pass', () => {
  it('a ServiceAccount with a finalizer holds the workspace; the others go with their DELETED, also to a watch resumed from before', async () => {
    const name = uniqueName('lastpass');
    const ws = await createWorkspace(k, name);
    const inside = e2e.at(`root:${name}`);
    await inside(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'held', namespace: 'default', finalizers: ['example.com/hold'] } }) });
    await inside(['create', 'serviceaccount', 'plain', '-n', 'default']);
    const saPath = `/clusters/root:${name}/api/v1/namespaces/default/serviceaccounts`;
    const before = JSON.parse((await inside(['get', '--raw', saPath])).stdout).metadata.resourceVersion as string;

    await k(['delete', 'workspace', name, '--wait=false']);
    await waitForPhase(k, name, 'Deleting');
    const resumed = async () => {
      const out = await inside(['get', '--raw', `${saPath}?watch=1&resourceVersion=${before}&timeoutSeconds=2`]);
      return out.stdout.trim().split('\n').map((line) => JSON.parse(line) as Json).map((e) => [e.type, e.object.metadata.name, Boolean(e.object.metadata.deletionTimestamp)]);
    };
    // The held one is marked, never removed early; the ones without a finalizer are gone, each with its DELETED.
    await expect.poll(resumed, { timeout: 20_000 }).toEqual([
      ['DELETED', 'default', false],
      ['MODIFIED', 'held', true],
      ['DELETED', 'plain', false],
    ]);
    expect((await getJson(inside, ['serviceaccount', 'held', '-n', 'default'])).metadata.finalizers).toEqual(['example.com/hold']);
    // Its namespace, a protected one, stays marked around it (the system's deletion of the cluster may mark it).
    expect((await getJson(inside, ['namespace', 'default'])).status.phase).toBe('Terminating');
    expect((await getJson(k, ['ws', name])).status.phase).toBe('Deleting');

    await inside(['patch', 'serviceaccount', 'held', '-n', 'default', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
    await k(['wait', '--for=delete', `workspace/${name}`, '--timeout=60s']);
    await expectPathGone(`root:${name}`);
    expect(await leftovers([ws.spec.cluster as string])).toEqual({});
  });

  it('a namespace whose ServiceAccount is held stays, marked, until the ServiceAccount goes: nothing outlives its namespace', async () => {
    const name = uniqueName('lastns');
    const ws = await createWorkspace(k, name);
    const inside = e2e.at(`root:${name}`);
    await inside(['create', 'namespace', 'team']);
    await inside(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'held', namespace: 'team', finalizers: ['example.com/hold'] } }) });

    await k(['delete', 'workspace', name, '--wait=false']);
    await waitForPhase(k, name, 'Deleting');
    await expect.poll(async () => Boolean((await getJson(inside, ['serviceaccount', 'held', '-n', 'team'])).metadata.deletionTimestamp), { timeout: 20_000 }).toBe(true);
    // The final pass has run (the held ServiceAccount is marked); the namespace it lives in is Terminating, not gone,
    // and the empty one beside it is gone.
    const team = await getJson(inside, ['namespace', 'team']);
    expect([Boolean(team.metadata.deletionTimestamp), team.status.phase]).toEqual([true, 'Terminating']);
    await expect.poll(async () => (await inside(['get', 'namespace', 'default'], { reject: false })).stderr, { timeout: 20_000 }).toContain('NotFound');

    await inside(['patch', 'serviceaccount', 'held', '-n', 'team', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
    await k(['wait', '--for=delete', `workspace/${name}`, '--timeout=60s']);
    await expectPathGone(`root:${name}`);
    expect(await leftovers([ws.spec.cluster as string])).toEqual({});
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
