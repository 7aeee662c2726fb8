/**
 * Which logical cluster a `/clusters/<path>` request reaches, as kcp's shard decides it (kcp-reference §2): a
 * single segment is a cluster name; a multi-segment path is resolved through the workspace tree; `*` is the
 * wildcard for privileged list/watch; no prefix is the bare server URL.
 */
import { forbidden, notFound, StatusError } from '../machinery/status.js';
import type { ClusterCatalog } from '../registry/catalog.js';
import type { Store } from '../storage/store.js';
import type { ClusterTarget, RequestInfo } from './request-info.js';
import type { UserInfo } from './resource-handler.js';

export interface ResolvedCluster {
  /** Logical cluster name; undefined for the wildcard and the bare URL. */
  cluster: string | undefined;
  catalog: ClusterCatalog;
  /** The request came without a /clusters/ prefix. */
  baseUrl: boolean;
}

export interface ClusterResolver {
  resolve(target: ClusterTarget, user: UserInfo, info: RequestInfo): ResolvedCluster;
}

/** Resolves a multi-segment workspace path to a cluster name (the tenancy layer provides it). */
export type WorkspacePathLookup = (path: string) => string | undefined;

export const logicalClusterKey = (cluster: string) => `/registry/core.kcp.io/logicalclusters/${cluster}/cluster`;

export function isPrivileged(user: UserInfo): boolean {
  return user.groups.includes('system:masters');
}

export class ShardClusterResolver implements ClusterResolver {
  constructor(
    private readonly store: Store,
    private readonly catalogFor: (cluster: string) => ClusterCatalog,
    private readonly lookupPath: WorkspacePathLookup = () => undefined,
  ) {}

  resolve(target: ClusterTarget, user: UserInfo, info: RequestInfo): ResolvedCluster {
    if (target.path === '') {
      // kcp authorizes nothing but health checks without a cluster ("empty cluster name"); only privileged
      // users get further, and then find no cluster to serve.
      if (!isPrivileged(user)) throw denied(user, info);
      return { cluster: undefined, catalog: this.catalogFor('root'), baseUrl: true };
    }
    if (target.wildcard) {
      if (!isPrivileged(user)) throw denied(user, info);
      return { cluster: undefined, catalog: this.catalogFor('*'), baseUrl: false };
    }
    let name = target.path;
    if (name.includes(':') && !name.startsWith('system:')) {
      const resolved = this.lookupPath(name);
      if (!resolved) throw notFound({ group: 'tenancy.kcp.io', resource: 'workspaces' }, name);
      name = resolved;
    }
    // Only privileged users reach a cluster whose LogicalCluster does not exist (that is how one gets created).
    if (!isPrivileged(user) && (name.startsWith('system:') || !this.store.get(logicalClusterKey(name)))) {
      throw denied(user, info);
    }
    return { cluster: name, catalog: this.catalogFor(name), baseUrl: false };
  }
}

/** kcp's anonymised denial ("access denied"), worded like kube's authorizer. */
export function denied(user: UserInfo, info: RequestInfo): StatusError {
  if (!info.isResourceRequest) {
    return new StatusError(403, 'Forbidden', `forbidden: User "${user.username}" cannot ${info.verb} path "${info.path}": access denied`, {});
  }
  const scope = info.namespace ? `in the namespace "${info.namespace}"` : 'at the cluster scope';
  return forbidden(
    { group: info.group, resource: info.resource },
    info.name,
    `User "${user.username}" cannot ${info.verb} resource "${info.resource}${info.subresource ? `/${info.subresource}` : ''}" in API group "${info.group}" ${scope}: access denied`,
  );
}
