/** The user groups that mean something to kcp (its authorizer, admission and impersonation gatekeeper read them). */
export const MASTERS_GROUP = 'system:masters';
export const KCP_ADMIN_GROUP = 'system:kcp:admin';
export const WORKSPACE_BOOTSTRAPPER_GROUP = 'system:kcp:tenancy:workspace-bootstrapper';
export const LOGICAL_CLUSTER_ADMIN_GROUP = 'system:kcp:logical-cluster-admin';
export const EXTERNAL_LOGICAL_CLUSTER_ADMIN_GROUP = 'system:kcp:external-logical-cluster-admin';
export const AUTHENTICATED_GROUP = 'system:authenticated';
export const INITIALIZER_GROUP_PREFIX = 'system:kcp:initializer:';
export const TERMINATOR_GROUP_PREFIX = 'system:kcp:terminator:';
