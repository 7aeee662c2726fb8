/**
 * Impersonation (`kubectl --as/--as-group/--as-uid`, `Impersonate-*` headers) as kube's impersonation filter does
 * it: every piece of the requested identity needs the verb `impersonate` — `users` (or `serviceaccounts` in their
 * namespace for `system:serviceaccount:<ns>:<name>`), `groups`, `uids` and `userextras/<key>` — asked of the
 * acting user in the request's logical cluster. The request then runs as the impersonated user, scoped (as kcp's
 * WithImpersonationScoping does) to that cluster: the grant to impersonate is local, so wherever the identity is
 * asked about in another cluster (`bind` on another workspace's APIExport, `use` of its WorkspaceType, the owner
 * a new workspace records) it is an authenticated anonymous user. Only `system:masters` impersonates unscoped.
 */
import { ownValue, setOwnValue } from '../machinery/own-properties.js';
import { badRequest } from '../machinery/status.js';
import type { UserInfo } from '../auth/user.js';
import { scopedToCluster } from '../auth/foreign-identity.js';
import type { Authorizer } from './authorizer.js';
import { AUTHENTICATED_GROUP, MASTERS_GROUP } from '../machinery/user-groups.js';
import { forbiddenError } from './forbidden.js';
import type { RequestAttributes } from './rules.js';

export interface ImpersonationRequest {
  user?: string;
  groups: string[];
  uid?: string;
  extra: Record<string, string[]>;
}

const EXTRA_PREFIX = 'impersonate-extra-';

/** Reads the Impersonate-* headers from Node's raw header list (repeated headers stay separate); undefined: none. */
export function impersonationHeaders(rawHeaders: readonly string[]): ImpersonationRequest | undefined {
  // Built at the first Impersonate-* header: most requests carry none, and pay for no object.
  let req: ImpersonationRequest | undefined;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    // Every header asked for here starts with "impersonate-": no lowercased copy of the others.
    const first = rawHeaders[i]!.charCodeAt(0);
    if (first !== 0x69 && first !== 0x49) continue;
    const name = rawHeaders[i]!.toLowerCase();
    if (!name.startsWith('impersonate-')) continue;
    const value = rawHeaders[i + 1]!;
    // A repeated User or Uid header: the first counts, as kube reads them (Go's Header.Get).
    if (name === 'impersonate-user') (req ??= impersonationRequest()).user ??= value;
    else if (name === 'impersonate-group') (req ??= impersonationRequest()).groups.push(value);
    else if (name === 'impersonate-uid') (req ??= impersonationRequest()).uid ??= value;
    else if (name.startsWith(EXTRA_PREFIX)) {
      req ??= impersonationRequest();
      let key = name.slice(EXTRA_PREFIX.length);
      try {
        key = decodeURIComponent(key);
      } catch {
        // kube keeps a key it cannot unescape as it is.
      }
      const values = ownValue(req.extra, key);
      if (values) values.push(value);
      else setOwnValue(req.extra, key, [value]);
    }
  }
  return req;
}

function impersonationRequest(): ImpersonationRequest {
  return { groups: [], extra: {} };
}

function attrs(verbTarget: Partial<RequestAttributes> & { resource: string; name: string }): RequestAttributes {
  return { verb: 'impersonate', resourceRequest: true, apiGroup: '', subresource: '', namespace: '', path: '', ...verbTarget };
}

/** The identity the request runs as, after checking the acting user may assume each part of it (403 if not). */
export function impersonate(authorizer: Authorizer, cluster: string | undefined, actor: UserInfo, req: ImpersonationRequest): UserInfo {
  if (req.user === undefined) {
    throw badRequest('requested impersonation of groups, uid or extra without impersonating a user (Impersonate-User is required)');
  }
  const checks: RequestAttributes[] = [];
  const sa = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(req.user);
  const groups: string[] = [];
  if (sa) {
    checks.push(attrs({ resource: 'serviceaccounts', namespace: sa[1]!, name: sa[2]! }));
    groups.push('system:serviceaccounts', `system:serviceaccounts:${sa[1]}`);
  } else {
    checks.push(attrs({ resource: 'users', name: req.user }));
  }
  for (const g of req.groups) {
    checks.push(attrs({ resource: 'groups', name: g }));
    if (!groups.includes(g)) groups.push(g);
  }
  if (req.uid !== undefined) checks.push(attrs({ apiGroup: 'authentication.k8s.io', resource: 'uids', name: req.uid }));
  for (const [key, values] of Object.entries(req.extra)) {
    for (const v of values) checks.push(attrs({ apiGroup: 'authentication.k8s.io', resource: 'userextras', subresource: key, name: v }));
  }
  for (const check of checks) {
    const decision = authorizer.authorize(cluster, actor, check);
    if (!decision.allowed) throw forbiddenError(actor.username, check, decision.reason);
  }
  if (req.user === 'system:anonymous') {
    if (!groups.includes('system:unauthenticated')) groups.push('system:unauthenticated');
  } else if (!groups.includes(AUTHENTICATED_GROUP)) {
    groups.push(AUTHENTICATED_GROUP);
  }
  const user: UserInfo = {
    username: req.user,
    groups,
    ...(req.uid !== undefined ? { uid: req.uid } : {}),
    ...(Object.keys(req.extra).length > 0 ? { extra: req.extra } : {}),
  };
  return actor.groups.includes(MASTERS_GROUP) ? user : scopedToCluster(user, cluster ?? '');
}
