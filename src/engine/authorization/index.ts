/**
 * Authorization, assembled: RBAC (the compiled indexes and the evaluator), kcp's authorizer chain on top of it,
 * escalation checks for RBAC writes, the access reviews, and the policy objects written at start.
 */
import { identityInCluster } from '../auth/foreign-identity.js';
import { StatusError } from '../machinery/status.js';
import type { GenericStore } from '../registry/generic-store.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import type { Store } from '../storage/store.js';
import type { UserInfo } from '../auth/user.js';
import { allowedByRbac, Authorizer, type AuthorizerDeps } from './authorizer.js';
import { bootstrapPolicy } from './bootstrap-policy.js';
import { EscalationCheck } from './escalation.js';
import { BOOTSTRAP_CLUSTER, RbacIndexes } from './rbac-index.js';
import { RbacEvaluator } from './rbac-evaluator.js';
import { reviewDeps } from './reviews.js';
import { rootPolicy } from './root-policy.js';

export { Authorizer, type Decision } from './authorizer.js';
export { forbiddenError, requestAttributes, WORKSPACE_ACCESS_NOT_PERMITTED } from './forbidden.js';
export { impersonate, impersonationHeaders, type ImpersonationRequest } from './impersonation.js';
export { checkImpersonationPrivilege } from './impersonation-gatekeeper.js';
export { BOOTSTRAP_CLUSTER } from './rbac-index.js';

/**
 * RBAC alone: every cluster's compiled roles and bindings, and what admission asks of them (`use` a WorkspaceType,
 * `bind` an APIExport). Built before the tenancy layer and API sharing, which ask it; the authorizer chain, which
 * needs them, comes after.
 */
export class Rbac {
  readonly indexes: RbacIndexes;
  readonly evaluator: RbacEvaluator;

  constructor(store: Store) {
    this.indexes = new RbacIndexes(store);
    this.evaluator = new RbacEvaluator(this.indexes);
  }

  /**
   * Whether RBAC in `cluster` lets the user `verb` the WorkspaceType `name` (`use`, `initialize`, `terminate`, `get`).
   * A service account from another workspace is asked about as the foreign identity it is there, so a namesake
   * account of that workspace lends it nothing.
   */
  mayOnWorkspaceType(user: UserInfo, verb: string, cluster: string, name: string): boolean {
    return this.mayOnObject(user, verb, cluster, { group: 'tenancy.kcp.io', resource: 'workspacetypes' }, name);
  }

  /** Whether RBAC in `cluster` lets the user `bind` (or `verb`) the APIExport `name`, asked the same way. */
  mayOnAPIExport(user: UserInfo, verb: string, cluster: string, name: string): boolean {
    return this.mayOnObject(user, verb, cluster, { group: 'apis.kcp.io', resource: 'apiexports' }, name);
  }

  private mayOnObject(user: UserInfo, verb: string, cluster: string, gr: { group: string; resource: string }, name: string): boolean {
    return allowedByRbac(this.evaluator, cluster, identityInCluster(user, cluster), {
      verb,
      resourceRequest: true,
      apiGroup: gr.group,
      resource: gr.resource,
      subresource: '',
      name,
      namespace: '',
      path: '',
    });
  }
}

/** kcp's authorizer chain over RBAC, the escalation checks of RBAC writes, and the access reviews. */
export class Authorization {
  readonly authorizer: Authorizer;
  readonly escalation: EscalationCheck;

  constructor(
    readonly rbac: Rbac,
    deps: Omit<AuthorizerDeps, 'rbac'>,
  ) {
    this.authorizer = new Authorizer({ ...deps, rbac: rbac.evaluator });
    this.escalation = new EscalationCheck({ authorizer: this.authorizer, rbac: rbac.evaluator, indexes: rbac.indexes });
  }

  /** `decide` and `rules` for the review resources. */
  reviews() {
    return reviewDeps(this.authorizer, this.rbac.evaluator);
  }

  /** The RBAC types with escalation prevention in their admission. */
  guard(types: ResourceType[]): ResourceType[] {
    return types.map((rt) => (rt.group === 'rbac.authorization.k8s.io' ? this.escalation.guard(rt) : rt));
  }
}

export interface PolicyTypes {
  clusterRoles: ResourceType;
  clusterRoleBindings: ResourceType;
}

/**
 * Writes the policy objects that are missing (the bootstrap policy into `system:admin`, root's own objects into
 * root), looked up before they are created so a restart changes nothing, and aggregates the bootstrap ClusterRoles
 * so the first request already sees admin/edit/view filled.
 */
export function writeBootstrapPolicy(
  generic: GenericStore,
  types: PolicyTypes,
  homeCreatorGroups: readonly string[],
  /** The ClusterRole aggregation controller (controllers/), which aggregates one cluster's roles on demand. */
  aggregation: { reconcile(cluster: string): void },
): void {
  const kinds = { ClusterRole: types.clusterRoles, ClusterRoleBinding: types.clusterRoleBindings };
  for (const obj of bootstrapPolicy()) createIfMissing(generic, kinds, BOOTSTRAP_CLUSTER, obj);
  for (const obj of rootPolicy(homeCreatorGroups)) createIfMissing(generic, kinds, 'root', obj);
  aggregation.reconcile(BOOTSTRAP_CLUSTER);
}

function createIfMissing(generic: GenericStore, kinds: Record<string, ResourceType>, cluster: string, obj: KubeObject): void {
  const rt = kinds[obj.kind!]!;
  const ctx = { rt, cluster, namespace: '' };
  if (generic.store.get(generic.key(ctx, obj.metadata!.name!))) return;
  try {
    generic.create(ctx, obj);
  } catch (err) {
    if (!(err instanceof StatusError && err.code === 409)) throw err;
  }
}
