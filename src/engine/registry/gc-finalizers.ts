/**
 * Which garbage-collection finalizers a DELETE leaves on an object (k8s.io/apiserver's
 * deletionFinalizersForGarbageCollection). `orphan` asks the collector to strip the object's uid from its
 * dependents' ownerReferences first; `foregroundDeletion` asks it to delete the dependents first. Only a store with
 * a running collector applies these: nothing else would ever remove them.
 */
export const ORPHAN_FINALIZER = 'orphan';
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';

export interface PropagationOptions {
  propagationPolicy?: string;
  /** Legacy DeleteOptions field; the endpoint refuses it together with propagationPolicy. */
  orphanDependents?: boolean;
}

/**
 * Priority, highest first: the request's orphanDependents, its propagationPolicy, then a GC finalizer the object
 * already carries (set by a user or by an earlier DELETE). Without any of them dependents are deleted in the
 * background.
 */
function shouldOrphan(finalizers: readonly string[], opts: PropagationOptions): boolean {
  if (opts.orphanDependents !== undefined) return opts.orphanDependents;
  if (opts.propagationPolicy === 'Orphan') return true;
  if (opts.propagationPolicy === 'Background' || opts.propagationPolicy === 'Foreground') return false;
  return firstGcFinalizer(finalizers) === ORPHAN_FINALIZER;
}

function shouldDeleteInForeground(finalizers: readonly string[], opts: PropagationOptions): boolean {
  if (opts.orphanDependents !== undefined) return false;
  if (opts.propagationPolicy === 'Foreground') return true;
  if (opts.propagationPolicy === 'Background' || opts.propagationPolicy === 'Orphan') return false;
  return firstGcFinalizer(finalizers) === FOREGROUND_FINALIZER;
}

function firstGcFinalizer(finalizers: readonly string[]): string | undefined {
  return finalizers.find((f) => f === ORPHAN_FINALIZER || f === FOREGROUND_FINALIZER);
}

/**
 * The finalizer list a DELETE with these options leaves, or undefined when it stays as it is (compared as sets,
 * like kube). Other finalizers keep their order; the GC finalizer, if any, goes last.
 */
export function finalizersAfterDelete(finalizers: readonly string[], opts: PropagationOptions): string[] | undefined {
  const next = finalizers.filter((f) => f !== ORPHAN_FINALIZER && f !== FOREGROUND_FINALIZER);
  if (shouldOrphan(finalizers, opts)) next.push(ORPHAN_FINALIZER);
  if (shouldDeleteInForeground(finalizers, opts)) next.push(FOREGROUND_FINALIZER);
  const before = new Set(finalizers);
  const after = new Set(next);
  if (before.size === after.size && [...after].every((f) => before.has(f))) return undefined;
  return next;
}
