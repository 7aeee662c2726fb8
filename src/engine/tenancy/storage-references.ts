/**
 * What the objects every workspace has look like in storage, handed to the SQLite store as compression references
 * (storage/value-codec.ts): a workspace's Workspace (Scheduling and Ready), LogicalCluster, `default` (and, close enough, `kube-system`) Namespace,
 * the namespaces' `default` ServiceAccounts and the `workspace-admin` ClusterRoleBinding are stored as the few hundred bytes that differ from these samples (names,
 * uids, times, cluster names) instead of ~4.5 KB of JSON. The samples only need to be close to the real objects:
 * whatever differs is stored literally, so a change in what the scheduler writes costs bytes, never correctness.
 * Once a store has used a sample it keeps it (values refer to it), so changing one here adds a new reference.
 */
import { encodeStored } from '../registry/stored-object.js';
import type { KubeObject } from '../registry/types.js';
import type { WantedReference } from '../storage/value-codec.js';
import {
  CLUSTER_ANNOTATION,
  LOGICAL_CLUSTER_FINALIZER,
  OWNER_ANNOTATION,
  PATH_ANNOTATION,
  PHASE_LABEL,
  ROOT_SHARD,
  ROOT_SHARD_HASH,
  SHARD_ANNOTATION,
  SHARD_HASH_ANNOTATION,
  TYPE_ANNOTATION,
  APIS_ANNOTATION,
  TENANCY_GROUP,
} from '../machinery/kcp-names.js';

const uid = '00000000-0000-0000-0000-000000000000';
const time = '2000-01-01T00:00:00Z';
const cluster = '0000000000000000';
const owner = `{"username":"kcp-admin","uid":"${uid}","groups":["system:kcp:admin","system:authenticated"]}`;
/** Once Ready, kcp keeps only the username in the owner annotation. */
const readyOwner = '{"username":"kcp-admin"}';
const url = 'https://127.0.0.1:6443/clusters/';
const fields = (apiVersion: string, fieldsV1: object, manager = 'kcpt', subresource?: string) => ({
  apiVersion,
  fieldsType: 'FieldsV1',
  fieldsV1,
  manager,
  operation: 'Update',
  ...(subresource ? { subresource } : {}),
  time,
});

const WS_API = 'tenancy.kcp.io/v1alpha1';
const created = fields(WS_API, { 'f:spec': {} }, 'kubectl-create');

const schedulingWorkspace: KubeObject = {
  apiVersion: WS_API,
  kind: 'Workspace',
  metadata: {
    annotations: { [OWNER_ANNOTATION]: owner, 'kcp.io/cluster': 'root' },
    creationTimestamp: time,
    generation: 1,
    labels: { [PHASE_LABEL]: 'Scheduling' },
    managedFields: [created],
    name: 'workspace',
    uid,
  },
  spec: { type: { name: 'organization', path: 'root' } },
  status: { phase: 'Scheduling' },
};

const readyWorkspace: KubeObject = {
  apiVersion: WS_API,
  kind: 'Workspace',
  metadata: {
    annotations: {
      [SHARD_ANNOTATION]: ROOT_SHARD,
      [OWNER_ANNOTATION]: readyOwner,
      [CLUSTER_ANNOTATION]: cluster,
      [SHARD_HASH_ANNOTATION]: ROOT_SHARD_HASH,
      'kcp.io/cluster': cluster,
    },
    creationTimestamp: time,
    finalizers: [LOGICAL_CLUSTER_FINALIZER],
    generation: 2,
    labels: { [PHASE_LABEL]: 'Ready' },
    managedFields: [
      fields(WS_API, {
        'f:metadata': {
          'f:annotations': {
            'f:core.kcp.io/shard': {},
            'f:experimental.tenancy.kcp.io/owner': {},
            'f:internal.tenancy.kcp.io/cluster': {},
            'f:internal.tenancy.kcp.io/shard': {},
          },
          'f:finalizers': { '.': {}, 'v:"core.kcp.io/logicalcluster"': {} },
          'f:labels': { 'f:tenancy.kcp.io/phase': {} },
        },
        'f:spec': { 'f:URL': {}, 'f:cluster': {} },
      }),
      created,
    ],
    name: 'workspace',
    uid,
  },
  spec: { URL: `${url}root:workspace`, cluster, type: { name: 'universal', path: 'root' } },
  status: {
    conditions: [
      { lastTransitionTime: time, status: 'True', type: 'WorkspaceScheduled' },
      { lastTransitionTime: time, status: 'True', type: 'WorkspaceInitialized' },
    ],
    phase: 'Ready',
  },
};

