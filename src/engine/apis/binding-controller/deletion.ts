/** A binding being deleted: its objects in the workspace go first, then its finalizer. */
import { deleteStoredObjects } from '../../controllers/delete-stored-objects.js';
import type { StepResult } from '../../controllers/reconcile-steps.js';
import { BINDING_FINALIZER, boundStoragePrefix } from '../names.js';
import type { BindingState } from './state.js';

export function deletionStep({ deps, cluster, binding }: BindingState): StepResult {
  if (!binding.metadata?.deletionTimestamp) return 'continue';
  const { store, generic, bound } = deps;
  const finalizers = binding.metadata?.finalizers ?? [];
  if (!finalizers.includes(BINDING_FINALIZER)) return 'stop';
  const name = binding.metadata!.name!;
  let remaining = 0;
  for (const r of binding.status?.boundResources ?? []) {
    const prefix = `/registry/${boundStoragePrefix(r.group, r.resource, r.schema.identityHash)}/${cluster}/`;
    const rt = bound.apisIn(cluster).find((a) => a.binding === name && a.group === r.group && a.resource === r.resource)?.types[0];
    if (!rt) {
      // The schema is gone, so the type cannot be served any more: remove the objects as they are.
      for (const item of store.list(prefix).items) store.commit([{ type: 'delete', key: item.key }]);
      continue;
    }
    remaining += deleteStoredObjects(store, generic, rt, cluster, prefix);
  }
  if (remaining > 0) return { requeueAfterMs: 1000 };
  generic.update({ rt: deps.bindingType, cluster, namespace: '' }, name, {
    ...binding,
    metadata: { ...binding.metadata, finalizers: finalizers.filter((f) => f !== BINDING_FINALIZER) },
  });
  return 'stop';
}
