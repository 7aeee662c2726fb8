/**
 * kcp's scoping of identities that belong to one logical cluster (service accounts, whose tokens carry the
 * cluster they were issued in): inside their own cluster they are themselves; anywhere else they are a *foreign
 * identity*, `system:anonymous` in `system:authenticated` plus `system:cluster:<origin>`, so a workspace can grant
 * another workspace's service accounts access by binding that group, and nothing granted to the account's name in
 * one workspace leaks into another. Users not tied to a cluster (admins, token-file users) are
 * the same everywhere.
 */

/** kcp's user-extra key naming the logical cluster an identity belongs to. */
export const CLUSTER_NAME_EXTRA = 'authentication.kcp.io/cluster-name';
export const ANONYMOUS_USER = 'system:anonymous';
export const AUTHENTICATED_GROUP = 'system:authenticated';

/** Who a request is made by, as the router and the reviews see it. */
export interface Identity {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** The group a foreign identity from `cluster` carries. */
export function clusterGroup(cluster: string): string {
  return `system:cluster:${cluster}`;
}

/**
 * The identity `user` has in `requestCluster` (undefined: the request names no single cluster, as with the `*`
 * wildcard, where a cluster-bound identity is never at home). Returns `user` itself when nothing changes.
 */
export function identityInCluster(user: Identity, requestCluster: string | undefined): Identity {
  const origins = user.extra?.[CLUSTER_NAME_EXTRA];
  if (!origins || origins.length === 0) return user;
  if (requestCluster !== undefined && origins.includes(requestCluster)) return user;
  const groups = user.groups.includes(AUTHENTICATED_GROUP) ? [AUTHENTICATED_GROUP] : ['system:unauthenticated'];
  return { username: ANONYMOUS_USER, groups: [...groups, ...origins.map(clusterGroup)] };
}

/** Whether `user` is foreign in `requestCluster` (tied to another cluster). */
export function isForeignIn(user: Pick<Identity, 'extra'>, requestCluster: string | undefined): boolean {
  const origins = user.extra?.[CLUSTER_NAME_EXTRA];
  return !!origins && origins.length > 0 && (requestCluster === undefined || !origins.includes(requestCluster));
}
