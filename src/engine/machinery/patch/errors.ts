/**
 * The Status errors the patch functions throw, with kube-apiserver's codes and wording
 * (k8s.io/apiserver/pkg/endpoints/handlers/patch.go).
 */
import { badRequest, internalError, requestEntityTooLarge, StatusError } from '../status.js';

/**
 * kube answers a patch that decodes but cannot be applied with NewGenericServerResponse(422, …), whose message is
 * this fixed sentence: the library's explanation is dropped. We keep the sentence as the message prefix (clients
 * that match kube's text still match), append the explanation, and also put it in a `patch` cause, which is what
 * kubectl prints for a 422 Invalid without kind/name: `The request is invalid: patch: <explanation>`.
 */
export const KUBE_PATCH_REJECTED = 'the server rejected our request due to an error in our request';

/** 422 Invalid: the patch is well-formed but does not apply to this object. */
export function patchNotApplicable(detail: string): StatusError {
  return new StatusError(422, 'Invalid', `${KUBE_PATCH_REJECTED}: ${detail}`, {
    causes: [{ reason: 'FieldValueInvalid', message: detail, field: 'patch' }],
  });
}

/** 400 BadRequest for a body that is not a patch of the declared type at all. */
export function patchDecodeError(detail: string): StatusError {
  return badRequest(`error decoding patch: ${detail}`);
}

/** 400 BadRequest with a message verbatim (strategic merge patch format errors use apimachinery's exact text). */
export function patchFormatError(message: string): StatusError {
  return badRequest(message);
}

export const MAX_JSON_PATCH_OPERATIONS = 10_000;

/**
 * kube-apiserver's JSONPatchMaxCopyBytes (3 MiB, twice etcd's request limit): the most a JSON patch's `copy`
 * operations may add to the document in all, measured as the JSON size of each copied value, as evanphx/json-patch's
 * AccumulatedCopySizeLimit counts it. Without it, a few dozen copies of a member into itself double the document
 * each time.
 */
export const MAX_JSON_PATCH_COPY_BYTES = 3 * 1024 * 1024;

export function copiesTooLarge(accumulated: number): StatusError {
  return patchNotApplicable(
    `Unable to complete the copy, the accumulated size increase of copy is ${accumulated}, exceeding the limit ${MAX_JSON_PATCH_COPY_BYTES}`,
  );
}

export function tooManyOperations(count: number): StatusError {
  const limit = MAX_JSON_PATCH_OPERATIONS;
  return requestEntityTooLarge(
    `Request entity too large: The allowed maximum operations in a JSON patch is ${limit}, got ${count}`,
  );
}

/**
 * Runs a patch function so that only StatusErrors escape: a document nested deeper than the stack allows is the
 * client's problem (400); anything else is our bug (500), never a crash of the request handler.
 */
export function withStatusErrors<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof StatusError) throw err;
    if (err instanceof RangeError && /call stack/i.test(err.message)) {
      throw patchDecodeError('the document is nested too deeply');
    }
    throw internalError(`applying patch: ${err instanceof Error ? err.message : String(err)}`);
  }
}
