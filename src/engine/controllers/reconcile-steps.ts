/**
 * A reconcile made of steps, run in order the way kcp's reconcilers run their `[]reconciler{…}`: each step looks at
 * the shared state, does its part and says whether the next one runs. A step that has nothing to do returns
 * `'continue'`; one that handled the key returns `'stop'`, or `{ requeueAfterMs }` to have the key looked at again.
 *
 * The runner stays synchronous while the steps are, so a controller draining in a storage group (Store.group)
 * still commits its reconciles' writes together; the first step that returns a promise makes the rest asynchronous.
 */
import type { ReconcileResult } from './work-queue.js';

export type StepResult = 'continue' | 'stop' | { requeueAfterMs: number };

export type ReconcileStep<S> = (state: S) => StepResult | Promise<StepResult>;
export type SyncReconcileStep<S> = (state: S) => StepResult;

export function runSteps<S>(steps: readonly SyncReconcileStep<S>[], state: S): ReconcileResult | undefined;
export function runSteps<S>(steps: readonly ReconcileStep<S>[], state: S): ReconcileResult | undefined | Promise<ReconcileResult | undefined>;
export function runSteps<S>(steps: readonly ReconcileStep<S>[], state: S): ReconcileResult | undefined | Promise<ReconcileResult | undefined> {
  return runFrom(steps, state, 0);
}

function runFrom<S>(steps: readonly ReconcileStep<S>[], state: S, from: number): ReconcileResult | undefined | Promise<ReconcileResult | undefined> {
  for (let i = from; i < steps.length; i++) {
    const result = steps[i]!(state);
    if (result instanceof Promise) return result.then((settled) => (settled === 'continue' ? runFrom(steps, state, i + 1) : outcome(settled)));
    if (result !== 'continue') return outcome(result);
  }
  return undefined;
}

function outcome(result: 'stop' | { requeueAfterMs: number }): ReconcileResult | undefined {
  return result === 'stop' ? undefined : result;
}