const LC_API = 'core.kcp.io/v1alpha1';
const logicalCluster: KubeObject = {
  apiVersion: LC_API,
  kind: 'LogicalCluster',
  metadata: {
    annotations: {
      [SHARD_ANNOTATION]: ROOT_SHARD,
      [OWNER_ANNOTATION]: readyOwner,
      [APIS_ANNOTATION]: TENANCY_GROUP,
      [TYPE_ANNOTATION]: 'root:universal',
      'kcp.io/cluster': cluster,
      [PATH_ANNOTATION]: 'root:workspace',
    },
    creationTimestamp: time,
    finalizers: ['core.kcp.io/logicalcluster-deletion'],
    generation: 1,
    labels: { [PHASE_LABEL]: 'Ready' },
    managedFields: [
      fields(LC_API, {
        'f:metadata': {
          'f:annotations': {
            '.': {},
            'f:core.kcp.io/shard': {},
            'f:experimental.tenancy.kcp.io/owner': {},
            'f:internal.kcpt.dev/apis': {},
            'f:internal.tenancy.kcp.io/type': {},
            'f:kcp.io/path': {},
          },
          'f:finalizers': { '.': {}, 'v:"core.kcp.io/logicalcluster-deletion"': {} },
          'f:labels': { '.': {}, 'f:tenancy.kcp.io/phase': {} },
        },
        'f:spec': {
          '.': {},
          'f:createdBy': { '.': {}, 'f:groups': {}, 'f:uid': {}, 'f:username': {} },
          'f:directlyDeletable': {},
          'f:owner': { '.': {}, 'f:apiVersion': {}, 'f:cluster': {}, 'f:name': {}, 'f:resource': {}, 'f:uid': {} },
        },
      }),
    ],
    name: 'cluster',
    uid,
  },
  spec: {
    createdBy: { groups: ['system:kcp:admin', 'system:authenticated'], uid, username: 'kcp-admin' },
    directlyDeletable: false,
    owner: { apiVersion: WS_API, cluster, name: 'workspace', resource: 'workspaces', uid },
  },
  status: {
    URL: `${url}${cluster}`,
    conditions: [{ lastTransitionTime: time, status: 'True', type: 'WorkspaceInitialized' }],
    phase: 'Ready',
  },
};

const namespace: KubeObject = {
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: {
    annotations: { 'kcp.io/cluster': cluster },
    creationTimestamp: time,
    labels: { 'kubernetes.io/metadata.name': 'default' },
    managedFields: [fields('v1', { 'f:metadata': { 'f:labels': { '.': {}, 'f:kubernetes.io/metadata.name': {} } } })],
    name: 'default',
    uid,
  },
  spec: { finalizers: ['kubernetes'] },
  status: { phase: 'Active' },
};

/** Every namespace's `default` ServiceAccount (kube's serviceaccounts controller; kcpt creates it with the namespace). */
const serviceAccount: KubeObject = {
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: { annotations: { 'kcp.io/cluster': cluster }, creationTimestamp: time, name: 'default', namespace: 'default', uid },
};

const RBAC_API = 'rbac.authorization.k8s.io/v1';
const adminBinding: KubeObject = {
  apiVersion: RBAC_API,
  kind: 'ClusterRoleBinding',
  metadata: {
    annotations: { 'kcp.io/cluster': cluster },
    creationTimestamp: time,
    managedFields: [fields(RBAC_API, { 'f:roleRef': {}, 'f:subjects': {} })],
    name: 'workspace-admin',
    uid,
  },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
  subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'kcp-admin' }],
} as KubeObject;

/** The compression references for the objects every workspace has, by storage key prefix. */
export function workspaceStorageReferences(): WantedReference[] {
  return [
    { prefix: '/registry/tenancy.kcp.io/workspaces/', text: encodeStored(readyWorkspace) + encodeStored(schedulingWorkspace) },
    { prefix: '/registry/core.kcp.io/logicalclusters/', text: encodeStored(logicalCluster) },
    { prefix: '/registry/core/namespaces/', text: encodeStored(namespace) },
    { prefix: '/registry/core/serviceaccounts/', text: encodeStored(serviceAccount) },
    { prefix: '/registry/rbac.authorization.k8s.io/clusterrolebindings/', text: encodeStored(adminBinding) },
  ];
}
