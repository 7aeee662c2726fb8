/**
 * The bootstrap policy, kept once per shard in `system:admin` and consulted for every workspace (kcp's bootstrap
 * policy authorizer): Kubernetes' default ClusterRoles and ClusterRoleBindings (plugin/pkg/auth/authorizer/rbac/
 * bootstrappolicy) that matter without nodes and pods, and kcp's own (pkg/authorization/bootstrap). `admin`,
 * `edit` and `view` are aggregating roles whose rules the aggregation controller fills in from the
 * `system:aggregate-to-*` roles, as in kube.
 */
import type { KubeObject } from '../registry/types.js';
import type { PolicyRule } from './rules.js';
import { AUTHENTICATED_GROUP, KCP_ADMIN_GROUP, LOGICAL_CLUSTER_ADMIN_GROUP, MASTERS_GROUP, WORKSPACE_BOOTSTRAPPER_GROUP } from '../machinery/user-groups.js';

const RBAC = 'rbac.authorization.k8s.io';
const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'update', 'patch', 'delete', 'deletecollection'];
const READ_WRITE = [...READ, ...WRITE];
export const WORKSPACE_ACCESS_ROLE = 'system:kcp:workspace:access';
export const TENANCY_READER_ROLE = 'system:kcp:tenancy:reader';

const rule = (verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): PolicyRule => ({
  apiGroups,
  resources,
  verbs,
  ...(resourceNames ? { resourceNames } : {}),
});
const urls = (verbs: string[], nonResourceURLs: string[]): PolicyRule => ({ nonResourceURLs, verbs });

const kubeDefaults = { 'kubernetes.io/bootstrapping': 'rbac-defaults' };
const autoupdate = { 'rbac.authorization.kubernetes.io/autoupdate': 'true' };

export function clusterRole(name: string, rules: PolicyRule[], extra: { labels?: Record<string, string>; aggregateFrom?: string } = {}): KubeObject {
  return {
    apiVersion: `${RBAC}/v1`,
    kind: 'ClusterRole',
    metadata: { name, labels: { ...kubeDefaults, ...(extra.labels ?? {}) }, annotations: { ...autoupdate } },
    ...(extra.aggregateFrom
      ? { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [`${RBAC}/aggregate-to-${extra.aggregateFrom}`]: 'true' } }] } }
      : {}),
    rules,
  };
}

