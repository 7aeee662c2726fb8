/** PATCH semantics: JSON patch, JSON merge patch, strategic merge patch and the patch schemas of built-in kinds. */
export {
  applyPatch,
  APPLY_PATCH,
  customResourcePatchTypes,
  JSON_PATCH,
  MERGE_PATCH,
  parsePatchBody,
  patchMediaType,
  patchTypesFor,
  STRATEGIC_MERGE_PATCH,
  supportedPatchTypes,
  type PatchContext,
} from './applyPatch.js';
export { KUBE_PATCH_REJECTED, MAX_JSON_PATCH_COPY_BYTES, MAX_JSON_PATCH_OPERATIONS } from './errors.js';
export type { JsonObject } from './json.js';
export { applyJsonPatch } from './jsonPatch.js';
export { applyMergePatch } from './mergePatch.js';
export { conditionsByType, genericPatchSchema, kindPatchSchema, objectMetaPatchSchema } from './patchSchemas.js';
export { listPatchExtensions, type PatchExtension, type PatchSchema, type PatchStrategy } from './schema.js';
export { applyStrategicMergePatch } from './strategic.js';
