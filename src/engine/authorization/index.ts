/**
 * Authorization, assembled: the compiled RBAC indexes, the evaluator, kcp's authorizer chain, escalation checks
 * for RBAC writes, the access reviews, and the policy objects written at start (the bootstrap policy into
 * `system:admin`, root's own objects into root), looked up before they are created so a restart changes nothing.
 */
import { identityInCluster } from '../auth/foreign-identity.js';
import { StatusError } from '../machinery/status.js';
import type { GenericStore } from '../registry/generic-store.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import type { Store } from '../storage/store.js';
import { clusterRoleAggregationController, type ClusterRoleAggregation } from './aggregation-controller.js';
import { Authorizer, type AuthorizerDeps, type LogicalClusterFacts, type UserIdentity } from './authorizer.js';
import { bootstrapPolicy } from './bootstrap-policy.js';
import { EscalationCheck } from './escalation.js';
import { BOOTSTRAP_CLUSTER, RbacIndexes } from './rbac-index.js';
import { RbacEvaluator } from './rbac-evaluator.js';
import { reviewDeps } from './reviews.js';
import { rootPolicy } from './root-policy.js';

export { Authorizer, type Decision, type UserIdentity } from './authorizer.js';
export { forbiddenError, requestAttributes, WORKSPACE_ACCESS_NOT_PERMITTED } from './forbidden.js';
export { impersonate, impersonationHeaders } from './impersonation.js';
export { checkImpersonationPrivilege } from './impersonation-gatekeeper.js';
export { BOOTSTRAP_CLUSTER } from './rbac-index.js';

export interface AuthorizationStartDeps {
  generic: GenericStore;
  clusterRoles: ResourceType;
  clusterRoleBindings: ResourceType;
  /** `--home-workspaces-home-creator-groups`. */
  homeCreatorGroups: readonly string[];
  onError?(controller: string, key: string, err: unknown): void;
}

export class Authorization {
  readonly indexes: RbacIndexes;
  readonly rbac: RbacEvaluator;
  readonly authorizer: Authorizer;
  readonly escalation: EscalationCheck;
  private aggregation?: ClusterRoleAggregation;

  constructor(
    private readonly store: Store,
    clusterFacts: (cluster: string) => LogicalClusterFacts | undefined,
    maximalPolicy?: AuthorizerDeps['maximalPolicy'],
    remoteCapAllows?: AuthorizerDeps['remoteCapAllows'],
  ) {
    this.indexes = new RbacIndexes(store);
    this.rbac = new RbacEvaluator(this.indexes);
    this.authorizer = new Authorizer({ rbac: this.rbac, clusterFacts, maximalPolicy, remoteCapAllows });
    this.escalation = new EscalationCheck({ authorizer: this.authorizer, rbac: this.rbac, indexes: this.indexes });
  }

  /** `decide` and `rules` for the review resources. */
  reviews() {
    return reviewDeps(this.authorizer, this.rbac);
  }

  /** The RBAC types with escalation prevention in their admission. */
  guard(types: ResourceType[]): ResourceType[] {
    return types.map((rt) => (rt.group === 'rbac.authorization.k8s.io' ? this.escalation.guard(rt) : rt));
  }

  /**
   * Whether RBAC in `cluster` lets the user `verb` the WorkspaceType `name` (`use`, `initialize`, `terminate`, `get`).
   * A service account from another workspace is asked about as the foreign identity it is there, so a namesake
   * account of that workspace lends it nothing.
   */
  mayOnWorkspaceType(user: UserIdentity, verb: string, cluster: string, name: string): boolean {
    return this.mayOnObject(user, verb, cluster, { group: 'tenancy.kcp.io', resource: 'workspacetypes' }, name);
  }

  /** Whether RBAC in `cluster` lets the user `bind` (or `verb`) the APIExport `name`, asked the same way. */
  mayOnAPIExport(user: UserIdentity, verb: string, cluster: string, name: string): boolean {
    return this.mayOnObject(user, verb, cluster, { group: 'apis.kcp.io', resource: 'apiexports' }, name);
  }

  private mayOnObject(user: UserIdentity, verb: string, cluster: string, gr: { group: string; resource: string }, name: string): boolean {
    return this.authorizer.allowedByRbac(cluster, identityInCluster(user, cluster), {
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

  /** Starts watching RBAC objects, writes the policy objects that are missing, and aggregates ClusterRoles. */
  start(deps: AuthorizationStartDeps): void {
    this.indexes.start();
    this.aggregation = clusterRoleAggregationController({ store: this.store, generic: deps.generic, clusterRoles: deps.clusterRoles, onError: deps.onError });
    const kinds = { ClusterRole: deps.clusterRoles, ClusterRoleBinding: deps.clusterRoleBindings };
    for (const obj of bootstrapPolicy()) createIfMissing(deps.generic, kinds, BOOTSTRAP_CLUSTER, obj);
    for (const obj of rootPolicy(deps.homeCreatorGroups)) createIfMissing(deps.generic, kinds, 'root', obj);
    // Fill admin/edit/view now, so the first request already sees them aggregated.
    this.aggregation.reconcile(BOOTSTRAP_CLUSTER);
    this.aggregation.start();
  }

  stop(): void {
    this.aggregation?.stop();
    this.indexes.stop();
  }
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
