/**
 * Fills the parts of a built-in ResourceType that follow from its group/version/kind the way kube-apiserver derives
 * them: listKind, storage key prefix, storage version and the discovery storageVersionHash.
 */
import { createHash } from 'node:crypto';
import type { ResourceType } from '../registry/types.js';

/** kube's full verb set for a stored resource, in discovery order. */
export const allVerbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/**
 * k8s.io/apiserver/pkg/endpoints/discovery.StorageVersionHash: the first 8 bytes of sha256("<group>/<version>/<kind>")
 * of the storage version, base64. Same inputs as kube, so the values match a real cluster's discovery.
 */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}

export type BuiltinSpec = Omit<
  ResourceType,
  'listKind' | 'verbs' | 'storagePrefix' | 'storageVersion' | 'storageVersionHash'
> &
  Partial<Pick<ResourceType, 'listKind' | 'verbs' | 'storagePrefix' | 'storageVersion'>> & {
    /** Group/version/kind objects are stored as, when another resource's key space is shared (events.k8s.io). */
    storedAs?: { group: string; version: string; kind: string };
  };

export function defineBuiltin(spec: BuiltinSpec): ResourceType {
  const { storedAs, ...rest } = spec;
  const stored = storedAs ?? { group: spec.group, version: spec.storageVersion ?? spec.version, kind: spec.kind };
  return {
    ...rest,
    listKind: spec.listKind ?? `${spec.kind}List`,
    verbs: spec.verbs ?? allVerbs,
    storagePrefix: spec.storagePrefix ?? `${spec.group || 'core'}/${spec.resource}`,
    storageVersion: spec.storageVersion ?? stored.version,
    storageVersionHash: storageVersionHash(stored.group, stored.version, stored.kind),
  };
}
