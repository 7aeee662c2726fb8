/**
 * WorkspaceTypes that bring APIs, with the real kubectl: the `system:apibindings` initializer binds a type's
 * `defaultAPIBindings` in every new workspace under kcp's binding names before it turns Ready (so the bound kind is
 * there at once), a missing export holds the workspace in Initializing with kcp's condition until the export
 * appears, `Maintain` adds bindings added to the type later to existing workspaces (`InitializeOnly` does not), and
 * an export's maximal permission policy caps what consumers may do with its API.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { sleep, uniqueName } from '../helpers/kubectl.js';
import { expectError } from '../helpers/suite.js';
import { bindingName, defaultBindingsWorld } from './default-api-bindings-fixtures.js';
import { condition, create, eventually, getJson, useTenancyServer, users, waitForPhase, type Json } from './tenancy-fixtures.js';

// The shared server: everything lives in an organization of this file's own (the restart case is in
// api-sharing-restart.test.ts, with a server of its own).
const e2e = useTenancyServer();
const { k, provider, providerPath, exportAPI, pathOf, defineType, workspaceOf, setUp } = defaultBindingsWorld(e2e);

beforeAll(setUp, 90_000);

describe('defaultAPIBindings', () => {
  it('binds the type’s exports under kcp’s names before the workspace turns Ready', async () => {
    const type = await defineType('with-widgets', { defaultAPIBindings: [{ path: providerPath, export: 'widgets' }] });
    const [name, cluster] = await workspaceOf(type);
    const consumer = e2e.at(pathOf(name));
    // Right after Ready the bound kind is served: no waiting for discovery.
    expect((await consumer(['get', 'widgets', '-A'])).stderr).toMatch(/No resources found/);
    const bindings = await getJson(consumer, ['apibindings']);
    expect(bindings.items.map((b: Json) => b.metadata.name)).toEqual([bindingName(cluster, providerPath, 'widgets')]);
    const binding = bindings.items[0] as Json;
    expect(binding.spec.reference.export).toEqual({ path: providerPath, name: 'widgets' });
    expect(binding.status.phase).toBe('Bound');
    // Bound and left alone, a binding stays as it is (no controller keeps rewriting its status).
    await sleep(1500);
    expect((await getJson(consumer, ['apibinding', binding.metadata.name])).metadata.resourceVersion).toBe(binding.metadata.resourceVersion);
    await create(consumer, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'default' }, spec: { size: 3 } });
    expect((await consumer(['get', 'widgets', '-n', 'default', '-o', 'name'])).stdout.trim()).toBe('widget.example.com/w1');
    const ws = await getJson(k, ['workspace', name]);
    expect(condition(ws, 'APIBindingsInitialized')).toBe('True');
    expect(ws.status.initializers).toBeUndefined();
  }, 120_000);

  it('holds the workspace in Initializing while an export is missing, with kcp’s condition, and finishes once it exists', async () => {
    const exportName = uniqueName('gadgets');
    const type = await defineType('with-missing', { defaultAPIBindings: [{ path: providerPath, export: exportName }] });
    const [name] = await workspaceOf(type, 'Initializing');
    const stuck = await eventually('the APIBindingsInitialized condition', async () => {
      const ws = await getJson(k, ['workspace', name]);
      return condition(ws, 'APIBindingsInitialized') ? ws : undefined;
    });
    expect(stuck.status.phase).toBe('Initializing');
    expect(stuck.status.initializers).toEqual(['system:apibindings']);
    expect(condition(stuck, 'APIBindingsInitialized')).toBe(
      'False APIBindingErrors encountered errors: unable to complete initialization: unable to find at least 1 APIExport',
    );
    // Content is not reachable for the API yet; the export appearing lets initialization finish.
    await exportAPI(exportName, `${exportName}.example.com`, 'gadgets', 'Gadget');
    await waitForPhase(k, name);
    expect((await e2e.at(pathOf(name))(['get', 'gadgets', '-A'])).stderr).toMatch(/No resources found/);
  }, 120_000);

  it('Maintain binds exports added to the type later in existing workspaces; InitializeOnly does not', async () => {
    const extra = uniqueName('extras');
    await exportAPI(extra, `${extra}.example.com`, 'extras', 'Extra');
    const first = [{ path: providerPath, export: 'widgets' }];
    const maintained = await defineType('maintained', { defaultAPIBindingLifecycle: 'Maintain', defaultAPIBindings: first });
    const initOnly = await defineType('init-only', { defaultAPIBindings: first });
    const [mName, mCluster] = await workspaceOf(maintained);
    const [iName] = await workspaceOf(initOnly);
    const both = [...first, { path: providerPath, export: extra }];
    await k(['patch', 'workspacetype', maintained, '--type=merge', '-p', JSON.stringify({ spec: { defaultAPIBindings: both } })]);
    await k(['patch', 'workspacetype', initOnly, '--type=merge', '-p', JSON.stringify({ spec: { defaultAPIBindings: both } })]);
    const m = e2e.at(pathOf(mName));
    await eventually('the maintained binding', async () => {
      const names = (await getJson(m, ['apibindings'])).items.map((b: Json) => b.metadata.name);
      return names.includes(bindingName(mCluster, providerPath, extra)) ? names : undefined;
    });
    await eventually('the extras API in the maintained workspace', async () => ((await m(['get', 'extras', '-A'])).exitCode === 0 ? true : undefined));
    // A maintained default binding deleted by a tenant comes back.
    await m(['delete', 'apibinding', bindingName(mCluster, providerPath, extra), '--wait=false']);
    await eventually('the binding recreated', async () => {
      const b = await getJson(m, ['apibindings']);
      const again = b.items.find((x: Json) => x.metadata.name === bindingName(mCluster, providerPath, extra) && !x.metadata.deletionTimestamp);
      return again ? true : undefined;
    });
    const initOnlyBindings = (await getJson(e2e.at(pathOf(iName)), ['apibindings'])).items as Json[];
    expect(initOnlyBindings.map((b) => b.spec.reference.export.name)).toEqual(['widgets']);
  }, 150_000);
});

describe('maximalPermissionPolicy.local', () => {
  const user1 = users.user1;
  let consumerPath: string;
  beforeAll(async () => {
    await exportAPI('limited', 'limited.example.com', 'gizmos', 'Gizmo', { maximalPermissionPolicy: { local: {} } });
    // The provider lets every bound user read gizmos, and nothing else.
    await create(provider, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'gizmos-read' },
      rules: [{ apiGroups: ['limited.example.com'], resources: ['gizmos'], verbs: ['get', 'list', 'watch'] }],
    });
    await create(provider, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'gizmos-read' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'gizmos-read' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'apis.kcp.io:binding:system:authenticated' }],
    });
    const type = await defineType('with-limited', { defaultAPIBindings: [{ path: providerPath, export: 'limited' }] });
    const [name] = await workspaceOf(type);
    consumerPath = pathOf(name);
    // user-1 is admin of the consumer workspace.
    await create(e2e.at(consumerPath), {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'user-1-admin' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user1.name }],
    });
  }, 120_000);

  const gizmo = (name: string): Json => ({ apiVersion: 'limited.example.com/v1', kind: 'Gizmo', metadata: { name, namespace: 'default' } });

  it('lets a consumer admin do only what the export’s workspace grants to apis.kcp.io:binding: subjects', async () => {
    const asUser1 = e2e.asUser(user1.token, consumerPath);
    expect((await asUser1(['get', 'gizmos', '-n', 'default'])).stderr).toMatch(/No resources found/);
    expectError(
      await create(asUser1, gizmo('g1'), { reject: false }),
      /gizmos\.limited\.example\.com is forbidden: User "user-1" cannot create resource "gizmos" in API group "limited\.example\.com" in the namespace "default": access denied$/,
    );
    // The same admin's other resources are not capped.
    await asUser1(['create', 'configmap', 'free', '-n', 'default']);
    // kcp-admin is not system:masters: the policy caps it too.
    expectError(await create(e2e.at(consumerPath), gizmo('g2'), { reject: false }), /forbidden: User "kcp-admin" cannot create resource "gizmos"/);
    // A grant to the prefixed user in the provider lifts the cap for that user only.
    await create(provider, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'gizmos-user-1-edit' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: `apis.kcp.io:binding:${user1.name}` }],
    });
    // The consumer's shard asks the export's shard and caches its answers briefly (as kube's webhook authorizer): a
    // consumer on another shard than the provider may be refused for that long after the grant (on one server, never).
    await eventually('the grant to reach the consumer', async () => ((await create(asUser1, gizmo('g3'), { reject: false })).exitCode === 0 ? true : undefined), 15_000);
    expect((await asUser1(['get', 'gizmos', '-n', 'default', '-o', 'name'])).stdout.trim()).toBe('gizmo.limited.example.com/g3');
    expectError(await create(e2e.at(consumerPath), gizmo('g4'), { reject: false }), /forbidden: User "kcp-admin" cannot create resource "gizmos"/);
  }, 90_000);

  it('never widens: a user the consumer lets in but grants nothing is refused whatever the provider grants', async () => {
    const user2 = users.user2;
    await create(e2e.at(consumerPath), {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'user-2-access' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:kcp:workspace:access' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user2.name }],
    });
    await create(provider, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'gizmos-user-2-admin' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: `apis.kcp.io:binding:${user2.name}` }],
    });
    const result = await e2e.asUser(user2.token, consumerPath)(['get', 'gizmos', '-n', 'default'], { reject: false });
    expectError(result, /gizmos\.limited\.example\.com is forbidden: User "user-2" cannot list resource "gizmos" in API group "limited\.example\.com" in the namespace "default": access denied/);
  });
});
