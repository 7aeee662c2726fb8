/**
 * What the steps of one APIBinding's reconcile share: the binding, the status being built, how a condition is set
 * and how the status is written, and what the export step found for the steps after it.
 */
import { jsonEqual } from '../../machinery/canonical-json.js';
import type { StepResult } from '../../controllers/reconcile-steps.js';
import { nowTimestamp } from '../../registry/object-rules.js';
import { conditionOf, setCondition, type ConditionChange } from '../conditions.js';
import type { APIBinding, APIResourceSchema } from '../types.js';
import type { BindingControllerDeps } from './deps.js';

export type BindingStatus = NonNullable<APIBinding['status']>;

export interface BindingState {
  deps: BindingControllerDeps;
  cluster: string;
  /** The binding as last written (a step that writes its status replaces it). */
  binding: APIBinding;
  status: BindingStatus;
  /** Keeps the binding's key until an export (or schema, `schema:<name>`) of this name changes. */
  waitFor(what: string): void;
  /** Set by the export step. */
  exportCluster?: string;
  identityHash?: string;
  schemas: APIResourceSchema[];
  set(change: ConditionChange): void;
  /** Sets Ready from InitialBindingCompleted and writes the status; the step's result (stop, or look again later). */
  write(retryMs?: number): StepResult;
  /** Writes the status as it is now (when it changed) and keeps the written binding. */
  writeStatus(): void;
}

export function bindingState(deps: BindingControllerDeps, cluster: string, binding: APIBinding, waitFor: (what: string) => void): BindingState {
  const now = nowTimestamp();
  const status: BindingStatus = structuredClone(binding.status ?? {});
  status.phase ??= '';
  const state: BindingState = {
    deps,
    cluster,
    binding,
    status,
    waitFor,
    schemas: [],
    set: (change) => (status.conditions = setCondition(status.conditions, change, now)),
    writeStatus() {
      if (jsonEqual(status, state.binding.status ?? {})) return;
      const ctx = { rt: deps.bindingType, cluster, namespace: '' };
      state.binding = deps.generic.update(ctx, state.binding.metadata!.name!, { ...state.binding, status }, { subresource: 'status' }) as APIBinding;
    },
    write(retryMs) {
      const initial = conditionOf(status.conditions, 'InitialBindingCompleted');
      state.set({
        type: 'Ready',
        status: initial?.status ?? 'Unknown',
        reason: initial?.status === 'True' ? undefined : (initial?.reason ?? 'Binding'),
        message: initial?.status === 'True' ? undefined : initial?.message,
        severity: initial?.severity,
      });
      state.writeStatus();
      return retryMs ? { requeueAfterMs: retryMs } : 'stop';
    },
  };
  return state;
}
