/**
 * The `metrics-viewer` battery, as kcp's root bootstrap creates it: a ServiceAccount `default/metrics` in root, a
 * legacy token Secret `default/metrics` for it (filled by the tokens controller), and a ClusterRole /
 * ClusterRoleBinding `metrics-viewer` granting `get` on `/metrics` to that account and to a user named
 * `metrics-viewer`. Created once and never updated afterwards (kcp's create-only bootstrap objects).
 */
import { StatusError } from '../machinery/status.js';
import type { GenericStore } from '../registry/generic-store.js';
import type { KubeObject, ResourceType } from '../registry/types.js';

export const BATTERY_ANNOTATION = 'bootstrap.kcp.io/battery';
const BATTERY = 'metrics-viewer';
const RBAC = 'rbac.authorization.k8s.io';

export interface MetricsViewerTypes {
  serviceAccounts: ResourceType;
  secrets: ResourceType;
  clusterRoles: ResourceType;
  clusterRoleBindings: ResourceType;
}

export function bootstrapMetricsViewer(generic: GenericStore, types: MetricsViewerTypes, cluster = 'root'): void {
  const annotations = { [BATTERY_ANNOTATION]: BATTERY };
  const objects: Array<[ResourceType, string, KubeObject]> = [
    [types.serviceAccounts, 'default', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'metrics', annotations } }],
    [
      types.secrets,
      'default',
      {
        apiVersion: 'v1',
        kind: 'Secret',
        type: 'kubernetes.io/service-account-token',
        metadata: { name: 'metrics', annotations: { ...annotations, 'kubernetes.io/service-account.name': 'metrics' } },
      },
    ],
    [
      types.clusterRoles,
      '',
      {
        apiVersion: `${RBAC}/v1`,
        kind: 'ClusterRole',
        metadata: { name: BATTERY, annotations },
        rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }],
      },
    ],
    [
      types.clusterRoleBindings,
      '',
      {
        apiVersion: `${RBAC}/v1`,
        kind: 'ClusterRoleBinding',
        metadata: { name: BATTERY, annotations },
        subjects: [
          { kind: 'ServiceAccount', name: 'metrics', namespace: 'default' },
          { kind: 'User', name: BATTERY, apiGroup: RBAC },
        ],
        roleRef: { kind: 'ClusterRole', name: BATTERY, apiGroup: RBAC },
      },
    ],
  ];
  for (const [rt, namespace, obj] of objects) {
    try {
      generic.create({ rt, cluster, namespace }, obj);
    } catch (err) {
      if (err instanceof StatusError && err.code === 409) continue;
      throw err;
    }
  }
}
