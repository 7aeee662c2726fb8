/**
 * The initializing and terminating virtual workspaces, served in-process under /services:
 *
 *   /services/initializingworkspaces/<initializer>/clusters/*\/apis/core.kcp.io/v1alpha1/logicalclusters
 *     list/watch of the LogicalClusters still waiting for that initializer, across every workspace (one that stops
 *     waiting leaves a watch with a DELETED event, as with a label selector);
 *   /services/initializingworkspaces/<initializer>/clusters/<cluster>/…
 *     the workspace being initialized: its LogicalCluster, read-only except that the initializer may remove itself
 *     (and only itself) from status.initializers, which lets the workspace turn Ready; and its content;
 *
 * and the same under /services/terminatingworkspaces/<terminator>/ for workspaces being deleted. A workspace not
 * waiting on that initializer (terminator) is out of reach, with kcp's answers: its LogicalCluster is NotFound,
 * anything else is Forbidden.
 *
 * Everything here needs the verb `initialize` (`terminate`) on the WorkspaceType `<path>:<name>` names, in that
 * type's workspace; requests into a workspace's content must further fit the type's `initializerPermissions`
 * (`terminatorPermissions`) when it lists any.
 */
import type { ResolvedCluster, ClusterResolver } from '../endpoints/cluster-resolver.js';
import type { RequestInfo } from '../endpoints/request-info.js';
import type { UserInfo } from '../auth/user.js';
import type { VirtualWorkspacePath, VirtualWorkspaces } from '../endpoints/virtual-path.js';
import { forbiddenError, requestAttributes } from '../authorization/forbidden.js';
import { ruleAllows, normalizeRules } from '../authorization/rules.js';
import { notFound, StatusError } from '../machinery/status.js';
import { StaticCatalog, type ClusterCatalog } from '../registry/catalog.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import type { Store } from '../storage/store.js';

interface Lifecycle {
  /** The LogicalCluster list this phase's controllers act on. */
  listField: 'initializers' | 'terminators';
  /** `initializer` or `terminator`, as kcp's messages say it. */
  role: string;
  /** The verb on the WorkspaceType that opens this virtual workspace. */
  verb: 'initialize' | 'terminate';
  /** The WorkspaceType field limiting what the initializer (terminator) may do inside a workspace. */
  permissionsField: 'initializerPermissions' | 'terminatorPermissions';
  /** Whether a LogicalCluster is in that phase. */
  inPhase(lc: KubeObject): boolean;
}

const lifecycles: Record<string, Lifecycle> = {
  initializingworkspaces: {
    listField: 'initializers',
    role: 'initializer',
    verb: 'initialize',
    permissionsField: 'initializerPermissions',
    inPhase: (lc) => (lc.status as { phase?: string } | undefined)?.phase === 'Initializing' && !lc.metadata?.deletionTimestamp,
  },
  terminatingworkspaces: {
    listField: 'terminators',
    role: 'terminator',
    verb: 'terminate',
    permissionsField: 'terminatorPermissions',
    inPhase: (lc) => Boolean(lc.metadata?.deletionTimestamp),
  },
};

function namesIn(obj: KubeObject | undefined, field: Lifecycle['listField']): string[] | undefined {
  const value = (obj?.status as Record<string, unknown> | undefined)?.[field];
  return Array.isArray(value) ? (value as string[]) : undefined;
}

/**
 * The LogicalCluster type as this virtual workspace serves it: get, list and watch, and its status subresource. What a
 * status write may change is the write authority's rule for the grant the request carries (admission/write-authority.ts):
 * removing exactly this initializer (terminator), as kcp's update validation allows. Other writes are not served (405).
 */
function lifecycleLogicalClusters(base: ResourceType): ResourceType {
  return { ...base, verbs: ['get', 'list', 'watch'] };
}

/** A cluster's catalog with its LogicalCluster type replaced by the virtual workspace's restricted one. */
class LifecycleCatalog implements ClusterCatalog {
  readonly revision: string;

  constructor(
    private readonly base: ClusterCatalog,
    private readonly logicalClusters: ResourceType,
  ) {
    this.revision = `${base.revision}+lifecycle-vw`;
  }

