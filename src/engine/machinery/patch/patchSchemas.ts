/**
 * The strategic-merge metadata every kind shares (ObjectMeta's) and the helpers a built-in group uses to state its
 * kinds' own (the k8s.io/api struct tags, v1.32): each built-in ResourceType carries its `patchSchema`, and a kind
 * without one gets ObjectMeta knowledge only. Lists not tagged upstream are replaced as a whole (rbac rules and
 * subjects, LimitRange limits, imagePullSecrets, Namespace spec.finalizers, …).
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
export const conditionsByType: PatchSchema = frozen({ patchStrategy: 'merge', patchMergeKey: 'type' });

/** A kind's schema: ObjectMeta's tags plus its own top-level `fields`, frozen. */
export function kindPatchSchema(fields: Record<string, PatchSchema> = {}): PatchSchema {
  return frozen({ fields: { metadata: objectMetaPatchSchema, ...fields } });
}

/** Kinds whose only tagged fields are in ObjectMeta: the fallback for every kind without its own. */
export const genericPatchSchema: PatchSchema = kindPatchSchema();

