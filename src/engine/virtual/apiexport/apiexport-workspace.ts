/**
 * The APIExport virtual workspace (kcp-reference §2), how a provider's controller reaches its consumers:
 *
 *   /services/apiexport/<export workspace path or cluster>/<export>/clusters/*\/…          list/watch across consumers
 *   /services/apiexport/<export workspace path or cluster>/<export>/clusters/<consumer>/… one consumer, every verb
 *
 * It serves the export's resources in every consumer with a Bound binding (objects carry `kcp.io/cluster`, and
 * resourceVersions come from the one store, so an informer resumes across consumers), the resources the export
 * claims where consumers accepted the claim (verbs of both sides, objects within the accepted selector), and the
 * consumers' APIBindings to the export, read-only. A consumer without a binding is refused as kcp refuses it (403
 * "could not find suitable APIBinding in target logical cluster"), and the wildcard never shows its objects.
 *
 * Every request needs its verb on `apiexports/content` (name = the export) in the export's workspace; discovery
 * and OpenAPI need `get`. The export's owner has that through RBAC there (cluster-admin, workspace admins).
 */
import { identityInCluster } from '../../auth/foreign-identity.js';
import { forbiddenError, requestAttributes, type Authorizer } from '../../authorization/index.js';
import type { RequestAttributes } from '../../authorization/rules.js';
import type { ClusterResolver, ResolvedCluster } from '../../endpoints/cluster-resolver.js';
import type { VirtualTarget, VirtualWorkspacePath, VirtualWorkspaces } from '../../endpoints/api-router.js';
import type { RequestInfo } from '../../endpoints/request-info.js';
import { resourceNotFound, type UserInfo } from '../../endpoints/resource-handler.js';
import { notFound } from '../../machinery/status.js';
import { StaticCatalog } from '../../registry/catalog.js';
import { objectKey } from '../../registry/stored-object.js';
import type { KubeObject, ResourceType } from '../../registry/types.js';
import type { Store } from '../../storage/store.js';
import { exportClusterOf } from '../../apis/export-reference.js';
import { APIS_GROUP } from '../../apis/names.js';
import { clusterOf, type ExportView, type ExportViews, type ServedAs } from './export-view.js';

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
    const filter = target ? objectFilter(view, target.as, readVerb, undefined) : undefined;
    return { resolved, ...(filter ? { filter } : {}), watchRemoval: noRemoval };
  }

  /** One consumer: every verb the export's resources allow; claimed ones as the consumer's claim allows. */
  private oneConsumer(view: ExportView, info: RequestInfo, user: UserInfo): VirtualTarget {
    const consumerResolved = this.deps.clusters.resolve(info.cluster, user, info);
    const consumer = consumerResolved.cluster!;
    const served = view.servedTypes(consumer);
    // Bound consumers serve their own types (their catalog's revision says which); others the export's.
    const catalogRevision = view.bindingIn(consumer) ? consumerResolved.catalog.revision : 'unbound';
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
    if (!view.bindingIn(consumer)) throw forbiddenError(user.username, attrs, 'could not find suitable APIBinding in target logical cluster');
    if (target.as.kind === 'apibindings' && !READ_ONLY.has(info.verb)) {
      throw forbiddenError(user.username, attrs, 'write access to APIBinding is not allowed from virtual workspace');
    }
    let filter: ((obj: KubeObject) => boolean) | undefined;
    if (target.as.kind === 'claimed') {
      const claim = view.claimFor(consumer, target.as.key, info.verb);
      if (!claim) {
        // Accepted, but not for this verb: refused as kcp does; not accepted (rejected, unanswered): not served.
        if (anyVerbInForce(view, consumer, target.as.key)) {
          throw forbiddenError(user.username, attrs, 'failed to find suitable reason to allow access in APIBinding');
        }
        throw resourceNotFound();
      }
      filter = objectFilter(view, target.as, info.verb, consumer);
      // A named object outside the accepted selector is not there for the provider.
      if (info.name && info.verb !== 'create' && filter) {
        const kv = this.deps.store.get(objectKey(target.rt, consumer, target.rt.namespaced ? info.namespace : '', info.name));
        if (kv && !filter(JSON.parse(kv.value) as KubeObject)) throw notFound(target.rt, info.name);
      }
    } else if (target.as.kind === 'apibindings') {
      filter = (obj) => view.references(obj);
      if (info.name) {
        const kv = this.deps.store.get(objectKey(target.rt, consumer, '', info.name));
        if (kv && !view.references(JSON.parse(kv.value) as KubeObject)) throw notFound(target.rt, info.name);
      }
    }
    return { resolved, ...(filter ? { filter } : {}), watchRemoval: noRemoval };
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

/** The per-object part: a claim's selector, or an APIBinding that binds this export. */
function objectFilter(view: ExportView, as: ServedAs, verb: string, consumer: string | undefined): ((obj: KubeObject) => boolean) | undefined {
  if (as.kind === 'apibindings') return (obj) => view.references(obj);
  if (as.kind !== 'claimed') return undefined;
  return (obj) => {
    const cluster = consumer ?? clusterOf(obj);
    const claim = cluster !== undefined ? view.claimFor(cluster, as.key, verb) : undefined;
    return claim !== undefined && claim.selects(obj.metadata?.labels);
  };
}

function anyVerbInForce(view: ExportView, consumer: string, key: string): boolean {
  const binding = view.bindingIn(consumer);
  return binding !== undefined && view.claimsOf(binding).has(key);
}
