/**
 * Which stored keys one list or watch reads. Inside one logical cluster the key prefix says it all. A wildcard
 * (`*`) read covers every cluster's keys under one prefix, so two things can only be decided per key: the
 * namespace (the prefix cannot name one without naming a cluster first), and, for resources that clusters define
 * for themselves, whether the key's cluster serves the requested type at all (ResourceType.servedIn).
 */
import { listPrefix } from './stored-object.js';
import type { ResourceType } from './types.js';

export interface ReadScope {
  prefix: string;
  /** Absent when every key under the prefix belongs. */
  admits?: (key: string) => boolean;
  /**
   * For a wildcard read of a type that names its clusters (ResourceType.servedClusters): the only key ranges under
   * `prefix` a list needs to read, sorted. Absent: the whole prefix.
   */
  ranges?: string[];
}

/**
 * `stable`: the answer for a cluster may be remembered for the life of this scope (one list); a watch outlives
 * CRD changes, so it asks every time.
 */
export function readScope(rt: ResourceType, cluster: string | undefined, namespace: string, stable: boolean): ReadScope {
  const prefix = listPrefix(rt, cluster, namespace);
  if (cluster !== undefined) return { prefix };
  const wantNamespace = rt.namespaced && namespace ? namespace : undefined;
  const servedIn = rt.servedIn;
  if (!wantNamespace && !servedIn) return { prefix };
  const ranges = rt.servedClusters ? clusterRanges(prefix, rt.servedClusters(), wantNamespace) : undefined;
  const remembered = new Map<string, boolean>();
  const clusterServes = (name: string): boolean => {
    if (!servedIn) return true;
    if (!stable) return servedIn(name) !== undefined;
    let answer = remembered.get(name);
    if (answer === undefined) remembered.set(name, (answer = servedIn(name) !== undefined));
    return answer;
  };
  return {
    prefix,
    ...(ranges ? { ranges } : {}),
    admits(key) {
      // <cluster>/<namespace>/<name> for namespaced objects, <cluster>/<name> for cluster-scoped ones.
      const parts = key.slice(prefix.length).split('/');
      if (wantNamespace !== undefined && (parts.length !== 3 || parts[1] !== wantNamespace)) return false;
      return clusterServes(parts[0]!);
    },
  };
}

/**
 * One key range per cluster (narrowed to the namespace when one is asked for), sorted as the store orders keys:
 * by the range text, not the cluster name (`a-b/` sorts before `a/`).
 */
function clusterRanges(prefix: string, clusters: Iterable<string>, namespace: string | undefined): string[] {
  const ranges = new Set<string>();
  for (const cluster of clusters) ranges.add(namespace === undefined ? `${prefix}${cluster}/` : `${prefix}${cluster}/${namespace}/`);
  return [...ranges].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
