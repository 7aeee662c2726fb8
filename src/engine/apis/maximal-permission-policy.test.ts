/**
 * The maximal permission policy: the policy lookup over stored APIBindings/APIExports, and the authorizer step that
 * re-checks a capped request against RBAC in the export's workspace with the `apis.kcp.io:binding:` prefix.
 */
import { describe, expect, it } from 'vitest';
import { clusterRoleAggregationController } from '../controllers/clusterrole-aggregation-controller.js';
import { Authorization, Rbac, writeBootstrapPolicy } from '../authorization/index.js';
import type { UserInfo } from '../auth/user.js';
import type { RequestAttributes } from '../authorization/rules.js';
import { builtinResourceTypes } from '../builtin/index.js';
import { GenericStore } from '../registry/generic-store.js';
import { encodeStored } from '../registry/stored-object.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import { createMemoryStore } from '../storage/index.js';
import { BoundAPIs } from './bound-apis.js';
import { MaximalPermissionPolicies } from './maximal-permission-policy.js';
import { WriteAuthority } from '../admission/write-authority.js';

const rbac = 'rbac.authorization.k8s.io';
const apiExports = { storagePrefix: 'apis.kcp.io/apiexports', namespaced: false } as ResourceType;
const alice: UserInfo = { username: 'alice', groups: ['system:authenticated', 'team-a'] };
const cowboys = (verb: string, namespace = 'default'): RequestAttributes => ({
  verb,
  resourceRequest: true,
  apiGroup: 'wildwest.dev',
  resource: 'cowboys',
  subresource: '',
  name: '',
  namespace,
  path: '',
});

function fixture() {
  const store = createMemoryStore();
  const bound = new BoundAPIs(store);
  bound.start();
  const policies = new MaximalPermissionPolicies(store, bound, apiExports);
  policies.start();
  const authorization = new Authorization(new Rbac(store), { clusterFacts: () => ({ phase: 'Ready' }), maximalPolicy: (cluster, attrs) => policies.policyFor(cluster, attrs) });
  const builtins = authorization.guard(builtinResourceTypes());
  const type = (resource: string) => builtins.find((t) => t.group === rbac && t.resource === resource)!;
  const namespaces = builtinResourceTypes().find((t) => t.resource === 'namespaces')!;
  const generic = new GenericStore(store, namespaces, { authority: new WriteAuthority() });
  authorization.rbac.indexes.start();
  const aggregation = clusterRoleAggregationController({ store, generic, clusterRoles: type('clusterroles') });
  writeBootstrapPolicy(generic, { clusterRoles: type('clusterroles'), clusterRoleBindings: type('clusterrolebindings') }, [], aggregation);
  aggregation.start();
  const put = (key: string, obj: KubeObject) => {
    const existing = store.get(key);
    store.commit([existing ? { type: 'update', key, value: encodeStored(obj), expectedRevision: existing.revision } : { type: 'create', key, value: encodeStored(obj) }]);
  };
  const grant = (cluster: string, name: string, subject: { kind: string; name: string }, rules: unknown[]) => {
    generic.create({ rt: type('clusterroles'), cluster, namespace: '' }, { apiVersion: `${rbac}/v1`, kind: 'ClusterRole', metadata: { name }, rules });
    generic.create(
      { rt: type('clusterrolebindings'), cluster, namespace: '' },
      { apiVersion: `${rbac}/v1`, kind: 'ClusterRoleBinding', metadata: { name }, roleRef: { apiGroup: rbac, kind: 'ClusterRole', name }, subjects: [{ apiGroup: rbac, ...subject }] },
    );
  };
  // The consumer's own RBAC lets alice do everything there.
  grant('consumer', 'alice-admin', { kind: 'User', name: 'alice' }, [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }, { nonResourceURLs: ['*'], verbs: ['*'] }]);
  put('/registry/apis.kcp.io/apiresourceschemas/provider/today.cowboys.wildwest.dev', {
    apiVersion: 'apis.kcp.io/v1alpha1',
    kind: 'APIResourceSchema',
    metadata: { name: 'today.cowboys.wildwest.dev', uid: 'schema-uid' },
    spec: {
      group: 'wildwest.dev',
      names: { plural: 'cowboys', singular: 'cowboy', kind: 'Cowboy', listKind: 'CowboyList' },
      scope: 'Namespaced',
      versions: [{ name: 'v1alpha1', served: true, storage: true, schema: { type: 'object' } }],
    },
  } as KubeObject);
  put('/registry/apis.kcp.io/apibindings/consumer/cowboys', {
    apiVersion: 'apis.kcp.io/v1alpha2',
    kind: 'APIBinding',
    metadata: { name: 'cowboys' },
    spec: { reference: { export: { path: 'root:provider', name: 'today-cowboys' } } },
    status: {
      phase: 'Bound',
      apiExportClusterName: 'provider',
      boundResources: [{ group: 'wildwest.dev', resource: 'cowboys', schema: { name: 'today.cowboys.wildwest.dev', UID: 'schema-uid', identityHash: 'h' }, storageVersions: ['v1alpha1'] }],
    },
  } as KubeObject);
  const exportWith = (local: boolean): KubeObject => ({
    apiVersion: 'apis.kcp.io/v1alpha2',
    kind: 'APIExport',
    metadata: { name: 'today-cowboys' },
    spec: local ? { maximalPermissionPolicy: { local: {} } } : {},
  } as KubeObject);
  const decide = (attrs: RequestAttributes, user = alice) => authorization.authorizer.authorize('consumer', user, attrs);
  return { store, put, grant, exportWith, decide, policies };
}

