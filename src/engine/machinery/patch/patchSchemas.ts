/**
 * Strategic-merge metadata of the built-in kinds kcpt serves, transcribed from the k8s.io/api struct tags
 * (v1.32) and checked against kubectl's compiled-in structs by the fixtures in testdata/ (kubectl patch --local).
 * Lists not named here carry no patch strategy upstream and are replaced as a whole (rbac rules and subjects,
 * LimitRange limits, Service externalIPs/clusterIPs/ipFamilies, imagePullSecrets, Namespace spec.finalizers, …).
 */
import type { PatchSchema } from './schema.js';

/** Shared by every request and by the OpenAPI writer: nobody may modify it. */
function frozen<T extends object>(value: T): T {
  for (const v of Object.values(value)) if (typeof v === 'object' && v !== null) frozen(v);
  return Object.freeze(value);
}

/** metadata: ownerReferences merge by uid, finalizers are a merged set; managedFields has no tag (atomic). */
export const objectMetaPatchSchema: PatchSchema = frozen({
  fields: {
    ownerReferences: { patchStrategy: 'merge', patchMergeKey: 'uid' },
    finalizers: { patchStrategy: 'merge' },
  },
});

/** Conditions of the core kinds that have them (Namespace, Service) merge by type. */
const conditions: PatchSchema = { patchStrategy: 'merge', patchMergeKey: 'type' };

function kind(fields: Record<string, PatchSchema> = {}): PatchSchema {
  return { fields: { metadata: objectMetaPatchSchema, ...fields } };
}

/** Kinds whose only tagged fields are in ObjectMeta, and the fallback for every other built-in kind. */
export const genericPatchSchema: PatchSchema = frozen(kind());

/**
 * Keyed by group-qualified kind as kube prints a GroupKind: `ConfigMap`, `Role.rbac.authorization.k8s.io`.
 * Every served version of a kind shares the entry (the tags are identical across versions of these kinds).
 */
export const builtinPatchSchemas: Readonly<Record<string, PatchSchema>> = frozen({
  Namespace: kind({ status: { fields: { conditions } } }),
  ConfigMap: genericPatchSchema,
  Secret: genericPatchSchema,
  ServiceAccount: kind({ secrets: { patchStrategy: 'merge', patchMergeKey: 'name' } }),
  Event: genericPatchSchema,
  LimitRange: genericPatchSchema,
  ResourceQuota: genericPatchSchema,
  Service: kind({
    // Upstream merges ports by `port` alone (not port+protocol): 53/TCP and 53/UDP collide, as in kube.
    spec: { fields: { ports: { patchStrategy: 'merge', patchMergeKey: 'port' } } },
    status: { fields: { conditions } },
  }),
  'Event.events.k8s.io': genericPatchSchema,
  'Lease.coordination.k8s.io': genericPatchSchema,
  'Role.rbac.authorization.k8s.io': genericPatchSchema,
  'ClusterRole.rbac.authorization.k8s.io': genericPatchSchema,
  'RoleBinding.rbac.authorization.k8s.io': genericPatchSchema,
  'ClusterRoleBinding.rbac.authorization.k8s.io': genericPatchSchema,
  'ValidatingWebhookConfiguration.admissionregistration.k8s.io': kind({
    webhooks: { patchStrategy: 'merge', patchMergeKey: 'name' },
  }),
  'MutatingWebhookConfiguration.admissionregistration.k8s.io': kind({
    webhooks: { patchStrategy: 'merge', patchMergeKey: 'name' },
  }),
});

/** The strategic-merge schema for a built-in kind; unknown kinds get ObjectMeta knowledge only. */
export function patchSchemaFor(group: string, kind: string): PatchSchema {
  const key = group ? `${kind}.${group}` : kind;
  const known = Object.prototype.hasOwnProperty.call(builtinPatchSchemas, key);
  return known ? builtinPatchSchemas[key]! : genericPatchSchema;
}
