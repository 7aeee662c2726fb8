/**
 * Which logical cluster a `/clusters/<path>` request reaches, as kcp's shard decides it: a
 * single segment is a cluster name; a multi-segment path is resolved through the workspace tree; `*` is the
 * wildcard for privileged list/watch; no prefix is the bare server URL. Whether the user may go there is the
 * authorizer's question, asked by the router next; the catalog is only computed once someone reads it.
 *
 * A path to no workspace is 404 only for a user who could have listed the workspaces where it ends (they learn
 * nothing new); anyone else gets kcp's front-proxy answer, 403 "workspace access not permitted", so that probing
 * paths tells nothing about workspaces one cannot see. For the same reason a path to a workspace that exists, but
 * that the user can neither enter nor see in its parent, is refused with that very answer (`concealed`).
 */
import { notFound, StatusError } from '../machinery/status.js';
import type { ClusterCatalog } from '../registry/catalog.js';
import type { ClusterTarget, RequestInfo } from './request-info.js';
import type { UserInfo } from '../auth/user.js';

export interface ResolvedCluster {
  /** Logical cluster name; undefined for the wildcard and the bare URL. */
  cluster: string | undefined;
  catalog: ClusterCatalog;
  /** The request came without a /clusters/ prefix. */
  baseUrl: boolean;
}

export interface ClusterResolver {
  resolve(target: ClusterTarget, user: UserInfo, info: RequestInfo): ResolvedCluster;
  /**
   * The answer a missing workspace would get, for a path whose last workspace the user could not have seen in its
   * parent; undefined for cluster names, the wildcard and paths the user could have listed.
   */
  concealed?(target: ClusterTarget, user: UserInfo, info: RequestInfo): StatusError | undefined;
}

/** Resolves a multi-segment workspace path to a cluster name (the tenancy layer provides it). */
export type WorkspacePathLookup = (path: string) => string | undefined;

/** Whether the user may see (get) the Workspace `name` in `cluster`, i.e. learn that it does not exist. */
export type WorkspaceVisibility = (user: UserInfo, cluster: string, name: string) => boolean;

export const logicalClusterKey = (cluster: string) => `/registry/core.kcp.io/logicalclusters/${cluster}/cluster`;

/** kube's verb for a method, as a non-resource request names it. */
const methodVerbs: Record<string, string> = { list: 'get', watch: 'get', create: 'post', update: 'put', deletecollection: 'delete' };

/**
 * A resolution whose catalog is computed on first read. A class, not an object literal with a getter: V8 builds
 * such a literal's accessor anew on every call (~1 µs per request in the GET profile).
 */
class LazyResolved implements ResolvedCluster {
  private computed?: ClusterCatalog;

  constructor(
    readonly cluster: string | undefined,
    readonly baseUrl: boolean,
    private readonly catalogFor: (c: string) => ClusterCatalog,
    private readonly catalogCluster: string,
  ) {}

  get catalog(): ClusterCatalog {
    return (this.computed ??= this.catalogFor(this.catalogCluster));
  }
}

export class ShardClusterResolver implements ClusterResolver {
  constructor(
    private readonly catalogFor: (cluster: string) => ClusterCatalog,
    private readonly lookupPath: WorkspacePathLookup = () => undefined,
    private readonly visible: WorkspaceVisibility = () => true,
  ) {}

  resolve(target: ClusterTarget, user: UserInfo, info: RequestInfo): ResolvedCluster {
    if (target.path === '') return new LazyResolved(undefined, true, this.catalogFor, 'root');
    if (target.wildcard) return new LazyResolved(undefined, false, this.catalogFor, '*');
    let name = target.path;
    if (name.includes(':') && !name.startsWith('system:')) {
      const resolved = this.lookupPath(name);
      if (!resolved) throw this.unknownPath(name, user, info);
      name = resolved;
    }
    return new LazyResolved(name, false, this.catalogFor, name);
  }

  concealed(target: ClusterTarget, user: UserInfo, info: RequestInfo): StatusError | undefined {
    if (target.wildcard || !target.path.includes(':') || target.path.startsWith('system:')) return undefined;
    const segments = target.path.split(':');
    const parent = this.parentOf(segments, segments.length - 1);
    if (parent !== undefined && this.visible(user, parent, segments.at(-1)!)) return undefined;
    return accessNotPermitted(target.path, user, info);
  }

  private unknownPath(path: string, user: UserInfo, info: RequestInfo): StatusError {
    const segments = path.split(':');
    const k = this.deepestParent(segments);
    if (k !== undefined && this.visible(user, this.parentOf(segments, k)!, segments[k]!)) {
      return notFound({ group: 'tenancy.kcp.io', resource: 'workspaces' }, path);
    }
    return accessNotPermitted(path, user, info);
  }

  /**
   * The largest k < segments.length whose workspace `segments[k]` has a parent here, found by bisection: a path
   * resolves segment by segment, so if a prefix leads nowhere so does every longer one. Each lookup costs the
   * prefix's length; asking every prefix from the longest down was quadratic in the segments, and any authenticated
   * user's 50 KB `/clusters/root:org:x:x:…` (25,000 segments, HTTP/2) held the event loop for 20 s.
   */
  private deepestParent(segments: string[]): number | undefined {
    let found: number | undefined;
    // `user:` has no parent (parentOf), but `user:<name>` does: the bisection starts past the alias.
    let low = segments[0] === 'user' ? 2 : 1;
    let high = segments.length - 1;
    while (low <= high) {
      const k = (low + high) >>> 1;
      if (this.parentOf(segments, k) === undefined) high = k - 1;
      else {
        found = k;
        low = k + 1;
      }
    }
    return found;
  }

  /** The cluster holding the workspace `segments[k]` (none for `user:`, the home alias, whose parent is no workspace). */
  private parentOf(segments: string[], k: number): string | undefined {
    const prefix = segments.slice(0, k).join(':');
    return k === 1 ? (prefix === 'user' ? undefined : prefix) : this.lookupPath(prefix);
  }
}

/** kcp's front-proxy answer for a path it cannot route. */
function accessNotPermitted(path: string, user: UserInfo, info: RequestInfo): StatusError {
  const verb = info.isResourceRequest ? (methodVerbs[info.verb] ?? info.verb) : info.verb;
  return new StatusError(403, 'Forbidden', `forbidden: User "${user.username}" cannot ${verb} path "/clusters/${path}${info.path}": workspace access not permitted`, {});
}