export function clusterRoleBinding(name: string, role: string, subjects: Array<{ kind: 'Group' | 'User'; name: string }>): KubeObject {
  return {
    apiVersion: `${RBAC}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: { name, labels: { ...kubeDefaults }, annotations: { ...autoupdate } },
    roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: role },
    subjects: subjects.map((s) => ({ apiGroup: RBAC, ...s })),
  };
}

const aggregateLabel = (to: string) => ({ [`${RBAC}/aggregate-to-${to}`]: 'true' });

function kubeClusterRoles(): KubeObject[] {
  return [
    clusterRole('cluster-admin', [rule(['*'], ['*'], ['*']), urls(['*'], ['*'])]),
    clusterRole('system:discovery', [
      urls(['get'], ['/livez', '/readyz', '/healthz', '/version', '/version/', '/openapi', '/openapi/*', '/api', '/api/*', '/apis', '/apis/*']),
    ]),
    clusterRole('system:monitoring', [urls(['get'], ['/metrics', '/livez', '/readyz', '/healthz', '/livez/*', '/readyz/*', '/healthz/*'])]),
    clusterRole('system:basic-user', [
      rule(['create'], ['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
      rule(['create'], ['authentication.k8s.io'], ['selfsubjectreviews']),
    ]),
    clusterRole('system:public-info-viewer', [urls(['get'], ['/livez', '/readyz', '/healthz', '/version', '/version/'])]),
    clusterRole('admin', [], { aggregateFrom: 'admin' }),
    clusterRole('edit', [], { aggregateFrom: 'edit', labels: aggregateLabel('admin') }),
    clusterRole('view', [], { aggregateFrom: 'view', labels: aggregateLabel('edit') }),
    clusterRole(
      'system:aggregate-to-admin',
      [rule(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews']), rule(READ_WRITE, [RBAC], ['roles', 'rolebindings'])],
      { labels: aggregateLabel('admin') },
    ),
    clusterRole(
      'system:aggregate-to-edit',
      [
        rule(READ, [''], ['pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward', 'secrets', 'services/proxy']),
        rule(['impersonate'], [''], ['serviceaccounts']),
        rule(WRITE, [''], ['pods', 'pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward']),
        rule(['create'], [''], ['pods/eviction']),
        rule(WRITE, [''], ['replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/proxy', 'persistentvolumeclaims', 'configmaps', 'secrets', 'events']),
        rule(['create'], [''], ['serviceaccounts/token']),
        rule(WRITE, ['apps'], ['statefulsets', 'statefulsets/scale', 'daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback', 'replicasets', 'replicasets/scale']),
        rule(WRITE, ['autoscaling'], ['horizontalpodautoscalers']),
        rule(WRITE, ['batch'], ['jobs', 'cronjobs']),
        rule(WRITE, ['extensions'], ['daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback', 'ingresses', 'replicasets', 'replicasets/scale', 'replicationcontrollers/scale', 'networkpolicies']),
        rule(WRITE, ['policy'], ['poddisruptionbudgets']),
        rule(WRITE, ['networking.k8s.io'], ['networkpolicies', 'ingresses']),
        rule(READ_WRITE, ['coordination.k8s.io'], ['leases']),
      ],
      { labels: aggregateLabel('edit') },
    ),
    clusterRole(
      'system:aggregate-to-view',
      [
        rule(READ, [''], ['pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'configmaps']),
        rule(READ, [''], ['limitranges', 'resourcequotas', 'bindings', 'events', 'pods/status', 'resourcequotas/status', 'namespaces/status', 'replicationcontrollers/status', 'pods/log']),
        rule(READ, [''], ['namespaces']),
        rule(READ, ['discovery.k8s.io'], ['endpointslices']),
        rule(READ, ['apps'], ['controllerrevisions', 'statefulsets', 'statefulsets/status', 'statefulsets/scale', 'daemonsets', 'daemonsets/status', 'deployments', 'deployments/status', 'deployments/scale', 'replicasets', 'replicasets/status', 'replicasets/scale']),
        rule(READ, ['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
        rule(READ, ['batch'], ['jobs', 'cronjobs', 'cronjobs/status', 'jobs/status']),
        rule(READ, ['extensions'], ['daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'ingresses', 'ingresses/status', 'replicasets', 'replicasets/scale', 'replicasets/status', 'replicationcontrollers/scale', 'networkpolicies']),
        rule(READ, ['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
        rule(READ, ['networking.k8s.io'], ['networkpolicies', 'ingresses', 'ingresses/status']),
        rule(READ, ['coordination.k8s.io'], ['leases']),
        rule(READ, ['events.k8s.io'], ['events']),
      ],
      { labels: aggregateLabel('view') },
    ),
    clusterRole('system:auth-delegator', [
      rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
      rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
    ]),
  ];
}

function kcpClusterRoles(): KubeObject[] {
  return [
    clusterRole(TENANCY_READER_ROLE, [
      rule(['get', 'list', 'watch'], ['tenancy.kcp.io'], ['workspaces']),
      rule(READ, ['tenancy.kcp.io'], ['workspacetypes']),
      rule(['get', 'list', 'watch'], ['core.kcp.io'], ['logicalclusters']),
    ]),
    clusterRole(WORKSPACE_BOOTSTRAPPER_GROUP, [rule(['*'], ['*'], ['*']), urls(['*'], ['*'])]),
    clusterRole(LOGICAL_CLUSTER_ADMIN_GROUP, [
      rule(['*'], ['core.kcp.io'], ['logicalclusters']),
      rule(['delete', 'update', 'get'], ['tenancy.kcp.io'], ['workspaces']),
    ]),
    clusterRole(WORKSPACE_ACCESS_ROLE, [urls(['access'], ['/'])]),
  ];
}

/** Every object of the bootstrap policy, in the order they are created. */
export function bootstrapPolicy(): KubeObject[] {
  return [
    ...kubeClusterRoles(),
    ...kcpClusterRoles(),
    clusterRoleBinding('cluster-admin', 'cluster-admin', [{ kind: 'Group', name: MASTERS_GROUP }]),
    clusterRoleBinding('system:discovery', 'system:discovery', [{ kind: 'Group', name: AUTHENTICATED_GROUP }]),
    clusterRoleBinding('system:basic-user', 'system:basic-user', [{ kind: 'Group', name: AUTHENTICATED_GROUP }]),
    clusterRoleBinding('system:public-info-viewer', 'system:public-info-viewer', [
      { kind: 'Group', name: AUTHENTICATED_GROUP },
      { kind: 'Group', name: 'system:unauthenticated' },
    ]),
    clusterRoleBinding('system:monitoring', 'system:monitoring', [{ kind: 'Group', name: 'system:monitoring' }]),
    clusterRoleBinding('system:kcp:admin:cluster-admin', 'cluster-admin', [{ kind: 'Group', name: KCP_ADMIN_GROUP }]),
    clusterRoleBinding(WORKSPACE_BOOTSTRAPPER_GROUP, WORKSPACE_BOOTSTRAPPER_GROUP, [
      { kind: 'Group', name: WORKSPACE_BOOTSTRAPPER_GROUP },
      { kind: 'Group', name: `apis.kcp.io:binding:${WORKSPACE_BOOTSTRAPPER_GROUP}` },
    ]),
    clusterRoleBinding(LOGICAL_CLUSTER_ADMIN_GROUP, LOGICAL_CLUSTER_ADMIN_GROUP, [{ kind: 'Group', name: LOGICAL_CLUSTER_ADMIN_GROUP }]),
  ];
}
