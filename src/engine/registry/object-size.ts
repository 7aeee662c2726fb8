/**
 * The largest object kcpt stores. etcd refuses a request over 1.5 MiB (its default --max-request-bytes) with
 * "etcdserver: request is too large", which kube-apiserver passes on as a 500 (kubernetes/kubernetes#112152); kcpt
 * keeps the same limit on the stored JSON of one object and answers it as what it is, a 413 a client can act on.
 */
import { requestEntityTooLarge, type StatusError } from '../machinery/status.js';

export const MAX_OBJECT_BYTES = 1.5 * 1024 * 1024;

/** The 413 for a stored value over the limit, or undefined. `value` is the object's stored JSON. */
export function objectTooLarge(value: string, what: string): StatusError | undefined {
  // UTF-16 length ≤ UTF-8 bytes ≤ 3 × length: count bytes only when the cheap bounds cannot decide.
  if (value.length * 3 <= MAX_OBJECT_BYTES) return undefined;
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes <= MAX_OBJECT_BYTES) return undefined;
  return requestEntityTooLarge(
    `Request entity too large: ${what} is ${bytes} bytes when stored, limit is ${MAX_OBJECT_BYTES} (etcdserver: request is too large)`,
  );
}
