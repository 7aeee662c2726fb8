/**
 * The custom resource types of the `*` wildcard. Logical clusters define their CRDs independently, so one
 * group/version/resource may be served by some clusters and not others, with other schemas, storage versions or
 * even another scope. A wildcard type therefore carries `servedIn`, which list and watch consult for every stored
 * object (by the cluster in its key), and a conversion that only sets the requested apiVersion, valid for every
 * cluster's objects because custom resources use conversion None. Schema, printer columns and field selectors are
 * those of the first cluster (by name) that serves the GVR.
 */
import type { ResourceType } from '../registry/types.js';
import { customResourceTypes } from './cr-types.js';
import { isEstablished, type CustomResourceDefinition } from './crd.js';

export interface ServedShape {
  namespaced: boolean;
}

export type ServedLookup = (cluster: string, group: string, version: string, resource: string) => ServedShape | undefined;

/** How an Established CRD serves `version` of `resource` (undefined when it does not). */
export function servedShape(crd: CustomResourceDefinition, version: string, resource: string): ServedShape | undefined {
  if (!isEstablished(crd)) return undefined;
  if ((crd.status?.acceptedNames?.plural ?? crd.spec.names.plural) !== resource) return undefined;
  if (!crd.spec.versions.some((v) => v.name === version && v.served)) return undefined;
  return { namespaced: crd.spec.scope === 'Namespaced' };
}

/**
 * One type per GVR found in `crds` (Established CRDs, in the order whose first definition of a GVR should win).
 * Only CRDs that bring a new GVR are turned into types, so identical CRDs in many clusters cost one schema compile.
 */
export function wildcardTypes(crds: readonly CustomResourceDefinition[], servedIn: ServedLookup): ResourceType[] {
  const byGvr = new Map<string, ResourceType>();
  const gvr = (group: string, version: string, resource: string) => `${group}/${version}/${resource}`;
  for (const crd of crds) {
    const plural = crd.status?.acceptedNames?.plural;
    if (!plural) continue;
    const fresh = crd.spec.versions.some((v) => v.served && !byGvr.has(gvr(crd.spec.group, v.name, plural)));
    if (!fresh) continue;
    for (const rt of customResourceTypes(crd)) {
      const key = gvr(rt.group, rt.version, rt.resource);
      if (!byGvr.has(key)) byGvr.set(key, asWildcardType(rt, servedIn));
    }
  }
  return [...byGvr.values()];
}

function asWildcardType(rt: ResourceType, servedIn: ServedLookup): ResourceType {
  const apiVersion = `${rt.group}/${rt.version}`;
  return {
    ...rt,
    // Each cluster stores in its own storage version; serving any of them as this version only sets apiVersion.
    convert: {
      toStorage: (obj) => obj,
      fromStorage: (obj) => (obj.apiVersion === apiVersion ? obj : { ...obj, apiVersion }),
    },
    servedIn: (cluster) => {
      const shape = servedIn(cluster, rt.group, rt.version, rt.resource);
      return shape && shape.namespaced === rt.namespaced ? shape : undefined;
    },
  };
}
