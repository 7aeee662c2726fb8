/**
 * Kubernetes RBAC over kcp's two layers: a logical cluster's own Roles, ClusterRoles and bindings, and the
 * bootstrap policy kept once per shard in `system:admin`. As in kcp's local authorizer, a local binding may name
 * a local role or a bootstrap ClusterRole (local wins on a name clash), and the bootstrap ClusterRoleBindings
 * (`system:kcp:admin` → cluster-admin, `system:authenticated` → `system:discovery`, …) apply in every cluster.
 *
 * What a user may do in a namespace is flattened once into a rule list and cached on the cluster's compiled
 * policy, so a decision is a map lookup and a short scan.
 */
import { BOOTSTRAP_CLUSTER, type ClusterPolicy, type CompiledBinding, type RbacIndexes } from './rbac-index.js';
import { ruleAllows, type PolicyRule, type RequestAttributes } from './rules.js';

export interface Subject {
  username: string;
  groups: readonly string[];
}

const MAX_USER_ENTRIES = 512;

export class RbacEvaluator {
  constructor(private readonly indexes: RbacIndexes) {}

  /** Whether RBAC in `cluster` allows the request. */
  allows(cluster: string, subject: Subject, attrs: RequestAttributes): boolean {
    const ns = attrs.resourceRequest ? attrs.namespace : '';
    for (const rule of this.rulesFor(cluster, subject, ns)) if (ruleAllows(rule, attrs)) return true;
    return false;
  }

  /** Every rule that applies to the subject in `namespace` ('' = cluster-wide rules only). */
  rulesFor(cluster: string, subject: Subject, namespace: string): readonly PolicyRule[] {
    const local = this.indexes.policy(cluster);
    const generation = this.indexes.bootstrapGeneration;
    let entries = local.userRules.get(subject.username);
    const cached = entries && cachedEntry(entries, namespace, subject.groups);
    if (cached && cached.generation === generation) return cached.rules;
    const rules = this.collect(local, subject, namespace);
    if (cached) {
      cached.generation = generation;
      cached.rules = rules;
      return rules;
    }
    if (local.userRuleCount >= MAX_USER_ENTRIES) {
      local.userRules.clear();
      local.userRuleCount = 0;
      entries = undefined;
    }
    if (!entries) local.userRules.set(subject.username, (entries = []));
    entries.push({ namespace, groups: [...subject.groups], generation, rules });
    local.userRuleCount += 1;
    return rules;
  }

  private collect(local: ClusterPolicy, subject: Subject, namespace: string): PolicyRule[] {
    const boot = local.cluster === BOOTSTRAP_CLUSTER ? local : this.indexes.policy(BOOTSTRAP_CLUSTER);
    const rules: PolicyRule[] = [];
    const seen = new Set<string>();
    const addRole = (binding: CompiledBinding) => {
      const id = `${binding.roleKind}/${binding.namespace}/${binding.roleName}`;
      if (seen.has(id)) return;
      seen.add(id);
      const found =
        binding.roleKind === 'Role'
          ? (local.roles.get(`${binding.namespace}/${binding.roleName}`) ?? boot.roles.get(`${binding.namespace}/${binding.roleName}`))
          : (local.clusterRoles.get(binding.roleName) ?? boot.clusterRoles.get(binding.roleName));
      if (found) rules.push(...found);
    };
    for (const b of local.clusterBindings.bindingsFor(subject.username, subject.groups)) addRole(b);
    if (boot !== local) {
      // Bootstrap bindings name bootstrap roles only.
      for (const b of boot.clusterBindings.bindingsFor(subject.username, subject.groups)) {
        const id = `boot/${b.roleName}`;
        if (seen.has(id)) continue;
        seen.add(id);
        rules.push(...(boot.clusterRoles.get(b.roleName) ?? []));
      }
    }
    if (namespace) {
      for (const b of local.roleBindings.get(namespace)?.bindingsFor(subject.username, subject.groups) ?? []) addRole(b);
    }
    return rules;
  }
}

/** The entry of `namespace` and `groups` (a loop: asked on every request, a find() closure per call was allocation). */
function cachedEntry<E extends { namespace: string; groups: readonly string[] }>(entries: E[], namespace: string, groups: readonly string[]): E | undefined {
  for (const e of entries) if (e.namespace === namespace && sameGroups(e.groups, groups)) return e;
  return undefined;
}

function sameGroups(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
