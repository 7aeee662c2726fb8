/**
 * What every resource handler is given: the request as the router resolved it (user, cluster, catalog, what a
 * virtual workspace filters or grants) and the services that answer it (kube's handlers' RequestScope).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { UserInfo } from '../auth/user.js';
import type { ClusterCatalog } from '../registry/catalog.js';
import type { GenericStore } from '../registry/generic-store.js';
import type { KubeObject, ResourceType, WriteGrant } from '../registry/types.js';
import type { Store } from '../storage/store.js';
import type { RequestInfo } from './request-info.js';

export interface ApiRequest {
  method: string;
  info: RequestInfo;
  query: URLSearchParams;
  accept?: string;
  contentType?: string;
  body?: Buffer;
  /** The User-Agent header: the default field manager of writes that name none. */
  userAgent?: string;
  user: UserInfo;
  /** Resolved logical cluster name; undefined for the `*` wildcard. */
  cluster: string | undefined;
  catalog: ClusterCatalog;
  /** Objects a virtual workspace lets this request see (lists and watches); absent: all. */
  filter?: (obj: KubeObject) => boolean;
  /** A system:masters caller asked for a deep SubjectAccessReview (kcp's internal header). */
  deepReview?: boolean;
  /** What the virtual workspace serving the request lets it write beyond its caller's clearance. */
  grant?: WriteGrant;
  /** The request's headers, for the few handlers that read one of their own (the workspace index's join headers). */
  headers?: IncomingHttpHeaders;
}

export interface ResourceServices {
  store: Store;
  generic: GenericStore;
  /** Open watch streams, ended on shutdown so in-flight work can finish and the server can close. */
  watches?: Set<() => void>;
  /** Calls onGone when `cluster` (`*`: every cluster) stops serving `rt` (a CRD deleted); returns the unsubscribe. */
  watchRemoval?(cluster: string, rt: ResourceType, onGone: () => void): () => void;
  /** kube-apiserver's --min-request-timeout: a watch without timeoutSeconds lasts a random [this, 2·this) seconds. */
  minRequestTimeoutSeconds?: number;
  /** TokenRequest (`serviceaccounts/<name>/token`): signs a token for the named ServiceAccount. */
  tokenRequests?(target: { cluster: string; namespace: string; name: string }, input: KubeObject): Promise<KubeObject>;
}
