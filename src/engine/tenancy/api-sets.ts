/**
 * Which built-in API set a logical cluster serves: every cluster serves the Kubernetes
 * built-ins and kcp's system APIs; root and every cluster whose type extends `universal` also serve
 * `tenancy.kcp.io` (Workspaces, WorkspaceTypes); root also serves Shards. A cluster's set is recorded on its
 * LogicalCluster when it is created (the `internal.kcpt.dev/apis` annotation), the way kcp records its default
 * APIBindings, so later changes to types do not change existing workspaces.
 */
import { StaticCatalog, type ClusterCatalog } from '../registry/catalog.js';
import type { ResourceType } from '../registry/types.js';
import { ROOT_CLUSTER, TENANCY_GROUP } from '../machinery/kcp-names.js';

export const SHARDS_API = 'shards.core.kcp.io';

export class APISets {
  private readonly byGroups = new Map<string, ClusterCatalog>();

  constructor(
    /** The `internal.kcpt.dev/apis` annotation of a cluster's LogicalCluster (ClusterPaths caches it). */
    private readonly apisOf: (cluster: string) => string | undefined,
    private readonly builtins: readonly ResourceType[],
    private readonly tenancy: readonly ResourceType[],
    private readonly shards: readonly ResourceType[],
  ) {}

  /** The set served by a cluster, from its LogicalCluster (root: everything; Shards nowhere else, whatever it says). */
  baseFor = (cluster: string): ClusterCatalog => {
    if (cluster === ROOT_CLUSTER) return this.catalog(`${TENANCY_GROUP},${SHARDS_API}`);
    const apis = this.apisOf(cluster) ?? '';
    return this.catalog(apis.includes(SHARDS_API) ? apis.split(',').filter((a) => a !== SHARDS_API).join(',') : apis);
  };

  /** The widest set (root's), for the `*` wildcard. */
  widest(): ClusterCatalog {
    return this.catalog(`${TENANCY_GROUP},${SHARDS_API}`);
  }

  /** The widest set a cluster other than root may serve (all but Shards). */
  widestBelowRoot(): ClusterCatalog {
    return this.catalog(TENANCY_GROUP);
  }

  private catalog(apis: string): ClusterCatalog {
    let catalog = this.byGroups.get(apis);
    if (!catalog) {
      const groups = new Set(apis.split(',').filter(Boolean));
      const types = [
        ...this.builtins,
        ...(groups.has(TENANCY_GROUP) ? this.tenancy : []),
        ...(groups.has(SHARDS_API) ? this.shards : []),
      ];
      catalog = new StaticCatalog(types, `builtin-2${groups.size ? `+${[...groups].sort().join('+')}` : ''}`);
      this.byGroups.set(apis, catalog);
    }
    return catalog;
  }
}
