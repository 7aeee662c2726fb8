/**
 * The initializing and terminating virtual workspaces (kcp-reference §2), served in-process under /services:
 *
 *   /services/initializingworkspaces/<initializer>/clusters/*\/apis/core.kcp.io/v1alpha1/logicalclusters
 *     list/watch of the LogicalClusters still waiting for that initializer, across every workspace;
 *   /services/initializingworkspaces/<initializer>/clusters/<cluster>/…
 *     the workspace being initialized, whole: its LogicalCluster (to remove the initializer from
 *     status.initializers, which lets it turn Ready) and its content;
 *
 * and the same under /services/terminatingworkspaces/<terminator>/ for workspaces being deleted.
 */
import type { ResolvedCluster, ClusterResolver } from '../endpoints/cluster-resolver.js';
import type { RequestInfo } from '../endpoints/request-info.js';
import type { UserInfo } from '../endpoints/resource-handler.js';
import type { VirtualWorkspacePath, VirtualWorkspaces } from '../endpoints/api-router.js';
import { forbidden } from '../machinery/status.js';
import { StaticCatalog } from '../registry/catalog.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import type { Store } from '../storage/store.js';

interface Lifecycle {
  /** The LogicalCluster list this phase's controllers act on. */
  listField: 'initializers' | 'terminators';
  /** Whether a LogicalCluster is in that phase. */
  inPhase(lc: KubeObject): boolean;
}

const lifecycles: Record<string, Lifecycle> = {
  initializingworkspaces: {
    listField: 'initializers',
    inPhase: (lc) => (lc.status as { phase?: string } | undefined)?.phase === 'Initializing' && !lc.metadata?.deletionTimestamp,
  },
  terminatingworkspaces: {
    listField: 'terminators',
    inPhase: (lc) => Boolean(lc.metadata?.deletionTimestamp),
  },
};

export interface LifecycleWorkspacesDeps {
  store: Store;
  clusters: ClusterResolver;
  logicalClusters: ResourceType;
}

export class LifecycleVirtualWorkspaces implements VirtualWorkspaces {
  /** At the wildcard only LogicalClusters are served. */
  private readonly wildcardCatalog: StaticCatalog;

  constructor(private readonly deps: LifecycleWorkspacesDeps) {
    this.wildcardCatalog = new StaticCatalog([deps.logicalClusters], 'lifecycle-vw-1');
  }

  resolve(path: VirtualWorkspacePath, info: RequestInfo, user: UserInfo) {
    const lifecycle = lifecycles[path.workspace];
    if (!lifecycle) return undefined;
    const waitingFor = (lc: KubeObject) => {
      const names = (lc.status as Record<string, string[] | undefined> | undefined)?.[lifecycle.listField] ?? [];
      return lifecycle.inPhase(lc) && names.includes(path.name);
    };
    if (info.cluster.wildcard) {
      const resolved: ResolvedCluster = { cluster: undefined, catalog: this.wildcardCatalog, baseUrl: false };
      return { resolved, filter: waitingFor };
    }
    // A single workspace: the cluster must be waiting on this initializer (terminator); then it is served whole.
    const resolved = this.deps.clusters.resolve(info.cluster, user, info);
    const kv = resolved.cluster ? this.deps.store.get(`/registry/core.kcp.io/logicalclusters/${resolved.cluster}/cluster`) : undefined;
    const lc = kv ? (JSON.parse(kv.value) as KubeObject) : undefined;
    if (!lc || !waitingFor(lc)) {
      const phase = path.workspace === 'initializingworkspaces' ? 'initializing' : 'terminating';
      throw forbidden(
        { group: info.group, resource: info.resource || 'logicalclusters' },
        info.name,
        `logical cluster "${info.cluster.path}" is not ${phase} with "${path.name}"`,
      );
    }
    return { resolved };
  }
}
