/**
 * The authorizer chain, aggregation and escalation checks over a memory store with the real bootstrap policy.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { builtinResourceTypes } from '../builtin/index.js';
import { GenericStore } from '../registry/generic-store.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import { createMemoryStore } from '../storage/index.js';
import type { UserInfo } from '../auth/user.js';
import type { LogicalClusterFacts } from './authorizer.js';
import { clusterRoleAggregationController } from '../controllers/clusterrole-aggregation-controller.js';
import { Authorization, Rbac, writeBootstrapPolicy } from './index.js';
import type { RequestAttributes } from './rules.js';
import { WriteAuthority } from '../admission/write-authority.js';

const rbac = 'rbac.authorization.k8s.io';

function fixture() {
  const store = createMemoryStore();
  const facts = new Map<string, LogicalClusterFacts>([['root', { phase: 'Ready' }]]);
  const authorization = new Authorization(new Rbac(store), { clusterFacts: (c) => facts.get(c) });
  const builtins = authorization.guard(builtinResourceTypes());
  const type = (resource: string): ResourceType => builtins.find((t) => t.group === rbac && t.resource === resource)!;
  const namespaces = builtinResourceTypes().find((t) => t.resource === 'namespaces')!;
  const generic = new GenericStore(store, namespaces, { authority: new WriteAuthority() });
  generic.create({ rt: namespaces, cluster: 'ws', namespace: '' }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } });
  authorization.rbac.indexes.start();
  const aggregation = clusterRoleAggregationController({ store, generic, clusterRoles: type('clusterroles') });
  writeBootstrapPolicy(generic, { clusterRoles: type('clusterroles'), clusterRoleBindings: type('clusterrolebindings') }, ['system:authenticated'], aggregation);
  aggregation.start();
  const create = (resource: string, obj: KubeObject, cluster = 'ws', user?: UserInfo) =>
    generic.create({ rt: type(resource), cluster, namespace: obj.metadata?.namespace ?? '', ...(user ? { user } : {}) }, obj);
  return { store, facts, authorization, generic, create, type };
}

const alice: UserInfo = { username: 'alice', groups: ['system:authenticated'] };
const get = (resource: string, namespace = '', verb = 'get'): RequestAttributes => ({
  verb,
  resourceRequest: true,
  apiGroup: '',
  resource,
  subresource: '',
  name: '',
  namespace,
  path: '',
});
const binding = (name: string, role: string, subject: { kind: string; name: string; namespace?: string }, namespace?: string, roleKind = 'ClusterRole'): KubeObject => ({
  apiVersion: `${rbac}/v1`,
  kind: namespace ? 'RoleBinding' : 'ClusterRoleBinding',
  metadata: { name, ...(namespace ? { namespace } : {}) },
  roleRef: { apiGroup: rbac, kind: roleKind, name: role },
  subjects: [{ ...(subject.kind === 'ServiceAccount' ? {} : { apiGroup: rbac }), ...subject }],
});

describe('the authorizer chain', () => {
  let f: ReturnType<typeof fixture>;
  beforeEach(() => {
    f = fixture();
    f.facts.set('ws', { phase: 'Ready' });
  });
  const decide = (user: UserInfo, attrs: RequestAttributes, cluster: string | undefined = 'ws') => f.authorization.authorizer.authorize(cluster, user, attrs);

  it('lets system:masters do anything anywhere, even without a cluster', () => {
    const masters = { username: 'shard-admin', groups: ['system:masters'] };
    expect(decide(masters, get('secrets'), undefined).allowed).toBe(true);
    expect(decide(masters, get('secrets'), 'system:admin').allowed).toBe(true);
  });

  it('refuses a workspace to a user without access, whatever RBAC grants, with the anonymised reason', () => {
    f.create('clusterrolebindings', binding('view', 'view', { kind: 'User', name: 'alice' }));
    const d = decide(alice, get('configmaps', 'team', 'list'));
    expect(d).toMatchObject({ allowed: false, reason: 'access denied', detail: 'no verb=access permission on /' });
    f.create('clusterrolebindings', binding('access', 'system:kcp:workspace:access', { kind: 'User', name: 'alice' }));
    expect(decide(alice, get('configmaps', 'team', 'list'))).toMatchObject({ allowed: true, reason: 'access granted' });
    expect(decide(alice, get('configmaps', 'team', 'create')).allowed).toBe(false);
  });

  it('kcp-admin is cluster-admin everywhere through the bootstrap binding', () => {
    const kcpAdmin = { username: 'kcp-admin', groups: ['system:kcp:admin', 'system:authenticated'] };
    expect(decide(kcpAdmin, get('secrets', 'team', 'delete')).allowed).toBe(true);
    expect(decide(kcpAdmin, get('secrets', 'team', 'delete'), 'system:admin').allowed).toBe(false);
  });

  it('checks required groups before access, and denies a missing or unserved LogicalCluster', () => {
    f.create('clusterrolebindings', binding('admin', 'cluster-admin', { kind: 'User', name: 'alice' }));
    f.facts.set('ws', { phase: 'Ready', requiredGroups: 'a;b,c' });
    expect(decide(alice, get('configmaps')).detail).toMatch(/required groups/);
    expect(decide({ ...alice, groups: ['a', 'b'] }, get('configmaps')).allowed).toBe(true);
    expect(decide({ ...alice, groups: ['c'] }, get('configmaps')).allowed).toBe(true);
    expect(decide({ ...alice, groups: ['a'] }, get('configmaps')).denied).toBe(true);
    f.facts.set('ws', { phase: 'Scheduling' });
    expect(decide(alice, get('configmaps')).detail).toMatch(/phase/);
    f.facts.delete('ws');
    expect(decide({ ...alice, extra: { 'authentication.kcp.io/cluster-name': ['ws'] } }, get('configmaps'))).toMatchObject({ denied: true });
  });

  it('lets a service account of the workspace straight to RBAC; one from elsewhere is anonymous there', () => {
    const sa = { username: 'system:serviceaccount:team:bot', groups: ['system:serviceaccounts', 'system:authenticated'], extra: { 'authentication.kcp.io/cluster-name': ['ws'] } };
    f.create('rolebindings', binding('bot', 'view', { kind: 'ServiceAccount', name: 'bot' }, 'team'));
    expect(decide(sa, get('configmaps', 'team', 'list')).allowed).toBe(true);
    const foreign = { ...sa, extra: { 'authentication.kcp.io/cluster-name': ['other'] } };
    expect(decide(foreign, get('configmaps', 'team', 'list')).allowed).toBe(false);
    f.create('clusterrolebindings', binding('other-access', 'system:kcp:workspace:access', { kind: 'Group', name: 'system:cluster:other' }));
    f.create('clusterrolebindings', binding('other-view', 'view', { kind: 'Group', name: 'system:cluster:other' }));
    expect(decide(foreign, get('configmaps', 'team', 'list')).allowed).toBe(true);
  });

  it('admits an initializer group only while the workspace waits on it', () => {
    const init = { username: 'x', groups: ['system:kcp:initializer:root:custom'] };
    // `view` grants no `access`: only the lifecycle rule lets the group in.
    f.create('clusterrolebindings', binding('init', 'view', { kind: 'Group', name: 'system:kcp:initializer:root:custom' }));
    f.facts.set('ws', { phase: 'Initializing', initializers: ['root:custom'] });
    expect(decide(init, get('configmaps', 'team', 'list')).allowed).toBe(true);
    f.facts.set('ws', { phase: 'Ready' });
    expect(decide(init, get('configmaps', 'team', 'list')).allowed).toBe(false);
  });

  it('sees RBAC changes at once (the compiled index is invalidated by the store watch)', () => {
    f.create('clusterrolebindings', binding('access', 'system:kcp:workspace:access', { kind: 'User', name: 'alice' }));
    expect(decide(alice, get('configmaps', 'team', 'list')).allowed).toBe(false);
    f.create('roles', { apiVersion: `${rbac}/v1`, kind: 'Role', metadata: { name: 'r', namespace: 'team' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }] });
    f.create('rolebindings', binding('r', 'r', { kind: 'User', name: 'alice' }, 'team', 'Role'));
    expect(decide(alice, get('configmaps', 'team', 'list')).allowed).toBe(true);
    expect(decide(alice, get('configmaps', 'other', 'list')).allowed).toBe(false);
    f.generic.delete({ rt: f.type('rolebindings'), cluster: 'ws', namespace: 'team' }, 'r');
    expect(decide(alice, get('configmaps', 'team', 'list')).allowed).toBe(false);
  });
});

describe('ClusterRole aggregation', () => {
  it('fills admin/edit/view from the aggregate-to roles, and a workspace’s own aggregating roles from its roles', async () => {
    const f = fixture();
    const boot = f.authorization.rbac.indexes.policy('system:admin');
    const view = boot.clusterRoles.get('view')!;
    expect(view.some((r) => r.resources?.includes('configmaps') && r.verbs.includes('list'))).toBe(true);
    expect(boot.clusterRoles.get('admin')!.some((r) => r.resources?.includes('configmaps') && r.verbs.includes('delete'))).toBe(true);
    f.create('clusterroles', { apiVersion: `${rbac}/v1`, kind: 'ClusterRole', metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { pick: 'me' } }] }, rules: [] });
    f.create('clusterroles', { apiVersion: `${rbac}/v1`, kind: 'ClusterRole', metadata: { name: 'part', labels: { pick: 'me' } }, rules: [{ apiGroups: ['x'], resources: ['y'], verbs: ['get'] }] });
    await new Promise((r) => setTimeout(r, 50));
    const agg = JSON.parse(f.store.get(`/registry/${rbac}/clusterroles/ws/agg`)!.value) as KubeObject;
    expect(agg.rules).toEqual([{ apiGroups: ['x'], resources: ['y'], verbs: ['get'] }]);
  });
});

describe('escalation prevention', () => {
  it('refuses roles and bindings granting more than the writer holds, unless they may escalate or bind', () => {
    const f = fixture();
    f.facts.set('ws', { phase: 'Ready' });
    f.create('clusterrolebindings', binding('access', 'system:kcp:workspace:access', { kind: 'User', name: 'alice' }));
    f.create('roles', {
      apiVersion: `${rbac}/v1`,
      kind: 'Role',
      metadata: { name: 'writer', namespace: 'team' },
      rules: [{ apiGroups: [rbac], resources: ['roles', 'rolebindings'], verbs: ['create'] }, { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
    });
    f.create('rolebindings', binding('writer', 'writer', { kind: 'User', name: 'alice' }, 'team', 'Role'));
    const role = (name: string, verbs: string[]) => ({ apiVersion: `${rbac}/v1`, kind: 'Role', metadata: { name, namespace: 'team' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs }] });
    expect(() => f.create('roles', role('ok', ['get']), 'ws', alice)).not.toThrow();
    expect(() => f.create('roles', role('more', ['get', 'delete']), 'ws', alice)).toThrow(
      'roles.rbac.authorization.k8s.io "more" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["configmaps"], Verbs:["delete"]}',
    );
    expect(() => f.create('rolebindings', binding('b', 'edit', { kind: 'User', name: 'bob' }, 'team'), 'ws', alice)).toThrow(/attempting to grant RBAC permissions not currently held/);
    expect(() => f.create('rolebindings', binding('b2', 'ok', { kind: 'User', name: 'bob' }, 'team', 'Role'), 'ws', alice)).not.toThrow();
    f.create('clusterrolebindings', binding('bind', 'binder', { kind: 'User', name: 'alice' }));
    f.create('clusterroles', { apiVersion: `${rbac}/v1`, kind: 'ClusterRole', metadata: { name: 'binder' }, rules: [{ apiGroups: [rbac], resources: ['clusterroles'], resourceNames: ['edit'], verbs: ['bind'] }] });
    expect(() => f.create('rolebindings', binding('b3', 'edit', { kind: 'User', name: 'bob' }, 'team'), 'ws', alice)).not.toThrow();
  });
});
