/**
 * Done when every default binding is bound (or reconciled): the condition turns True and, while initializing, the
 * initializer leaves the LogicalCluster's status so the workspace turns Ready. Until then the condition names the
 * bindings still waiting (each binding's change queues the cluster again).
 */
import type { StepResult } from '../../controllers/reconcile-steps.js';
import { decodeStored } from '../../registry/stored-object.js';
import { isBound, waitingOnBindings, type DefaultExportRef } from '../default-bindings.js';
import type { APIBinding } from '../types.js';
import type { DefaultAPIBindingsDeps } from './deps.js';
import type { DefaultBindingsState } from './state.js';

export function completionStep({ initializations, cluster, lc, refs, initializing, conditionType }: DefaultBindingsState): StepResult {
  const incomplete = incompleteBindings(initializations.deps, cluster, refs);
  if (incomplete.length > 0) {
    initializations.setConditions(cluster, lc, waitingOnBindings(conditionType, incomplete, initializing ? 'bound' : 'reconciled'));
    return 'stop';
  }
  initializations.setConditions(cluster, lc, { type: conditionType, status: 'True' }, initializing);
  return 'stop';
}

/** Default bindings not bound yet, named as kcp reports them. */
function incompleteBindings(deps: DefaultAPIBindingsDeps, cluster: string, refs: DefaultExportRef[]): string[] {
  const prefix = `/registry/${deps.apiBindings.storagePrefix}/${cluster}/`;
  const byExport = new Map<string, APIBinding>();
  for (const kv of deps.store.list(prefix).items) {
    const b = decodeStored(kv) as APIBinding;
    const exp = b.spec?.reference?.export;
    if (exp?.name) byExport.set(`${exp.path ?? ''}|${exp.name}`, b);
  }
  const out: string[] = [];
  for (const ref of refs) {
    const b = byExport.get(`${ref.path}|${ref.export}`);
    if (!b) out.push(`for APIExport ${ref.path}|${ref.export}`);
    else if (!isBound(b)) out.push(b.metadata!.name!);
  }
  return out;
}
