/**
 * ClusterRole aggregation as kube's clusterrole-aggregation controller does it, per logical cluster: a ClusterRole
 * with `aggregationRule.clusterRoleSelectors` gets the rules of every other ClusterRole of its cluster matching a
 * selector (in name order, duplicates dropped) written into its `rules`. Any ClusterRole change queues its
 * cluster; the reconcile lists that one cluster's ClusterRoles only.
 */
import { defineController, type Controller } from './controller.js';
import { labelSelectorFromObject, matches, type LabelSelectorObject } from '../machinery/label-selector.js';
import type { GenericStore } from '../registry/generic-store.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import type { Store } from '../storage/store.js';
import { RBAC_PREFIX } from '../authorization/rbac-index.js';

const CLUSTER_ROLES_PREFIX = `${RBAC_PREFIX}clusterroles/`;

export interface AggregationDeps {
  store: Store;
  generic: GenericStore;
  clusterRoles: ResourceType;
  onError?(controller: string, key: string, err: unknown): void;
}

/** The rules an aggregating role should hold, from the roles of its cluster (`roles` sorted by name). */
export function aggregatedRules(role: KubeObject, roles: readonly KubeObject[]): unknown[] {
  const selectors = ((role.aggregationRule as { clusterRoleSelectors?: LabelSelectorObject[] } | undefined)?.clusterRoleSelectors ?? []).map(
    (s) => {
      try {
        return labelSelectorFromObject(s);
      } catch {
        return undefined;
      }
    },
  );
  const rules: unknown[] = [];
  const seen = new Set<string>();
  for (const selector of selectors) {
    if (!selector) continue;
    for (const other of roles) {
      if (other.metadata?.name === role.metadata?.name || !matches(selector, other.metadata?.labels)) continue;
      for (const rule of Array.isArray(other.rules) ? other.rules : []) {
        const key = JSON.stringify(rule);
        if (seen.has(key)) continue;
        seen.add(key);
        rules.push(rule);
      }
    }
  }
  return rules;
}

export interface ClusterRoleAggregation extends Controller {
  /** Aggregates one cluster's roles now, outside the queue (the bootstrap policy's, before the first request). */
  reconcile(cluster: string): void;
}

export function clusterRoleAggregationController(deps: AggregationDeps): ClusterRoleAggregation {
  const controller = defineController({
    name: 'clusterrole-aggregation',
    store: deps.store,
    onError: deps.onError,
    watches(feed) {
      feed.watch(CLUSTER_ROLES_PREFIX, (e) => feed.add(e.key.slice(CLUSTER_ROLES_PREFIX.length).split('/')[0]!));
    },
    reconcile: (cluster) => aggregate(deps, cluster),
  });
  return { ...controller, reconcile: (cluster) => aggregate(deps, cluster) };
}

function aggregate(deps: AggregationDeps, cluster: string): void {
  const roles = deps.store
    .list(`${CLUSTER_ROLES_PREFIX}${cluster}/`)
    .items.map((kv) => JSON.parse(kv.value) as KubeObject)
    .sort((a, b) => (a.metadata!.name! < b.metadata!.name! ? -1 : 1));
  // Aggregating roles may aggregate each other (admin ← edit ← view): repeat until nothing changes.
  for (let pass = 0; pass <= roles.length; pass++) {
    let changed = false;
    for (const role of roles) {
      if (!role.aggregationRule) continue;
      const rules = aggregatedRules(role, roles);
      if (JSON.stringify(rules) === JSON.stringify(role.rules ?? [])) continue;
      const ctx = { rt: deps.clusterRoles, cluster, namespace: '' };
      deps.generic.update(ctx, role.metadata!.name!, { ...role, rules });
      role.rules = rules;
      changed = true;
    }
    if (!changed) return;
  }
}
