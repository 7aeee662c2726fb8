/**
 * The APIExport virtual workspace, how a provider's controller reaches its consumers:
 *
 *   /services/apiexport/<export workspace path or cluster>/<export>/clusters/*\/…          list/watch across consumers
 *   /services/apiexport/<export workspace path or cluster>/<export>/clusters/<consumer>/… one consumer, every verb
 *
 * It serves the export's resources in every consumer with a Bound binding (objects carry `kcp.io/cluster`, and
 * resourceVersions come from the one store, so an informer resumes across consumers), the resources the export
 * claims where consumers accepted the claim (verbs of both sides, objects within the accepted selector: every
 * request on them is served over the claim's scope, claim-scope.ts), and the consumers' APIBindings to the export,
 * read-only. A consumer without a binding is refused as kcp refuses it (403
 * "could not find suitable APIBinding in target logical cluster"), and the wildcard never shows its objects.
 *
 * Every request needs its verb on `apiexports/content` (name = the export) in the export's workspace; discovery
 * and OpenAPI need `get`. The export's owner has that through RBAC there (cluster-admin, workspace admins).
 */
import { identityInCluster } from '../../auth/foreign-identity.js';
import { forbiddenError, requestAttributes, type Authorizer } from '../../authorization/index.js';
import type { RequestAttributes } from '../../authorization/rules.js';
import type { ClusterResolver, ResolvedCluster } from '../../endpoints/cluster-resolver.js';
import type { VirtualTarget, VirtualWorkspacePath, VirtualWorkspaces } from '../../endpoints/virtual-path.js';
import type { RequestInfo } from '../../endpoints/request-info.js';
import type { UserInfo } from '../../auth/user.js';
import { resourceNotFound } from '../../endpoints/resource-handler.js';
import { StaticCatalog } from '../../registry/catalog.js';
import type { StorageScope } from '../../registry/scoped-store.js';
import type { ResourceType } from '../../registry/types.js';
import type { Store } from '../../storage/store.js';
import { exportClusterOf } from '../../apis/export-reference.js';
import { APIS_GROUP } from '../../apis/names.js';
import { bindingsScope, claimedType, claimScope, refuseDeleteOutside } from './claim-scope.js';
import type { ExportView, ExportViews, ServedAs } from './export-view.js';

export const APIEXPORT_VIRTUAL_WORKSPACE = 'apiexport';
const READ_ONLY = new Set(['get', 'list', 'watch']);

export interface APIExportWorkspaceDeps {
  store: Store;
  views: ExportViews;
  clusters: ClusterResolver;
  authorizer: Authorizer;
  /** Resolves a workspace path (`root:provider`) to its cluster name. */
  resolvePath(path: string): string | undefined;
  /**
   * Exports of other shards (replicated here): the request is authorized by the shard hosting the export, and this
   * shard serves the consumers it hosts.
   */
  remote?: {
    isRemote(cluster: string, exportName: string): boolean;
    review(cluster: string, exportName: string, user: UserInfo, attrs: RequestAttributes, deep: boolean): Promise<{ allowed: boolean; reason: string }>;
  };
  /** Undefined once other shards' exports are copied here; before (just after a start), a promise of it. */
  untilReplicaSynced?(): Promise<void> | undefined;
}

type Served = { rt: ResourceType; as: ServedAs };

export class APIExportVirtualWorkspace implements VirtualWorkspaces {
  constructor(private readonly deps: APIExportWorkspaceDeps) {}

