/**
 * Authorization per workspace with the real kubectl and token-file users: kcp-admin may do
 * everything; a user without access to a workspace is refused with kcp's texts and works in their own home; a Role
 * and RoleBinding give read-only configmaps in one namespace; `system:kcp:workspace:access` + `view` give read-only
 * access; a type the user may not `use` cannot be instantiated; `kubectl auth can-i [--list]` and `--as` answer
 * from the same authorizer.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../helpers/kubectl.js';
import { expectError, lines } from '../helpers/suite.js';
import { apiBinding } from './apis-fixtures.js';
import { create, createWorkspace, getJson, root, useTenancyServer, users, workspace, workspaceByApi, workspaceType, type Json } from './tenancy-fixtures.js';
import type { ClusterKubectl } from '../helpers/kubectl.js';

const e2e = useTenancyServer();
const admin = () => e2e.at('root');
/** `kubectl get --raw` of a path under /clusters/<cluster> as a token user (--raw ignores the server URL's path). */
const raw = (token: string, cluster: string, path: string, extra: string[] = []) =>
  e2e.asUser(token, 'root')(['get', '--raw', `/clusters/${cluster}${path}`, '--server', e2e.server.url, ...extra], { reject: false });
const u1 = users.user1;
const u2 = users.user2;

let org: string;
let ws: string;
beforeAll(async () => {
  org = uniqueName('org');
  await workspaceByApi(e2e, 'root', org);
  await e2e.at(`root:${org}`)(['create', 'namespace', 'team']);
  await e2e.at(`root:${org}`)(['create', 'configmap', 'settings', '-n', 'team', '--from-literal=a=b']);
  ws = `root:${org}`;
}, 90_000);

describe('kcp-admin', () => {
  it('may do everything in every workspace', async () => {
    const k = e2e.at(ws);
    expect((await k(['auth', 'can-i', '*', '*'])).stdout.trim()).toBe('yes');
    await k(['create', 'secret', 'generic', uniqueName('s'), '-n', 'team']);
    await k(['create', 'clusterrole', uniqueName('cr'), '--verb=*', '--resource=*']);
  });
});

describe('a user without access', () => {
  it('is refused in the workspace with kcp’s text, for resources and discovery alike', async () => {
    expectError(
      await raw(u1.token, ws, '/api/v1/namespaces/team/configmaps'),
      'Error from server (Forbidden): configmaps is forbidden: User "user-1" cannot list resource "configmaps" in API group "" in the namespace "team": access denied',
    );
    expectError(
      await raw(u1.token, ws, '/api/v1/namespaces/team/configmaps/settings'),
      'Error from server (Forbidden): configmaps "settings" is forbidden: User "user-1" cannot get resource "configmaps" in API group "" in the namespace "team": access denied',
    );
    expectError(await raw(u1.token, ws, '/apis'), 'Error from server (Forbidden): forbidden: User "user-1" cannot get path "/apis": access denied');
    expectError(await raw(u1.token, ws, '/openapi/v3'), 'Error from server (Forbidden): forbidden: User "user-1" cannot get path "/openapi/v3": access denied');
  });

  it('learns nothing from paths: a missing child of a workspace they cannot see is 403, not 404', async () => {
    expectError(
      await raw(u1.token, `${ws}:nothing-here`, '/api/v1/namespaces'),
      `Error from server (Forbidden): forbidden: User "user-1" cannot get path "/clusters/${ws}:nothing-here/api/v1/namespaces": workspace access not permitted`,
    );
    // In root every authenticated user may read workspaces, so there a missing one is simply not found.
    expectError(
      await raw(u1.token, 'root:nothing-here', '/api/v1/namespaces'),
      'Error from server (NotFound): workspaces.tenancy.kcp.io "root:nothing-here" not found',
    );
    // The wildcard and the bare server are for system:masters only.
    expectError(
      await raw(u1.token, '*', '/api/v1/configmaps'),
      'Error from server (Forbidden): configmaps is forbidden: User "user-1" cannot list resource "configmaps" in API group "" at the cluster scope: access denied',
    );
  });

  it('works in their own home', async () => {
    const home = await getJson(e2e.asUser(u1.token, 'root'), ['workspace', '~']);
    const k = e2e.asUser(u1.token, `user:${u1.name}`);
    const name = uniqueName('cm');
    await k(['create', 'configmap', name, '-n', 'default']);
    expect((await getJson(k, ['configmap', name, '-n', 'default'])).metadata.annotations['kcp.io/cluster']).toBe(home.spec.cluster);
    // …and nobody else does.
    expectError(
      await raw(u2.token, home.spec.cluster, '/api/v1/namespaces/default/configmaps'),
      'Error from server (Forbidden): configmaps is forbidden: User "user-2" cannot list resource "configmaps" in API group "" in the namespace "default": access denied',
    );
  });
});

