/**
 * JSON Merge Patch (RFC 7386, `application/merge-patch+json`): objects merge recursively, `null` deletes a member,
 * anything else (arrays included) replaces. kubectl label/annotate and every patch of a custom resource use it.
 */
import { patchDecodeError, withStatusErrors } from './errors.js';
import { cloneJson, getOwn, isJsonObject, jsonTypeOf, setOwn, type JsonObject } from './json.js';

/** Applies an RFC 7386 patch; returns a new object, `obj` and `patch` are never modified. */
export function applyMergePatch(obj: JsonObject, patch: unknown): JsonObject {
  return withStatusErrors(() => {
    if (!isJsonObject(patch)) {
      // RFC 7386 would replace the whole document, which can never be a valid object: reject it up front.
      throw patchDecodeError(`a JSON merge patch must be a JSON object, got ${jsonTypeOf(patch)}`);
    }
    return mergeInto(cloneJson(obj), patch);
  });
}

/** Merges `patch` into `target` in place; `target` is our own copy. */
function mergeInto(target: JsonObject, patch: JsonObject): JsonObject {
  for (const key of Object.keys(patch)) {
    const value = patch[key];
    if (value === null) {
      delete target[key];
    } else if (isJsonObject(value)) {
      const current = getOwn(target, key);
      setOwn(target, key, mergeInto(isJsonObject(current) ? current : {}, value));
    } else {
      // Arrays are taken verbatim (nulls inside them included), copied so the result never shares the patch.
      setOwn(target, key, cloneJson(value));
    }
  }
  return target;
}
