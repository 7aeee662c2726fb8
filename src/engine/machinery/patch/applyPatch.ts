/**
 * PATCH request bodies: which Content-Types a resource accepts, and applying the three non-apply types.
 * Server-side apply (`application/apply-patch+yaml`) is accepted by the same endpoint but handled by the
 * server-side apply module; it appears in the lists below because kube lists it in its 415 message.
 */
import { jsonDuplicateKeys } from '../json-duplicate-keys.js';
import { nestingTooDeep } from '../nesting-depth.js';
import { internalError, unsupportedMediaType } from '../status.js';
import { patchDecodeError, withStatusErrors } from './errors.js';
import type { JsonObject } from './json.js';
import { applyJsonPatch } from './jsonPatch.js';
import { applyMergePatch } from './mergePatch.js';
import { genericPatchSchema } from './patchSchemas.js';
import type { PatchSchema } from './schema.js';
import { applyStrategicMergePatch } from './strategic.js';

export const JSON_PATCH = 'application/json-patch+json';
export const MERGE_PATCH = 'application/merge-patch+json';
export const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';
export const APPLY_PATCH = 'application/apply-patch+yaml';

/**
 * Patch types of built-in kinds, in kube's order (k8s.io/apiserver endpoints/installer.go); the 415 message lists
 * them. Frozen: this is shared, read-only data.
 */
export const supportedPatchTypes = Object.freeze([
  JSON_PATCH,
  MERGE_PATCH,
  STRATEGIC_MERGE_PATCH,
  APPLY_PATCH,
]) as string[];
/** Custom resources: no strategic merge patch (apiextensions-apiserver has no Go structs to take tags from). */
export const customResourcePatchTypes = Object.freeze([JSON_PATCH, MERGE_PATCH, APPLY_PATCH]) as string[];

export function patchTypesFor(isCustomResource: boolean): string[] {
  return isCustomResource ? customResourcePatchTypes : supportedPatchTypes;
}

/** The media type of a Content-Type header: parameters (`; charset=utf-8`) dropped, lower-cased. */
export function patchMediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

export interface PatchContext {
  isCustomResource: boolean;
  /** The kind's strategic-merge keys (ResourceType.patchSchema); ObjectMeta's only when absent. */
  patchSchema?: PatchSchema;
  /**
   * When given (fieldValidation Strict or Warn), receives the strict-decoding problems of the patch body itself, as
   * kube's patch handler decodes it strictly before applying it: each repeated key (`duplicate field "spec"`), and
   * for a JSON patch an operation's fields other than op, path, from and value, prefixed `json patch`.
   */
  strictProblems?: string[];
}

/** The fields of a JSON patch operation (kube's jsonPatchOp). */
const JSON_PATCH_OP_FIELDS = new Set(['op', 'path', 'from', 'value']);

/**
 * Applies a JSON, merge or strategic merge patch body to `obj` and returns the patched copy.
 * Throws 415 for a type this resource does not accept, 400 for a body that is not valid JSON of the right shape,
 * 422 when the patch cannot be applied. Only StatusErrors are thrown.
 */
export function applyPatch(
  contentType: string | undefined,
  obj: JsonObject,
  body: Buffer | Uint8Array | string,
  ctx: PatchContext,
): JsonObject {
  const type = patchMediaType(contentType);
  const accepted = patchTypesFor(ctx.isCustomResource);
  if (!accepted.includes(type)) throw unsupportedMediaType(type, [...accepted]);
  if (type === APPLY_PATCH) {
    throw internalError(`${APPLY_PATCH} is server-side apply and must not be routed to applyPatch`);
  }
  const patch = parsePatchBody(body);
  if (ctx.strictProblems) ctx.strictProblems.push(...patchBodyProblems(type, body, patch));
  switch (type) {
    case JSON_PATCH:
      return applyJsonPatch(obj, patch);
    case MERGE_PATCH:
      return applyMergePatch(obj, patch);
    default:
      return applyStrategicMergePatch(obj, patch, ctx.patchSchema ?? genericPatchSchema);
  }
}

/**
 * kube's UnmarshalStrict of the patch body: into a map for a merge or strategic merge patch (repeats only), into
 * []jsonPatchOp for a JSON patch (repeats and unknown fields, in the order of the text, each `json patch …`).
 */
function patchBodyProblems(type: string, body: Buffer | Uint8Array | string, patch: unknown): string[] {
  const text = typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  const repeats = jsonDuplicateKeys(text, patch);
  const found = (repeats?.paths ?? []).map((path, i) => ({ at: repeats!.repeatedAt[i]!, text: `duplicate field "${path}"` }));
  if (type === JSON_PATCH && Array.isArray(patch)) {
    patch.forEach((op, i) => {
      if (op === null || typeof op !== 'object' || Array.isArray(op)) return;
      for (const key of Object.keys(op)) {
        if (JSON_PATCH_OP_FIELDS.has(key)) continue;
        found.push({ at: repeats?.offsets.get(`[${i}].${key}`) ?? i, text: `unknown field "[${i}].${key}"` });
      }
    });
  }
  const sorted = found.sort((a, b) => a.at - b.at).map((f) => f.text);
  return type === JSON_PATCH ? sorted.map((p) => `json patch ${p}`) : sorted;
}

/** Parses a PATCH body as JSON, with a 400 that says what is wrong and where. */
export function parsePatchBody(body: Buffer | Uint8Array | string): unknown {
  return withStatusErrors(() => {
    const text =
      typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
    if (text.trim() === '') throw patchDecodeError('the request body is empty; send the patch as JSON');
    let patch: unknown;
    try {
      patch = JSON.parse(text) as unknown;
    } catch (err) {
      throw patchDecodeError(`the body is not valid JSON: ${(err as Error).message}`);
    }
    const tooDeep = nestingTooDeep(patch);
    if (tooDeep) throw patchDecodeError(`the body is not valid JSON: ${tooDeep}`);
    return patch;
  });
}
