/**
 * apimachinery messages shared by every group: meta/v1 (ObjectMeta, Time, DeleteOptions, selectors),
 * runtime (the Unknown envelope, RawExtension), resource (Quantity) and intstr (IntOrString).
 * Field numbers: k8s.io/apimachinery v0.32 generated.proto; JSON names as keys (see ../schema.ts).
 */
import type { PackageDefs } from '../schema.js';

export const metaV1: PackageDefs = {
  pkg: 'meta.v1',
  apiVersion: 'meta.k8s.io/v1',
  // DeleteOptions is registered in every group-version; decode.ts accepts it under any apiVersion.
  kinds: ['DeleteOptions'],
  messages: {
    ObjectMeta: {
      name: '1 string',
      generateName: '2 string',
      namespace: '3 string',
      selfLink: '4 string',
      uid: '5 string',
      resourceVersion: '6 string',
      generation: '7 int64',
      creationTimestamp: '8 Time',
      deletionTimestamp: '9 ?Time',
      deletionGracePeriodSeconds: '10 ?int64',
      labels: '11 {}string',
      annotations: '12 {}string',
      ownerReferences: '13 []OwnerReference',
      finalizers: '14 []string',
      managedFields: '17 []ManagedFieldsEntry',
    },
    ManagedFieldsEntry: {
      manager: '1 string',
      operation: '2 string',
      apiVersion: '3 string',
      time: '4 ?Time',
      fieldsType: '6 string',
      fieldsV1: '7 ?FieldsV1',
      subresource: '8 string',
    },
    // Raw JSON bytes; its JSON form is the object they hold.
    FieldsV1: { raw: '1 bytes' },
    ListMeta: {
      selfLink: '1 string',
      resourceVersion: '2 string',
      continue: '3 string',
      remainingItemCount: '4 ?int64',
      shardInfo: '5 ?ShardInfo',
    },
    ShardInfo: { selector: '1 string' },
    // Answers only: errors and deletions (Status, apiVersion `v1` in every group), and the `as=` conversions.
    Status: {
      metadata: '1 ListMeta',
      status: '2 string',
      message: '3 string',
      reason: '4 string',
      details: '5 ?StatusDetails',
      code: '6 int32',
    },
    StatusDetails: {
      name: '1 string',
      group: '2 string',
      kind: '3 string',
      uid: '6 string',
      causes: '4 []StatusCause',
      retryAfterSeconds: '5 int32',
    },
    StatusCause: { reason: '1 string', message: '2 string', field: '3 string' },
    PartialObjectMetadata: { metadata: '1 ObjectMeta' },
    PartialObjectMetadataList: { metadata: '1 ListMeta', items: '2 []PartialObjectMetadata' },
    OwnerReference: {
      apiVersion: '5 string',
      kind: '1 string',
      name: '3 string',
      uid: '4 string',
      controller: '6 ?bool',
      blockOwnerDeletion: '7 ?bool',
    },
    // Both are google.protobuf.Timestamp-shaped; the converter formats them (Time: seconds only, MicroTime: µs).
    Time: { seconds: '1 int64', nanos: '2 int32' },
    MicroTime: { seconds: '1 int64', nanos: '2 int32' },
    LabelSelector: { matchLabels: '1 {}string', matchExpressions: '2 []LabelSelectorRequirement' },
    LabelSelectorRequirement: { key: '1 string', operator: '2 string', values: '3 []string' },
    FieldSelectorRequirement: { key: '1 string', operator: '2 string', values: '3 []string' },
    Condition: {
      type: '1 string',
      status: '2 string',
      observedGeneration: '3 int64',
      lastTransitionTime: '4 Time',
      reason: '5 string',
      message: '6 string',
    },
    DeleteOptions: {
      gracePeriodSeconds: '1 ?int64',
      preconditions: '2 ?Preconditions',
      orphanDependents: '3 ?bool',
      propagationPolicy: '4 ?string',
      dryRun: '5 []string',
      ignoreStoreReadErrorWithClusterBreakingPotential: '6 ?bool',
    },
    Preconditions: { uid: '1 ?string', resourceVersion: '2 ?string' },
  },
};

export const runtimePkg: PackageDefs = {
  pkg: 'runtime',
  messages: {
    // The envelope after the `k8s\0` magic. Its TypeMeta numbers apiVersion 1 and kind 2 (meta/v1's is reversed).
    Unknown: { typeMeta: '1 TypeMeta', raw: '2 bytes', contentEncoding: '3 string', contentType: '4 string' },
    TypeMeta: { apiVersion: '1 string', kind: '2 string' },
    RawExtension: { raw: '1 bytes' },
  },
};

export const resourcePkg: PackageDefs = {
  pkg: 'resource',
  messages: { Quantity: { string: '1 string' } },
};

export const intstrPkg: PackageDefs = {
  pkg: 'intstr',
  // type: 0 = Int, 1 = String.
  messages: { IntOrString: { type: '1 int64', intVal: '2 int32', strVal: '3 string' } },
};
