/**
 * Emptying one resource's storage in one logical cluster, as the CRD and APIBinding finalizers do before they let
 * their object go: every object is deleted through the generic store (finalizers, GC and watch events as for a
 * client's DELETE), and what is still held back is counted so the caller can come back later.
 */
import { StatusError } from '../machinery/status.js';
import type { GenericStore } from '../registry/generic-store.js';
import { keyNamespaceAndName } from '../registry/stored-object.js';
import type { ResourceType } from '../registry/types.js';
import type { Store } from '../storage/store.js';

/** Deletes the objects stored under `prefix` (one cluster's range of `rt`); returns how many are not gone yet. */
export function deleteStoredObjects(store: Store, generic: GenericStore, rt: ResourceType, cluster: string, prefix: string): number {
  let remaining = 0;
  for (const item of store.list(prefix).items) {
    // Named by its key and handed the listed row: delete() parses it, once.
    const { namespace, name } = keyNamespaceAndName(rt, item.key);
    try {
      if (!generic.delete({ rt, cluster, namespace }, name, { propagationPolicy: 'Background', current: { row: item } }).removed) remaining++;
    } catch (err) {
      // Gone in between (a concurrent DELETE): nothing left to wait for.
      if (!(err instanceof StatusError && err.code === 404)) throw err;
    }
  }
  return remaining;
}
