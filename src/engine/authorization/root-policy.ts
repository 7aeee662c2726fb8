/**
 * Root's own RBAC as kcp's root bootstrap writes it (config/root): every authenticated user may enter root and
 * read its workspaces, types and LogicalCluster, may use the types `universal`, `organization` and `team`, and the
 * home-creator groups may ask for their home (`get`/`create` on the Workspace `~`).
 */
import type { KubeObject } from '../registry/types.js';
import { AUTHENTICATED_GROUP } from '../machinery/user-groups.js';
import { clusterRole, clusterRoleBinding, TENANCY_READER_ROLE, WORKSPACE_ACCESS_ROLE } from './bootstrap-policy.js';

export const HOME_CREATE_ROLE = 'system:kcp:home-clusterworkspace-create';
export const TYPE_USE_ROLE = 'system:kcp:universal-workspacetype-use';

export function rootPolicy(homeCreatorGroups: readonly string[]): KubeObject[] {
  const authenticated = [{ kind: 'Group' as const, name: AUTHENTICATED_GROUP }];
  const objects = [
    clusterRoleBinding('system:kcp:authenticated:tenancy:reader', TENANCY_READER_ROLE, authenticated),
    clusterRoleBinding('system:kcp:tenancy:authenticated:access', WORKSPACE_ACCESS_ROLE, authenticated),
    clusterRole(TYPE_USE_ROLE, [
      { apiGroups: ['tenancy.kcp.io'], resources: ['workspacetypes'], resourceNames: ['universal', 'organization', 'team'], verbs: ['use'] },
    ]),
    clusterRoleBinding('system:kcp:authenticated:universal-workspacetype-use', TYPE_USE_ROLE, authenticated),
    clusterRole(HOME_CREATE_ROLE, [{ apiGroups: ['tenancy.kcp.io'], resources: ['workspaces'], resourceNames: ['~'], verbs: ['get', 'create'] }]),
    clusterRoleBinding(
      HOME_CREATE_ROLE,
      HOME_CREATE_ROLE,
      homeCreatorGroups.map((name) => ({ kind: 'Group' as const, name })),
    ),
  ];
  // Root's objects are kcp's, not kube's defaults.
  for (const obj of objects) delete obj.metadata!.labels;
  return objects;
}
