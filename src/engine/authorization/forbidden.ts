/**
 * Request attributes from a parsed URL, and the 403 a denial becomes, worded as kube's authorization filter words
 * it with kcp's anonymised reason: `configmaps "x" is forbidden: User "u" cannot get resource "configmaps" in API
 * group "" in the namespace "ns": access denied`, or `forbidden: User "u" cannot get path "/api": access denied`.
 */
import { forbidden, StatusError } from '../machinery/status.js';
import type { RequestAttributes } from './rules.js';

/** The reason kcp gives where a workspace path cannot be entered (its front-proxy, home creation). */
export const WORKSPACE_ACCESS_NOT_PERMITTED = 'workspace access not permitted';

export interface ParsedRequest {
  isResourceRequest: boolean;
  verb: string;
  group: string;
  resource: string;
  subresource: string;
  name: string;
  namespace: string;
  path: string;
}

export function requestAttributes(info: ParsedRequest): RequestAttributes {
  return {
    verb: info.verb,
    resourceRequest: info.isResourceRequest,
    apiGroup: info.group,
    resource: info.resource,
    subresource: info.subresource,
    name: info.name,
    namespace: info.namespace,
    path: info.path,
  };
}

export function forbiddenError(username: string, attrs: RequestAttributes, reason = 'access denied'): StatusError {
  if (!attrs.resourceRequest) {
    return new StatusError(403, 'Forbidden', `forbidden: User "${username}" cannot ${attrs.verb} path "${attrs.path}": ${reason}`, {});
  }
  const scope = attrs.namespace ? `in the namespace "${attrs.namespace}"` : 'at the cluster scope';
  const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  return forbidden(
    { group: attrs.apiGroup, resource: attrs.resource },
    attrs.name,
    `User "${username}" cannot ${attrs.verb} resource "${resource}" in API group "${attrs.apiGroup}" ${scope}: ${reason}`,
  );
}
