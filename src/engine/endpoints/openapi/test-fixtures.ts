/**
 * A small catalog of resources for the OpenAPI tests, shaped like the ResourceTypes the registry will build.
 */
import type { OpenAPIResource } from './document.js';

const CRUD = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export const fakeResources: OpenAPIResource[] = [
  {
    group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', listKind: 'ConfigMapList',
    namespaced: true, verbs: CRUD,
  },
  {
    group: '', version: 'v1', resource: 'secrets', kind: 'Secret', listKind: 'SecretList', namespaced: true,
    verbs: CRUD,
  },
  {
    group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', listKind: 'NamespaceList', namespaced: false,
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: { status: true, finalize: true },
  },
  {
    group: '', version: 'v1', resource: 'serviceaccounts', kind: 'ServiceAccount', listKind: 'ServiceAccountList',
    namespaced: true, verbs: CRUD,
  },
  {
    group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles', kind: 'ClusterRole',
    listKind: 'ClusterRoleList', namespaced: false, verbs: CRUD,
  },
  {
    group: 'authorization.k8s.io', version: 'v1', resource: 'selfsubjectaccessreviews',
    kind: 'SelfSubjectAccessReview', listKind: 'SelfSubjectAccessReviewList', namespaced: false, verbs: ['create'],
  },
  {
    group: 'core.kcp.io', version: 'v1alpha1', resource: 'logicalclusters', kind: 'LogicalCluster',
    listKind: 'LogicalClusterList', namespaced: false, verbs: CRUD, subresources: { status: true },
    strategicMerge: false,
  },
  // A custom resource whose schema the caller supplies under openapiSchemaName.
  {
    group: 'stable.example.com', version: 'v1', resource: 'crontabs', kind: 'CronTab', listKind: 'CronTabList',
    namespaced: true, verbs: CRUD,
    subresources: {
      status: true,
      scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
    },
    openapiSchemaName: 'com.example.stable.v1.CronTab',
  },
];

export const cronTabSchema = {
  description: 'A test custom resource.',
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }] },
    spec: { type: 'object', properties: { cronSpec: { type: 'string', description: 'When to run.' } } },
  },
  'x-kubernetes-group-version-kind': [{ group: 'stable.example.com', version: 'v1', kind: 'CronTab' }],
};
