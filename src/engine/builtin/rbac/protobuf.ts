/**
 * rbac.authorization.k8s.io/v1. Field numbers: k8s.io/api v0.32 rbac/v1/generated.proto.
 */
import type { PackageDefs } from '../../machinery/protobuf/schema.js';

const objectMeta = '1 meta.v1.ObjectMeta';

export const rbacV1: PackageDefs = {
  pkg: 'rbac.v1',
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kinds: ['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding'],
  messages: {
    Role: { metadata: objectMeta, rules: '2 []PolicyRule' },
    ClusterRole: { metadata: objectMeta, rules: '2 []PolicyRule', aggregationRule: '3 ?AggregationRule' },
    PolicyRule: {
      verbs: '1 []string',
      apiGroups: '2 []string',
      resources: '3 []string',
      resourceNames: '4 []string',
      nonResourceURLs: '5 []string',
    },
    AggregationRule: { clusterRoleSelectors: '1 []meta.v1.LabelSelector' },
    RoleBinding: { metadata: objectMeta, subjects: '2 []Subject', roleRef: '3 RoleRef' },
    ClusterRoleBinding: { metadata: objectMeta, subjects: '2 []Subject', roleRef: '3 RoleRef' },
    Subject: { kind: '1 string', apiGroup: '2 string', name: '3 string', namespace: '4 string' },
    RoleRef: { apiGroup: '1 string', kind: '2 string', name: '3 string' },
  },
};
