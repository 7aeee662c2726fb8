/**
 * kcp's impersonation gatekeeper, applied before any impersonation is honoured, on every path (workspaces and
 * virtual workspaces alike): RBAC's `impersonate` verb is local to a workspace, and every user administers some
 * workspace (their home), so by RBAC alone anyone could ask to be `system:masters` there and run as the shard
 * admin. kcp ranks its special groups; a requester may only ask for a ranked group it already holds, unless it is
 * in `system:masters`. Extras whose key names kcp.io (scopes, warrants, cluster names) grant authority and are set
 * only by kcp's own authenticators, so no client may assert them either.
 */
import { StatusError } from '../machinery/status.js';
import {
  AUTHENTICATED_GROUP,
  EXTERNAL_LOGICAL_CLUSTER_ADMIN_GROUP,
  KCP_ADMIN_GROUP,
  LOGICAL_CLUSTER_ADMIN_GROUP,
  MASTERS_GROUP,
  WORKSPACE_BOOTSTRAPPER_GROUP,
} from '../machinery/user-groups.js';
import type { ImpersonationRequest } from './impersonation.js';

/** Groups with a meaning to kcp: asking for one takes holding it already. */
const PRIVILEGED_GROUPS: ReadonlySet<string> = new Set([
  MASTERS_GROUP,
  KCP_ADMIN_GROUP,
  LOGICAL_CLUSTER_ADMIN_GROUP,
  EXTERNAL_LOGICAL_CLUSTER_ADMIN_GROUP,
  WORKSPACE_BOOTSTRAPPER_GROUP,
  AUTHENTICATED_GROUP,
]);

const refused = (why: string) => new StatusError(403, 'Forbidden', `forbidden: ${why}`, {});

/** Throws kcp's 403 when `asked` would give the requester a group or extra it may not assume. */
export function checkImpersonationPrivilege(requesterGroups: readonly string[], asked: ImpersonationRequest): void {
  if (requesterGroups.includes(MASTERS_GROUP)) return;
  const reserved = Object.keys(asked.extra).find((key) => key.toLowerCase().includes('kcp.io'));
  if (reserved !== undefined) throw refused(`impersonating the extra key "${reserved}" is not allowed for the requestor`);
  const held = new Set(requesterGroups);
  if (asked.groups.some((g) => PRIVILEGED_GROUPS.has(g) && !held.has(g))) throw refused('impersonation is not allowed for the requestor');
}