describe('granted by RBAC', () => {
  it('a Role and RoleBinding let a user read but not write configmaps, in that namespace only', async () => {
    const k = e2e.at(ws);
    await k(['create', 'namespace', 'other']);
    await k(['create', 'clusterrolebinding', 'user-1-access', '--clusterrole=system:kcp:workspace:access', '--user=user-1']);
    await k(['create', 'role', 'cm-reader', '-n', 'team', '--verb=get,list,watch', '--resource=configmaps']);
    await k(['create', 'rolebinding', 'cm-reader', '-n', 'team', '--role=cm-reader', '--user=user-1']);
    const u = e2e.asUser(u1.token, ws);
    expect(lines((await u(['get', 'configmaps', '-n', 'team', '-o', 'name'])).stdout)).toContain('configmap/settings');
    expectError(
      await u(['create', 'configmap', 'mine', '-n', 'team'], { reject: false }),
      'error: failed to create configmap: configmaps is forbidden: User "user-1" cannot create resource "configmaps" in API group "" in the namespace "team": access denied',
    );
    expectError(
      await u(['get', 'configmaps', '-n', 'other'], { reject: false }),
      'Error from server (Forbidden): configmaps is forbidden: User "user-1" cannot list resource "configmaps" in API group "" in the namespace "other": access denied',
    );
    expect((await u(['auth', 'can-i', 'list', 'configmaps', '-n', 'team'])).stdout.trim()).toBe('yes');
    const no = await u(['auth', 'can-i', 'delete', 'configmaps', '-n', 'team'], { reject: false });
    expect(no.stdout.trim()).toBe('no - access denied');
  });

  // kube's request info names the namespace of /namespaces/<name>[/status|/finalize]: a Role inside it may grant
  // reading that namespace and its status, and nothing of another namespace.
  it('a Role in a namespace may grant reading that namespace and its status', async () => {
    const k = e2e.at(ws);
    await k(['create', 'namespace', 'self-read']);
    await k(['create', 'clusterrolebinding', 'user-2-self-access', '--clusterrole=system:kcp:workspace:access', '--user=user-2']);
    await k(['create', 'role', 'ns-reader', '-n', 'self-read', '--verb=get', '--resource=namespaces,namespaces/status']);
    await k(['create', 'rolebinding', 'ns-reader', '-n', 'self-read', '--role=ns-reader', '--user=user-2']);
    const read = async (path: string) => {
      const out = await raw(u2.token, ws, path);
      return out.exitCode === 0 ? (JSON.parse(out.stdout) as { metadata: { name: string } }).metadata.name : out.stderr.trim();
    };
    expect(await read('/api/v1/namespaces/self-read')).toBe('self-read');
    expect(await read('/api/v1/namespaces/self-read/status')).toBe('self-read');
    expect(await read('/api/v1/namespaces/team/status')).toMatch(/cannot get resource "namespaces\/status" in API group "" in the namespace "team"/);
  });

  it('system:kcp:workspace:access plus view give read-only access to the workspace', async () => {
    const k = e2e.at(ws);
    await k(['create', 'clusterrolebinding', 'user-2-access', '--clusterrole=system:kcp:workspace:access', '--user=user-2']);
    await k(['create', 'clusterrolebinding', 'user-2-view', '--clusterrole=view', '--user=user-2']);
    const u = e2e.asUser(u2.token, ws);
    expect(lines((await u(['get', 'configmaps', '-A', '-o', 'name'])).stdout)).toContain('configmap/settings');
    expect(lines((await u(['get', 'namespaces', '-o', 'name'])).stdout)).toContain('namespace/team');
    expectError(
      await u(['delete', 'configmap', 'settings', '-n', 'team'], { reject: false }),
      'Error from server (Forbidden): configmaps "settings" is forbidden: User "user-2" cannot delete resource "configmaps" in API group "" in the namespace "team": access denied',
    );
    // view does not include secrets.
    expectError(
      await u(['get', 'secrets', '-n', 'team'], { reject: false }),
      'Error from server (Forbidden): secrets is forbidden: User "user-2" cannot list resource "secrets" in API group "" in the namespace "team": access denied',
    );
  });

  it('kubectl auth can-i --list shows what the user holds there', async () => {
    const out = (await e2e.asUser(u1.token, ws)(['auth', 'can-i', '--list', '-n', 'team'])).stdout;
    const rows = lines(out).map((l) => l.split(/\s{2,}/));
    expect(rows[0]).toEqual(['Resources', 'Non-Resource URLs', 'Resource Names', 'Verbs']);
    expect(rows).toContainEqual(['configmaps', '[]', '[]', '[get list watch]']);
    expect(rows).toContainEqual(['', '[/]', '[]', '[access]']);
    expect(out).not.toMatch(/secrets/);
  });
});

