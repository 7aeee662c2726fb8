/**
 * kcp's core.kcp.io/v1alpha1 LogicalCluster: the per-workspace singleton named `cluster`. kcp serves it from a
 * system CRD, so it gets no strategic-merge markers (custom resources refuse strategic merge patch).
 */
import {
  TIME,
  addLists,
  bool,
  field,
  kindSchema,
  listOf,
  str,
  stringList,
  struct,
  withRequired,
  type Schema,
} from '../../machinery/openapi-schemas/helpers.js';

const KCP = 'io.kcp.core.v1alpha1';
export const KCP_CONDITION = 'io.kcp.conditions.v1alpha1.Condition';

export const kcpSchemas: Record<string, Schema> = {
  [`${KCP}.LogicalCluster`]: kindSchema({
    description:
      'A LogicalCluster describes the workspace it lives in: its owner, initializers, terminators and lifecycle ' +
      'phase. Every logical cluster has exactly one, named "cluster".',
    gvk: { group: 'core.kcp.io', version: 'v1alpha1', kind: 'LogicalCluster' },
    properties: {
      spec: field(`${KCP}.LogicalClusterSpec`, 'Desired state of the logical cluster.', { withDefault: true }),
      status: field(`${KCP}.LogicalClusterStatus`, 'Observed state of the logical cluster.', { withDefault: true }),
    },
  }),
  [`${KCP}.LogicalClusterSpec`]: struct('Desired state of a logical cluster.', {
    createdBy: field(`${KCP}.LogicalClusterCreatedBy`, 'The user who created the workspace.'),
    directlyDeletable: bool(
      'If true, the LogicalCluster may be deleted directly instead of only through its owning Workspace.',
    ),
    initializers: stringList('Initializers that must finish before the cluster becomes Ready.'),
    owner: field(`${KCP}.LogicalClusterOwner`, 'The object (normally a Workspace) that owns this logical cluster.'),
    terminators: stringList('Terminators that must finish before the cluster is deleted.'),
  }),
  [`${KCP}.LogicalClusterOwner`]: withRequired(
    struct('Reference to the owner of a logical cluster, possibly in another logical cluster.', {
      apiVersion: str('API version of the owner.', { default: '' }),
      cluster: str('Logical cluster name the owner lives in.', { default: '' }),
      name: str('Name of the owner.', { default: '' }),
      namespace: str('Namespace of the owner, if it is namespaced.'),
      resource: str('Resource (plural) of the owner, e.g. workspaces.', { default: '' }),
      uid: str('UID of the owner.', { default: '' }),
    }),
    ['apiVersion', 'resource', 'name', 'cluster', 'uid'],
  ),
  [`${KCP}.LogicalClusterCreatedBy`]: struct('The identity that created a workspace.', {
    extra: {
      description: 'Additional attributes from the authenticator.',
      type: 'object',
      additionalProperties: { type: 'array', items: { type: 'string' } },
    },
    groups: stringList('Groups of the creator.'),
    uid: str('UID of the creator.'),
    username: str('Name of the creator.'),
  }),
  [`${KCP}.LogicalClusterStatus`]: struct('Observed state of a logical cluster.', {
    URL: str('Base URL of this logical cluster: <shard external URL>/clusters/<cluster name>.'),
    conditions: listOf(KCP_CONDITION, 'Current conditions of the logical cluster.'),
    initializers: stringList('Initializers still to run; the cluster is Ready when this is empty.'),
    phase: str('Lifecycle phase: Scheduling, Initializing, Ready, Unavailable, Inactive, Terminating or Deleting.'),
    terminators: stringList('Terminators still to run before deletion completes.'),
  }),
  [KCP_CONDITION]: withRequired(
    struct("One aspect of a kcp object's state.", {
      lastTransitionTime: field(TIME, 'When the status last changed.', { withDefault: true }),
      message: str('Human-readable details.'),
      reason: str('Machine-readable CamelCase reason for the last transition.'),
      severity: str('How bad a False status is: Error, Warning, Info, or empty when status is True.'),
      status: str('True, False or Unknown.', { default: '' }),
      type: str('Condition type in CamelCase, such as Ready.', { default: '' }),
    }),
    ['type', 'status'],
  ),
};

addLists(kcpSchemas, KCP, 'core.kcp.io', 'v1alpha1', ['LogicalCluster']);