  resolve(path: VirtualWorkspacePath, info: RequestInfo, user: UserInfo): VirtualTarget | undefined | Promise<VirtualTarget | undefined> {
    if (path.workspace !== APIEXPORT_VIRTUAL_WORKSPACE) return undefined;
    const slash = path.name.indexOf('/');
    const workspace = path.name.slice(0, slash);
    const exportName = path.name.slice(slash + 1);
    const exportCluster = exportClusterOf(workspace, '', this.deps.resolvePath) || undefined;
    const serve = () => {
      const view = exportCluster ? this.deps.views.get(exportCluster, exportName) : undefined;
      if (!view) throw resourceNotFound();
      return info.cluster.wildcard ? this.wildcard(view, info) : this.oneConsumer(view, info, user);
    };
    const remote = this.deps.remote;
    // An export known nowhere yet, right after a start, may be another shard's not copied yet: wait for the copy
    // rather than deny.
    if (!(exportCluster && (remote?.isRemote(exportCluster, exportName) || this.deps.views.get(exportCluster, exportName)))) {
      const copying = this.deps.untilReplicaSynced?.();
      if (copying) return copying.then(() => this.resolve(path, info, user));
    }
    if (exportCluster && remote?.isRemote(exportCluster, exportName)) {
      return remote.review(exportCluster, exportName, user, contentAttributes(exportName, info), false).then((decision) => {
        if (!decision.allowed) throw forbiddenError(user.username, requestAttributes(info), decision.reason);
        return serve();
      });
    }
    this.authorize(exportCluster, exportName, info, user);
    return serve();
  }

  /** `<verb>` on `apiexports/content` named like the export, in the export's workspace. */
  private authorize(exportCluster: string | undefined, exportName: string, info: RequestInfo, user: UserInfo): void {
    const attrs = contentAttributes(exportName, info);
    const decision = exportCluster ? this.deps.authorizer.authorize(exportCluster, identityInCluster(user, exportCluster), attrs) : undefined;
    if (!decision?.allowed) throw forbiddenError(user.username, requestAttributes(info), decision?.reason);
  }

  /** Across every consumer: list and watch only (the handler refuses other verbs at `*`). */
  private wildcard(view: ExportView, info: RequestInfo): VirtualTarget {
    const readVerb = info.verb === 'watch' ? 'watch' : 'list';
    const served = view
      .servedTypes(undefined)
      .map(({ rt, as }) => ({ as, rt: { ...rt, servedIn: servedInFor(view, rt, as, readVerb), ...servedClustersFor(view, as, readVerb) } }));
    const catalog = new StaticCatalog(
      served.map((s) => s.rt),
      `apiexport:${view.cluster}|${view.name}@${view.revision}|*`,
    );
    const resolved: ResolvedCluster = { cluster: undefined, catalog, baseUrl: false };
    const target = info.isResourceRequest ? findServed(served, info) : undefined;
    const scope = target ? scopeOf(view, target, readVerb, undefined) : undefined;
    return { resolved, ...(scope ? { scope } : {}), watchRemoval: noRemoval };
  }

  /** One consumer: every verb the export's resources allow; claimed ones as the consumer's claim allows. */
  private oneConsumer(view: ExportView, info: RequestInfo, user: UserInfo): VirtualTarget {
    const consumerResolved = this.deps.clusters.resolve(info.cluster, user, info);
    const consumer = consumerResolved.cluster!;
    const binding = view.bindingIn(consumer);
    // Claimed types carry the consumer's claim (its selector admission); the others are served as they are.
    const served = view.servedTypes(consumer).map((s) => {
      const claim = s.as.kind === 'claimed' && binding ? view.claimsOf(binding).get(s.as.key) : undefined;
      return claim ? { ...s, rt: claimedType(s.rt, claim) } : s;
    });
    // Bound consumers serve their own types (their catalog's revision says which); others the export's.
    const catalogRevision = binding ? consumerResolved.catalog.revision : 'unbound';
    const catalog = new StaticCatalog(
      served.map((s) => s.rt),
      `apiexport:${view.cluster}|${view.name}@${view.revision}|${catalogRevision}`,
    );
    const resolved: ResolvedCluster = { cluster: consumer, catalog, baseUrl: false };
    if (!info.isResourceRequest) return { resolved, watchRemoval: noRemoval };
    const target = findServed(served, info);
    if (!target) throw resourceNotFound();
    const attrs = requestAttributes(info);
    // kcp's virtual workspace authorizer denies a consumer without a binding to the export (403, not 404).
    if (!binding) throw forbiddenError(user.username, attrs, 'could not find suitable APIBinding in target logical cluster');
    if (target.as.kind === 'apibindings' && !READ_ONLY.has(info.verb)) {
      throw forbiddenError(user.username, attrs, 'write access to APIBinding is not allowed from virtual workspace');
    }
    // A claim not accepted, or accepted without this verb: kcp's authorizer finds no reason to allow the request.
    if (target.as.kind === 'claimed' && !view.claimFor(consumer, target.as.key, info.verb)) {
      throw forbiddenError(user.username, attrs, 'failed to find suitable reason to allow access in APIBinding');
    }
    const scope = scopeOf(view, target, info.verb, consumer);
    if (scope && target.as.kind === 'claimed' && info.verb === 'delete' && info.name) {
      refuseDeleteOutside(this.deps.store, scope, target.rt, consumer, info.namespace, info.name);
    }
    return { resolved, ...(scope ? { scope } : {}), watchRemoval: noRemoval };
  }
}

