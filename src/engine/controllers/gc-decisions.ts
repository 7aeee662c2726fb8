/**
 * What the garbage collector does with one dependent, given the state of each owner it references (kube's
 * attemptToDeleteItem):
 * - solid: the owner exists and is not waiting for its dependents (owners of unknown kinds count as solid: we
 *   never delete on a guess);
 * - dangling: the owner is gone, or the object at the owner's name has another uid;
 * - waiting: the owner is being deleted in the foreground.
 */
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER, type PropagationPolicy } from '../registry/gc-finalizers.js';

export type OwnerState = 'solid' | 'dangling' | 'waiting';

export interface ClassifiedReference {
  uid: string;
  state: OwnerState;
}

export type DependentAction =
  | { action: 'keep' }
  /** Some owner still holds it: only the references to gone or waiting owners go (a waiting owner must not wait on it). */
  | { action: 'dropReferences'; uids: string[] }
  /**
   * Nothing holds it. `unblockFirst`: its owner is waiting on it while one of its own dependents is deleting in the
   * foreground, a possible cycle; kube makes its references non-blocking before deleting it.
   */
  | { action: 'delete'; policy: PropagationPolicy; unblockFirst: boolean };

export interface DependentFacts {
  finalizers: readonly string[];
  /** Asked only when an owner is waiting (each answer costs a read). */
  hasDependents(): boolean;
  hasDependentDeletingInForeground(): boolean;
}

export function decideForDependent(refs: readonly ClassifiedReference[], facts: DependentFacts): DependentAction {
  if (refs.length === 0) return { action: 'keep' };
  const solid = refs.filter((r) => r.state === 'solid');
  const notSolid = refs.filter((r) => r.state !== 'solid');
  if (solid.length > 0) {
    return notSolid.length === 0 ? { action: 'keep' } : { action: 'dropReferences', uids: [...new Set(notSolid.map((r) => r.uid))] };
  }
  const waiting = refs.some((r) => r.state === 'waiting');
  if (waiting && facts.hasDependents()) {
    return { action: 'delete', policy: 'Foreground', unblockFirst: facts.hasDependentDeletingInForeground() };
  }
  // Honour a GC finalizer the dependent already carries; Background otherwise.
  const policy: PropagationPolicy = facts.finalizers.includes(ORPHAN_FINALIZER)
    ? 'Orphan'
    : facts.finalizers.includes(FOREGROUND_FINALIZER)
      ? 'Foreground'
      : 'Background';
  return { action: 'delete', policy, unblockFirst: false };
}