describe('workspace types', () => {
  it('a user lacking use on a type cannot create a workspace of it (kcp’s message); allowed types work', async () => {
    const type = uniqueName('custom');
    await create(admin(), workspaceType(type, { extend: { with: [root('universal')] } }));
    await getJson(e2e.asUser(u1.token, 'root'), ['workspace', '~']);
    const home = e2e.asUser(u1.token, `user:${u1.name}`);
    const name = uniqueName('ws');
    const refused = await create(home, workspace(name, root(type)), { reject: false });
    expectError(
      refused,
      new RegExp(`workspaces\\.tenancy\\.kcp\\.io "${name}" is forbidden: unable to use workspace type root:${type}: missing verb='use' permission on workspacetype$`),
    );
    await createWorkspace(home, uniqueName('ok'), root('universal'));
    // Granting use in the type's workspace lets it through.
    await create(admin(), {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: `use-${type}` },
      rules: [{ apiGroups: ['tenancy.kcp.io'], resources: ['workspacetypes'], resourceNames: [type], verbs: ['use'] }],
    });
    await admin()(['create', 'clusterrolebinding', `use-${type}`, `--clusterrole=use-${type}`, '--user=user-1']);
    await createWorkspace(home, name, root(type));
  });
});

describe('impersonation', () => {
  it('needs impersonate on the user; with it, the request runs as that user', async () => {
    expectError(
      await raw(u1.token, ws, '/api/v1/namespaces/team/configmaps', ['--as', 'user-2']),
      'Error from server (Forbidden): users "user-2" is forbidden: User "user-1" cannot impersonate resource "users" in API group "" at the cluster scope: access denied',
    );
    expect((await e2e.at(ws)(['auth', 'whoami', '--as', 'user-2', '--as-group', 'team-x', '-o', 'json'])).stdout).toMatch(/"team-x"/);
    expect((await e2e.at(ws)(['auth', 'can-i', 'create', 'configmaps', '-n', 'team', '--as', 'user-2'], { reject: false })).stdout.trim()).toBe(
      'no - access denied',
    );
    expect((await e2e.at(ws)(['auth', 'can-i', 'list', 'configmaps', '-n', 'team', '--as', 'user-2'])).stdout.trim()).toBe('yes');
  });

  // kcp scopes an impersonated identity to the workspace the impersonation was granted in (WithImpersonationScoping):
  // every user administers their home and so may impersonate any non-kcp group there, which must not count in
  // another tenant's workspace. Before the scope, user-1 bound user-2's team's export and used its type this way.
  it('is scoped to the workspace it was granted in: a group impersonated at home is nobody in another tenant’s workspace', async () => {
    const prov = uniqueName('prov');
    await workspaceByApi(e2e, 'root', prov);
    const p = e2e.at(`root:${prov}`);
    const name = uniqueName('secret');
    await create(p, { apiVersion: 'apis.kcp.io/v1alpha1', kind: 'APIExport', metadata: { name }, spec: {} });
    await create(p, workspaceType(name, { extend: { with: [root('universal')] } }));
    await create(p, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'team-2-only' },
      rules: [
        { apiGroups: ['apis.kcp.io'], resources: ['apiexports'], resourceNames: [name], verbs: ['bind'] },
        { apiGroups: ['tenancy.kcp.io'], resources: ['workspacetypes'], resourceNames: [name], verbs: ['use', 'get'] },
      ],
    });
    await p(['create', 'clusterrolebinding', 'team-2-only', '--clusterrole=team-2-only', `--group=${u2.groups[0]}`]);
    const binding = (n: string): Json => apiBinding(n, name, { exportPath: `root:${prov}` });
    const typed = (n: string): Json => workspace(n, { name, path: `root:${prov}` });

    // user-1 at home, as themselves in user-2's group: refused as user-1 alone is.
    await getJson(e2e.asUser(u1.token, 'root'), ['workspace', '~']);
    const home1 = e2e.asUser(u1.token, `user:${u1.name}`);
    const asTeam2: ClusterKubectl = (args, o) => home1([...args, '--as', u1.name, '--as-group', u2.groups[0]!], o);
    for (const k of [home1, asTeam2]) {
      expectError(
        await create(k, binding(uniqueName('stolen')), { reject: false }),
        new RegExp(`is forbidden: unable to create APIBinding: no permission to bind to export root:${prov}:${name}$`),
      );
      expectError(await create(k, typed(uniqueName('ws')), { reject: false }), new RegExp(`workspacetypes\\.tenancy\\.kcp\\.io "root:${prov}:${name}" not found$`));
    }
    // Impersonation still works where it was granted, and user-2, who is in the group, may do both.
    expect(JSON.parse((await asTeam2(['auth', 'whoami', '-o', 'json'])).stdout).status.userInfo.extra['authentication.kcp.io/scopes']).toHaveLength(1);
    await getJson(e2e.asUser(u2.token, 'root'), ['workspace', '~']);
    const home2 = e2e.asUser(u2.token, `user:${u2.name}`);
    await create(home2, binding(uniqueName('bound')));
    await create(home2, typed(uniqueName('ws')));
  });
});
