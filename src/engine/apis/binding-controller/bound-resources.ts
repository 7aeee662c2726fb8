/**
 * What is bound: `status.boundResources` lists each schema's group/resource with the export's identity and every
 * storage version it was ever stored in (what the catalogs serve, bound-apis.ts); the binding turns Bound.
 */
import type { StepResult } from '../../controllers/reconcile-steps.js';
import type { BoundResource } from '../types.js';
import type { BindingState } from './state.js';

export function boundResourcesStep(state: BindingState): StepResult {
  const { status, schemas } = state;
  const identityHash = state.identityHash!;
  const before = new Map((status.boundResources ?? []).map((r) => [`${r.resource}.${r.group}`, r]));
  status.boundResources = schemas.map((schema): BoundResource => {
    const group = schema.spec.group;
    const resource = schema.spec.names.plural;
    const storage = schema.spec.versions.find((v) => v.storage)?.name;
    const versions = new Set(before.get(`${resource}.${group}`)?.storageVersions ?? []);
    if (storage) versions.add(storage);
    return { group, resource, schema: { name: schema.metadata!.name!, UID: schema.metadata!.uid!, identityHash }, storageVersions: [...versions] };
  });
  status.phase = 'Bound';
  state.set({ type: 'InitialBindingCompleted', status: 'True' });
  state.set({ type: 'BindingUpToDate', status: 'True' });
  return state.write();
}
