/**
 * Strategic-merge keys of the core/v1 kinds that tag fields of their own (k8s.io/api v1.32 struct tags, checked
 * against kubectl by machinery/patch's fixtures); the other core kinds tag only ObjectMeta's.
 */
import { conditionsByType, kindPatchSchema } from '../../machinery/patch/patchSchemas.js';

export const namespacePatchSchema = kindPatchSchema({ status: { fields: { conditions: conditionsByType } } });

/** kube keeps only the names of an account's secrets, and merges them by name. */
export const serviceAccountPatchSchema = kindPatchSchema({ secrets: { patchStrategy: 'merge', patchMergeKey: 'name' } });
