/**
 * Naming conflicts: one owner per group/resource per workspace. A resource another binding or a local CRD already
 * serves there keeps the binding from binding (or from following its export's new schemas).
 */
import type { StepResult } from '../../controllers/reconcile-steps.js';
import { conditionOf } from '../conditions.js';
import type { APIResourceSchema } from '../types.js';
import type { BindingControllerDeps } from './deps.js';
import type { BindingState } from './state.js';

export function conflictsStep(state: BindingState): StepResult {
  const conflicts = conflictsOf(state.deps, state.cluster, state.binding.metadata!.name!, state.schemas);
  if (conflicts.length === 0) return 'continue';
  const message = `Unable to bind APIs: ${conflicts.join(', ')}`;
  if (conditionOf(state.status.conditions, 'InitialBindingCompleted')?.status !== 'True') {
    state.set({ type: 'InitialBindingCompleted', status: 'False', reason: 'NamingConflicts', message });
  }
  state.set({ type: 'BindingUpToDate', status: 'False', reason: 'NamingConflicts', message });
  return state.write();
}

/** What already serves one of the schemas' group/resources in the workspace (other bindings, local CRDs). */
function conflictsOf(deps: BindingControllerDeps, cluster: string, self: string, schemas: APIResourceSchema[]): string[] {
  const out: string[] = [];
  for (const schema of schemas) {
    const group = schema.spec.group;
    const resource = schema.spec.names.plural;
    const owner = deps.bound.owner(cluster, group, resource);
    if (owner && owner.binding !== self) {
      out.push(`naming conflict with APIBinding ${JSON.stringify(owner.binding)} which serves ${resource}.${group}`);
      continue;
    }
    const crd = deps.crdsOf(cluster).find((c) => c.spec?.group === group && (c.status?.acceptedNames?.plural ?? c.spec.names.plural) === resource);
    if (crd) out.push(`naming conflict with CustomResourceDefinition ${JSON.stringify(crd.metadata?.name)} which serves ${resource}.${group}`);
  }
  return out;
}