describe('maximal permission policy', () => {
  it('leaves bound resources to the consumer RBAC when the export has no local policy', () => {
    const f = fixture();
    f.put('/registry/apis.kcp.io/apiexports/provider/today-cowboys', f.exportWith(false));
    expect(f.decide(cowboys('create')).allowed).toBe(true);
  });

  it('denies what the export workspace does not grant to the prefixed user or groups, and allows what it does', () => {
    const f = fixture();
    f.put('/registry/apis.kcp.io/apiexports/provider/today-cowboys', f.exportWith(true));
    expect(f.decide(cowboys('get'))).toMatchObject({ allowed: false, reason: 'access denied' });
    // A grant to the unprefixed group means nothing to the policy.
    f.grant('provider', 'plain', { kind: 'Group', name: 'system:authenticated' }, [{ apiGroups: ['wildwest.dev'], resources: ['cowboys'], verbs: ['*'] }]);
    expect(f.decide(cowboys('get')).allowed).toBe(false);
    f.grant('provider', 'read', { kind: 'Group', name: 'apis.kcp.io:binding:system:authenticated' }, [
      { apiGroups: ['wildwest.dev'], resources: ['cowboys'], verbs: ['get', 'list', 'watch'] },
    ]);
    expect(f.decide(cowboys('list')).allowed).toBe(true);
    expect(f.decide(cowboys('create')).allowed).toBe(false);
    f.grant('provider', 'alice-write', { kind: 'User', name: 'apis.kcp.io:binding:alice' }, [{ apiGroups: ['wildwest.dev'], resources: ['cowboys'], verbs: ['create'] }]);
    expect(f.decide(cowboys('create')).allowed).toBe(true);
    // The cap never widens: bob has no RBAC in the consumer, whatever the provider grants.
    expect(f.decide(cowboys('list'), { username: 'bob', groups: ['system:authenticated'] }).allowed).toBe(false);
  });

  it('does not touch resources that are not bound, and follows changes of the binding and the export', () => {
    const f = fixture();
    f.put('/registry/apis.kcp.io/apiexports/provider/today-cowboys', f.exportWith(true));
    expect(f.decide({ ...cowboys('create'), apiGroup: '', resource: 'configmaps' }).allowed).toBe(true);
    expect(f.decide(cowboys('create')).allowed).toBe(false);
    f.put('/registry/apis.kcp.io/apiexports/provider/today-cowboys', f.exportWith(false));
    expect(f.decide(cowboys('create')).allowed).toBe(true);
    f.put('/registry/apis.kcp.io/apiexports/provider/today-cowboys', f.exportWith(true));
    expect(f.decide(cowboys('create')).allowed).toBe(false);
    f.store.commit([{ type: 'delete', key: '/registry/apis.kcp.io/apibindings/consumer/cowboys' }]);
    expect(f.decide(cowboys('create')).allowed).toBe(true);
  });

  it('lets system:masters through without asking the export', () => {
    const f = fixture();
    f.put('/registry/apis.kcp.io/apiexports/provider/today-cowboys', f.exportWith(true));
    expect(f.decide(cowboys('delete'), { username: 'shard-admin', groups: ['system:masters'] }).allowed).toBe(true);
  });
});
