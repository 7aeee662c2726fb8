/**
 * Kubernetes' RBAC escalation prevention (pkg/registry/rbac), which kcp keeps: a user may write a Role or
 * ClusterRole only with rules they already hold in that scope (or with the `escalate` verb on it), and may bind a
 * role only if they hold its rules there (or have `bind` on it). Only a ClusterRole's `aggregationRule` needs
 * escalation rights outright. `system:masters` and the server's own writes are never checked.
 */
import { forbidden, notFound } from '../machinery/status.js';
import type { KubeObject, ResourceType, StrategyContext } from '../registry/types.js';
import type { Authorizer } from './authorizer.js';
import { MASTERS_GROUP } from '../machinery/user-groups.js';
import { BOOTSTRAP_CLUSTER, type RbacIndexes } from './rbac-index.js';
import type { RbacEvaluator } from './rbac-evaluator.js';
import { goQuotedList, normalizeRules, ruleString, uncoveredRules, type PolicyRule, type RequestAttributes } from './rules.js';

const RBAC = 'rbac.authorization.k8s.io';

export interface EscalationDeps {
  authorizer: Authorizer;
  rbac: RbacEvaluator;
  indexes: RbacIndexes;
}

type User = NonNullable<StrategyContext['user']>;

function verbAttrs(verb: string, resource: string, name: string, namespace: string): RequestAttributes {
  return { verb, resourceRequest: true, apiGroup: RBAC, resource, subresource: '', name, namespace, path: '' };
}

function escalationMessage(user: User, missing: PolicyRule[]): string {
  return `user ${JSON.stringify(user.username)} (groups=${goQuotedList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${missing
    .map(ruleString)
    .join('\n')}`;
}

export class EscalationCheck {
  constructor(private readonly deps: EscalationDeps) {}

  /** Wraps an RBAC ResourceType so that its admission refuses escalation. */
  guard(rt: ResourceType): ResourceType {
    const kind = rt.resource;
    const check = (obj: KubeObject, old: KubeObject | undefined, ctx: StrategyContext & { namespace?: string }) => {
      const user = ctx.user;
      if (!user || user.groups.includes(MASTERS_GROUP) || ctx.onBehalfOfUser) return;
      const namespace = obj.metadata?.namespace ?? '';
      if (kind === 'roles' || kind === 'clusterroles') this.checkRole(kind, obj, old, ctx.cluster, namespace, user);
      else this.checkBinding(kind, obj, old, ctx.cluster, namespace, user);
    };
    return {
      ...rt,
      strategy: {
        ...rt.strategy,
        admit(obj, old, ctx) {
          rt.strategy.admit?.(obj, old, ctx);
          check(obj, old, ctx);
        },
      },
    };
  }

  private checkRole(resource: string, obj: KubeObject, old: KubeObject | undefined, cluster: string, namespace: string, user: User): void {
    const name = obj.metadata?.name ?? '';
    const gr = { group: RBAC, resource };
    const rulesChanged = !old || JSON.stringify(old.rules ?? []) !== JSON.stringify(obj.rules ?? []);
    const aggregationChanged = !old || JSON.stringify(old.aggregationRule ?? null) !== JSON.stringify(obj.aggregationRule ?? null);
    if (!rulesChanged && !aggregationChanged) return;
    if (this.deps.authorizer.authorize(cluster, user, verbAttrs('escalate', resource, name, namespace)).allowed) return;
    if (resource === 'clusterroles' && obj.aggregationRule) {
      throw forbidden(gr, name, 'must have cluster-admin privileges to use the aggregationRule');
    }
    const missing = uncoveredRules(this.deps.rbac.rulesFor(cluster, user, namespace), normalizeRules(obj.rules));
    if (missing.length > 0) throw forbidden(gr, name, escalationMessage(user, missing));
  }

  private checkBinding(resource: string, obj: KubeObject, old: KubeObject | undefined, cluster: string, namespace: string, user: User): void {
    const name = obj.metadata?.name ?? '';
    const gr = { group: RBAC, resource };
    if (old && JSON.stringify([old.roleRef, old.subjects]) === JSON.stringify([obj.roleRef, obj.subjects])) return;
    const ref = (obj.roleRef ?? {}) as { kind?: string; name?: string };
    const roleResource = ref.kind === 'Role' ? 'roles' : 'clusterroles';
    const roleNamespace = ref.kind === 'Role' ? namespace : '';
    if (this.deps.authorizer.authorize(cluster, user, verbAttrs('bind', roleResource, ref.name ?? '', roleNamespace)).allowed) return;
    const rules = this.roleRules(cluster, ref.kind ?? '', roleNamespace, ref.name ?? '');
    if (!rules) {
      const missing = notFound({ group: RBAC, resource: roleResource }, ref.name ?? '');
      throw forbidden(gr, name, missing.message);
    }
    const missing = uncoveredRules(this.deps.rbac.rulesFor(cluster, user, namespace), rules);
    if (missing.length > 0) throw forbidden(gr, name, escalationMessage(user, missing));
  }

  /** The rules of the role a binding names: the cluster's own, else the bootstrap policy's. */
  private roleRules(cluster: string, kind: string, namespace: string, name: string): PolicyRule[] | undefined {
    const local = this.deps.indexes.policy(cluster);
    const boot = this.deps.indexes.policy(BOOTSTRAP_CLUSTER);
    if (kind === 'Role') return local.roles.get(`${namespace}/${name}`);
    return local.clusterRoles.get(name) ?? boot.clusterRoles.get(name);
  }
}
