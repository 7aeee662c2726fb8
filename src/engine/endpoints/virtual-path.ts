/**
 * Virtual workspaces' URLs (`/services/<workspace>/<name>/clusters/…`) and what a virtual workspace answers for one:
 * the cluster and API set a request is served in, or a handler of its own.
 */
import type { FastifyReply } from 'fastify';
import type { UserInfo } from '../auth/user.js';
import type { StorageScope } from '../registry/scoped-store.js';
import type { KubeObject, WriteGrant } from '../registry/types.js';
import type { ResolvedCluster } from './cluster-resolver.js';
import type { ApiRequest, ResourceServices } from './request.js';
import type { RequestInfo } from './request-info.js';

export interface VirtualWorkspacePath {
  /** `initializingworkspaces`, `terminatingworkspaces`, … */
  workspace: string;
  /** The initializer, terminator or export the URL names. */
  name: string;
  /** `/clusters/<X>/…`: the request as it would be made to a logical cluster. */
  remainder: string;
}

/**
 * Where a virtual workspace sends a request: onto a cluster and API set of its choosing (served like any request,
 * optionally seeing only some objects), or to a handler of its own (views no stored prefix holds, like the index).
 */
export type VirtualTarget =
  | {
      resolved: ResolvedCluster;
      /** Objects the request's lists and watches show (a view for reading; writes are not checked against it). */
      filter?: (obj: KubeObject) => boolean;
      /**
       * What the request may reach of the store, enforced for every verb: the request is served over a view of the
       * store that hides every object outside the scope and refuses writes that would touch or leave one there.
       */
      scope?: StorageScope;
      /** Replaces the server's CRD-based tracking of watched types going away, for types a virtual workspace defines. */
      watchRemoval?: ResourceServices['watchRemoval'];
      /** What this virtual workspace lets the request write beyond its caller's clearance. */
      grant?: WriteGrant;
      handle?: undefined;
    }
  | { handle(req: ApiRequest, reply: FastifyReply, svc: ResourceServices): Promise<unknown>; resolved?: undefined };

export interface VirtualWorkspaces {
  /** Where a virtual workspace request goes, or undefined when no virtual workspace serves it (404). */
  resolve(path: VirtualWorkspacePath, info: RequestInfo, user: UserInfo): VirtualTarget | undefined | Promise<VirtualTarget | undefined>;
}

/**
 * How many path segments name the target of each virtual workspace: one (`<initializer>`) unless listed. The
 * APIExport virtual workspace is named by the export's workspace and the export: `/services/apiexport/<ws>/<export>/`.
 */
const nameSegments: Record<string, number> = { apiexport: 2 };

/**
 * `/services/<workspace>/<name>/clusters/…` → its parts; undefined for every other path. A multi-segment name is
 * joined with `/` (`root:provider/widgets`).
 */
export function parseVirtualWorkspacePath(path: string): VirtualWorkspacePath | undefined {
  const head = /^\/services\/([^/]+)\//.exec(path);
  if (!head) return undefined;
  const workspace = head[1]!;
  const segments = nameSegments[workspace] ?? 1;
  const match = new RegExp(`^((?:[^/]+/){${segments - 1}}[^/]+)(/clusters/.*)$`).exec(path.slice(head[0].length));
  if (!match) return undefined;
  let name: string;
  try {
    name = match[1]!.split('/').map(decodeURIComponent).join('/');
  } catch {
    return undefined;
  }
  return { workspace, name, remainder: match[2]! };
}