  resourceTypes(): readonly ResourceType[] {
    return this.base.resourceTypes().map((rt) => this.swap(rt)!);
  }

  find(group: string, version: string, resource: string): ResourceType | undefined {
    return this.swap(this.base.find(group, version, resource));
  }

  groups() {
    return this.base.groups();
  }

  private swap(rt: ResourceType | undefined): ResourceType | undefined {
    return rt && rt.storagePrefix === this.logicalClusters.storagePrefix && rt.version === this.logicalClusters.version ? this.logicalClusters : rt;
  }
}

export interface LifecycleWorkspacesDeps {
  store: Store;
  clusters: ClusterResolver;
  logicalClusters: ResourceType;
  /** Whether RBAC in `cluster` lets the user `verb` the WorkspaceType `name`. */
  mayOnWorkspaceType(user: UserInfo, verb: string, cluster: string, name: string): boolean;
  /** The WorkspaceType `<path>:<name>` names and the cluster it lives in, if it exists. */
  workspaceType(path: string, name: string): { cluster: string; type: KubeObject | undefined } | undefined;
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
    const type = this.authorize(lifecycle, path.name, info, user);
    const waitingFor = (lc: KubeObject) => lifecycle.inPhase(lc) && (namesIn(lc, lifecycle.listField) ?? []).includes(path.name);
    if (info.cluster.wildcard) {
      const resolved: ResolvedCluster = { cluster: undefined, catalog: this.wildcardCatalog, baseUrl: false };
      return { resolved, filter: waitingFor };
    }
    // A single workspace: reachable while it waits on this initializer (terminator).
    const resolved = this.deps.clusters.resolve(info.cluster, user, info);
    const kv = resolved.cluster ? this.deps.store.get(`/registry/core.kcp.io/logicalclusters/${resolved.cluster}/cluster`) : undefined;
    const lc = kv ? (JSON.parse(kv.value) as KubeObject) : undefined;
    const waiting = lc !== undefined && waitingFor(lc);
    const aboutLogicalCluster = info.isResourceRequest && info.group === 'core.kcp.io' && info.resource === 'logicalclusters';
    if (!waiting) {
      // kcp filters the LogicalCluster by the lifecycle's labels (so it is not found) and refuses its content proxy.
      if (aboutLogicalCluster && info.name) throw notFound({ group: 'core.kcp.io', resource: 'logicalclusters' }, info.name);
      if (!aboutLogicalCluster) throw new StatusError(403, 'Forbidden', `${lifecycle.role} "${path.name}" cannot access this workspace`, {});
    }
    if (!aboutLogicalCluster) {
      const limits = normalizeRules((type?.spec as Record<string, unknown> | undefined)?.[lifecycle.permissionsField]);
      const attrs = requestAttributes(info);
      if (limits.length > 0 && !limits.some((rule) => ruleAllows(rule, attrs))) throw forbiddenError(user.username, attrs);
    }
    const catalog = new LifecycleCatalog(resolved.catalog, lifecycleLogicalClusters(this.deps.logicalClusters));
    return {
      resolved: { cluster: resolved.cluster, baseUrl: resolved.baseUrl, catalog },
      grant: { lifecycle: { list: lifecycle.listField, name: path.name } },
      ...(aboutLogicalCluster ? { filter: waitingFor } : {}),
    };
  }

  /** `initialize` (`terminate`) on the type the URL names, in its workspace; returns the type. */
  private authorize(lifecycle: Lifecycle, name: string, info: RequestInfo, user: UserInfo): KubeObject | undefined {
    const at = name.lastIndexOf(':');
    const found = at > 0 ? this.deps.workspaceType(name.slice(0, at), name.slice(at + 1)) : undefined;
    if (user.groups.includes('system:masters')) return found?.type;
    if (!found || !this.deps.mayOnWorkspaceType(user, lifecycle.verb, found.cluster, name.slice(at + 1))) {
      throw forbiddenError(user.username, requestAttributes(info));
    }
    return found.type;
  }
}