/** What the export's workspace must allow: the request's verb (`get` for discovery) on `apiexports/content`. */
function contentAttributes(exportName: string, info: RequestInfo): RequestAttributes {
  return {
    verb: info.isResourceRequest ? info.verb : 'get',
    resourceRequest: true,
    apiGroup: APIS_GROUP,
    resource: 'apiexports',
    subresource: 'content',
    name: exportName,
    namespace: '',
    path: '',
  };
}

/** Watches here end when the client or server does; the export's types do not vanish under them mid-request. */
const noRemoval = () => () => {};

function findServed(served: readonly Served[], info: RequestInfo): Served | undefined {
  return served.find(({ rt }) => rt.group === info.group && rt.version === info.version && rt.resource === info.resource);
}

/**
 * Which consumers' objects a wildcard read of `rt` includes (asked per stored key, so only map lookups). The export's
 * own resources need no check, as in kcp: only bindings create objects under the export's identity, and a binding
 * being deleted takes its objects along, whose deletions watches must see.
 */
function servedInFor(view: ExportView, rt: ResourceType, as: ServedAs, verb: string): ResourceType['servedIn'] {
  const shape = { namespaced: rt.namespaced };
  if (as.kind === 'bound') return undefined;
  if (as.kind === 'claimed') return (cluster) => (view.claimFor(cluster, as.key, verb) ? shape : undefined);
  return (cluster) => (view.bindingIn(cluster) ? shape : undefined);
}

/**
 * Which consumers a wildcard list of a claimed resource or of APIBindings reads at all: those in the bindings index
 * with the claim accepted (or Bound), so the read costs their objects, never every workspace's. The export's own
 * resources live only in its consumers under its identity already, and a list must still show the objects of a
 * binding being deleted (gone from the index) until they go.
 */
function servedClustersFor(view: ExportView, as: ServedAs, verb: string): Pick<ResourceType, 'servedClusters'> {
  if (as.kind === 'bound') return {};
  const consumers = () => view.boundConsumers().keys();
  if (as.kind === 'apibindings') return { servedClusters: consumers };
  return { servedClusters: () => [...consumers()].filter((cluster) => view.claimFor(cluster, as.key, verb) !== undefined) };
}

/**
 * What a request on a served type may reach of the store: a claimed resource's objects as the claim allows, the
 * APIBindings that bind this export; the export's own resources need none (only its bindings store objects under
 * its identity, and a one-consumer request reaches only that consumer's keys).
 */
function scopeOf(view: ExportView, target: Served, verb: string, consumer: string | undefined): StorageScope | undefined {
  if (target.as.kind === 'claimed') return claimScope(view, target.rt, target.as.key, verb, consumer);
  if (target.as.kind === 'apibindings') return bindingsScope(view, target.rt, consumer);
  return undefined;
}
