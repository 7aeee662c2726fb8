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
/**
 * kcp's user-extra key confining an identity to logical clusters: each value is a `,`-separated list of
 * `cluster:<name>` alternatives, and every value must name the cluster. Set by the server only (an impersonated
 * identity is scoped to the cluster it was granted in); no client may assert it.
 */
export const SCOPES_EXTRA = 'authentication.kcp.io/scopes';
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
  const extra = user.extra;
  if (extra === undefined) return user;
  const origins = extra[CLUSTER_NAME_EXTRA];
  if (origins && origins.length > 0 && (requestCluster === undefined || !origins.includes(requestCluster))) {
    return { username: ANONYMOUS_USER, groups: [...anonymousGroups(user), ...origins.map(clusterGroup)] };
  }
  // kcp's EffectiveUsers: outside its scope an identity keeps nothing but being authenticated.
  if (!isInScope(user, requestCluster)) return { username: ANONYMOUS_USER, groups: anonymousGroups(user) };
  return user;
}

function anonymousGroups(user: Identity): string[] {
  return user.groups.includes(AUTHENTICATED_GROUP) ? [AUTHENTICATED_GROUP] : ['system:unauthenticated'];
}

/** kcp's IsInScope: every scopes value names `cluster` among its alternatives (no scopes: everywhere). */
export function isInScope(user: Pick<Identity, 'extra'>, cluster: string | undefined): boolean {
  const scopes = user.extra?.[SCOPES_EXTRA];
  if (!scopes) return true;
  return scopes.every((value) => cluster !== undefined && value.split(',').includes(`cluster:${cluster}`));
}

/** `user` confined to `cluster` (kcp's impersonation scoping): elsewhere it is only an authenticated anonymous. */
export function scopedToCluster<T extends Identity>(user: T, cluster: string): T & { extra: Record<string, string[]> } {
  const extra = { ...user.extra };
  extra[SCOPES_EXTRA] = [...(Object.hasOwn(extra, SCOPES_EXTRA) ? extra[SCOPES_EXTRA]! : []), `cluster:${cluster}`];
  return { ...user, extra };
}

/** Whether `user` is foreign in `requestCluster` (tied to another cluster). */
export function isForeignIn(user: Pick<Identity, 'extra'>, requestCluster: string | undefined): boolean {
  const origins = user.extra?.[CLUSTER_NAME_EXTRA];
  return !!origins && origins.length > 0 && (requestCluster === undefined || !origins.includes(requestCluster));
}
