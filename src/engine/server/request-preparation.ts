/**
 * The asynchronous work a request's authorization needs before the (synchronous) decision, in a sharded
 * deployment: waiting for the copy of other shards' exports and schemas right after a start, and asking another
 * shard what the RBAC of an export's workspace there allows (a maximal permission policy), so the authorizer finds
 * the answer.
 */
import type { BoundAPIs } from '../apis/bound-apis.js';
import { identityInCluster } from '../auth/foreign-identity.js';
import { bindingSubject, type Authorizer, type MaximalPolicyCap } from '../authorization/authorizer.js';
import { requestAttributes } from '../authorization/index.js';
import type { RequestAttributes } from '../authorization/rules.js';
import type { RouterServices } from '../endpoints/api-router.js';
import type { RequestInfo } from '../endpoints/request-info.js';
import type { UserInfo } from '../auth/user.js';
import type { RemoteAccessReviews } from '../shards/remote-access-reviews.js';
import type { SharingReplica } from '../shards/sharing-replica.js';

export interface AuthorizationPreparationDeps {
  replica: Pick<SharingReplica, 'untilSynced' | 'isEmpty'>;
  bound: Pick<BoundAPIs, 'untilComplete'>;
  maximalPolicy(cluster: string, attrs: RequestAttributes): MaximalPolicyCap | undefined;
  authorizer: Pick<Authorizer, 'subjectInside'>;
  remoteReviews: Pick<RemoteAccessReviews, 'review'>;
}

export function authorizationPreparation(deps: AuthorizationPreparationDeps): NonNullable<RouterServices['prepareAuthorization']> {
  const { replica, bound, authorizer, remoteReviews } = deps;
  const prepare = (cluster: string | undefined, authenticated: UserInfo, info: RequestInfo): Promise<void> | undefined => {
    // Just started, other shards' exports and schemas not copied yet: a request for a bound resource across
    // clusters (`<resource>:<identityHash>`, whose types come from every shard's exports) or any request in a
    // cluster binding one of them (discovery too) waits for the copy rather than get a 404. (Not other wildcard
    // requests: the replicas' own lists of each other's exports are some, and they must not wait on each other.)
    const boundAcross = info.cluster.wildcard && info.isResourceRequest && info.resource.includes(':');
    const readsCatalog = info.isResourceRequest || info.apiPrefix !== '' || info.path.startsWith('/openapi');
    const inCluster = cluster !== undefined && !info.cluster.wildcard && readsCatalog;
    const copying = boundAcross
      ? replica.untilSynced()
      : inCluster
        ? bound.untilComplete(cluster, info.group, info.isResourceRequest ? info.resource : undefined)
        : undefined;
    if (copying) return copying.then(() => prepare(cluster, authenticated, info));
    if (!info.isResourceRequest) return undefined;
    // Only while other shards' exports are known and the request is on a resource bound from one with a policy.
    if (cluster === undefined || replica.isEmpty()) return undefined;
    const attrs = requestAttributes(info);
    const cap = deps.maximalPolicy(cluster, attrs);
    const subject = cap?.remote ? authorizer.subjectInside(cluster, identityInCluster(authenticated, cluster)) : undefined;
    return cap && subject ? remoteReviews.review(cap.cluster, cap.name, bindingSubject(subject), attrs, true).then(() => undefined) : undefined;
  };
  return prepare;
}
