/**
 * Per-logical-cluster API catalogs: the built-ins every cluster shares plus the custom resources of that cluster's
 * Established CRDs. Nothing is loaded at start-up and idle clusters cost nothing: a cluster's CRDs are read (one
 * prefix scan of that cluster) the first time a request or controller needs them and kept in a bounded LRU. One
 * storage watch for the whole server keeps cached clusters current (listeners run inside the commit, so a CRD's
 * create answer is already served by the next request). A catalog's revision is a content hash, so clusters holding
 * the same CRDs share cached OpenAPI documents, and their compiled types (schema validators) are shared too.
 * The `*` wildcard serves the union of every cluster's custom resources (wildcard-types.ts); it is the one reader
 * that needs every cluster's CRDs, so it scans them when a wildcard request comes and keeps that until a CRD changes.
 *
 * Catalogs are snapshots, but a watch outlives the request that found its type: `watchRemoval` tells a watch when
 * the type it streams stops being served (its CRD deleted, or the version no longer served), so it can end the way
 * kube ends watches on a torn-down CRD.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { StaticCatalog, type ClusterCatalog } from '../registry/catalog.js';
import type { ResourceType } from '../registry/types.js';
import { annotationsText } from '../registry/stored-object.js';
import { hasKeys, type Store, type WatchHandle } from '../storage/store.js';
import { customResourceTypes } from './cr-types.js';
import { CRD_GROUP, isEstablished, type CustomResourceDefinition } from './crd.js';
import { APIS_ANNOTATION, ROOT_CLUSTER } from '../machinery/kcp-names.js';
import { servedShape, wildcardTypes, type ServedShape } from './wildcard-types.js';

const crdPrefix = `/registry/${CRD_GROUP}/customresourcedefinitions/`;
const logicalClustersPrefix = '/registry/core.kcp.io/logicalclusters/';

/** Clusters whose CRDs and catalog stay in memory. */
const CACHED_CLUSTERS = 1024;
/** Distinct CRD definitions whose compiled types are kept (shared by every cluster that holds the same CRD). */
const CACHED_DEFINITIONS = 512;

export type CRDListener = (cluster: string, crd: CustomResourceDefinition, deleted: boolean) => void;

/** A watch waiting to hear that its type went away. */
interface RemovalWatch {
  version: string;
  namespaced: boolean;
  onGone: () => void;
}

interface ClusterEntry {
  /** The built-in API set this cluster serves (by its type). */
  base: ClusterCatalog;
  /** CRD name (`<plural>.<group>`) → stored CRD */
  crds: Map<string, CustomResourceDefinition>;
  catalog?: ClusterCatalog;
}

/**
 * Resources a cluster serves through APIBindings (apis/bound-apis.ts): layered next to its CRDs, owning their
 * group/resource there (a CRD of the same group/resource in that cluster is refused by the naming rules and never
 * served in its place).
 */
export interface BoundTypes {
  /** The cluster's bound types and a content hash of them (undefined: nothing bound). */
  typesIn(cluster: string): { hash: string; types: ResourceType[] } | undefined;
  /** False when the cluster has no bound types (true may still find none). */
  mayBindIn(cluster: string): boolean;
  /** Called inside the commit of a binding change with the `<plural>.<group>` names it bound before or after. */
  onChange(listener: (cluster: string, resources: string[]) => void): void;
  /** Bound resources at the `*` wildcard (`<resource>:<identityHash>`), and a content hash of them. */
  wildcardTypes?(): { hash: string; types: ResourceType[] } | undefined;
}

/** The built-in API set of a cluster, and the widest one (for the wildcard). */
export interface BaseCatalogs {
  baseFor(cluster: string): ClusterCatalog;
  widest(): ClusterCatalog;
  /** The widest set a cluster other than root may serve. */
  widestBelowRoot(): ClusterCatalog;
}

interface WildcardView {
  /** cluster → its CRDs */
  crds: Map<string, Map<string, CustomResourceDefinition>>;
  /** CRD name → clusters that have one by that name */
  clustersByName: Map<string, Set<string>>;
  catalog?: ClusterCatalog;
  /** The bound wildcard types the catalog was built with. */
  bound?: { hash: string; types: ResourceType[] };
}

export class CRDCatalogs {
  private readonly clusters = new LRUCache<string, ClusterEntry>({ max: CACHED_CLUSTERS });
  private readonly definitions = new LRUCache<string, ResourceType[]>({ max: CACHED_DEFINITIONS });
  private wildcard: WildcardView | undefined;
  private watch?: WatchHandle;
  private readonly listeners: CRDListener[] = [];
  /** `<cluster or *>|<plural>.<group>` → watches on that resource. */
  private readonly removalWatches = new Map<string, Set<RemovalWatch>>();

  private lcWatch?: WatchHandle;

  constructor(
    private readonly store: Store,
    private readonly bases: BaseCatalogs,
    private readonly bound?: BoundTypes,
  ) {}

  /** Follows CRD changes from now on (nothing is read up front). */
  start(): void {
    const from = this.store.currentRevision();
    this.watch = this.store.watch(crdPrefix, from, (events) => {
      for (const e of events) this.changed(e.key, e.value, e.type === 'DELETED');
    });
    // A cluster's built-in API set follows its LogicalCluster's API annotation: forget a cached cluster when that
    // may have changed (not on every status or finalizer update: a cluster being deleted would rebuild for nothing).
    this.lcWatch = this.store.watch(logicalClustersPrefix, from, (events) => {
      for (const e of events) {
        if (e.type === 'MODIFIED' && e.prevValue !== undefined && sameApis(e.value, e.prevValue)) continue;
        this.clusters.delete(e.key.slice(logicalClustersPrefix.length).split('/')[0]!);
      }
    });
    this.bound?.onChange((cluster, resources) => {
      const entry = this.clusters.peek(cluster);
      if (entry) entry.catalog = undefined;
      for (const name of resources) this.notifyRemovals(cluster, name, undefined);
    });
  }

  stop(): void {
    this.watch?.cancel();
    this.lcWatch?.cancel();
  }

  /** Called (inside the storage commit) for every CRD change; listeners must only queue work. */
  onChange(listener: CRDListener): void {
    this.listeners.push(listener);
  }

  crdsOf(cluster: string): CustomResourceDefinition[] {
    return [...this.entry(cluster).crds.values()];
  }

  catalogFor = (cluster: string): ClusterCatalog => {
    if (cluster === '*') {
      const view = this.wildcardView();
      const bound = this.bound?.wildcardTypes?.();
      if (view.catalog && view.bound !== bound) view.catalog = undefined;
      view.bound = bound;
      return (view.catalog ??= this.buildWildcard(view));
    }
    const entry = this.entry(cluster);
    return (entry.catalog ??= this.build(entry.base, [...entry.crds.values()], this.bound?.typesIn(cluster)));
  };

  /**
   * A catalog of every type `cluster` may hold objects of, for finding them all (its deletion): the cluster's own
   * when it has CRDs or bound APIs (or is root), else the widest built-in set below root, found without reading its
   * LogicalCluster for its API set (a cluster holds no objects of built-in types it does not serve).
   */
  contentCatalogFor(cluster: string): ClusterCatalog {
    if (cluster === ROOT_CLUSTER) return this.catalogFor(cluster);
    const cached = this.clusters.peek(cluster);
    const hasCRDs = cached ? cached.crds.size > 0 : hasKeys(this.store, `${crdPrefix}${cluster}/`);
    return hasCRDs || this.bound?.mayBindIn(cluster) ? this.catalogFor(cluster) : this.bases.widestBelowRoot();
  }

  /** How `cluster` serves group/version/resource from a CRD or a binding right now (undefined: it does not). */
  servedIn(cluster: string, group: string, version: string, resource: string): ServedShape | undefined {
    const bound = this.bound?.typesIn(cluster)?.types.find((rt) => rt.group === group && rt.version === version && rt.resource === resource);
    if (bound) return { namespaced: bound.namespaced };
    const crd = this.entry(cluster).crds.get(`${resource}.${group}`);
    return crd ? servedShape(crd, version, resource) : undefined;
  }

  /**
   * Calls `onGone` (once, outside any storage commit) when `cluster` (`*`: every cluster) stops serving the custom
   * resource `rt`. Returns the unsubscribe. Built-in types never go away, so this is a no-op for them.
   */
  watchRemoval(cluster: string, rt: ResourceType, onGone: () => void): () => void {
    // Built-in types (tenancy's CRD-shaped ones included) come with the cluster and never go away.
    const base = cluster === '*' ? this.bases.widest() : this.entry(cluster).base;
    if (!rt.isCustomResource || base.find(rt.group, rt.version, rt.resource)) return () => {};
    const key = `${cluster}|${rt.resource}.${rt.group}`;
    const entry: RemovalWatch = { version: rt.version, namespaced: rt.namespaced, onGone };
    let set = this.removalWatches.get(key);
    if (!set) this.removalWatches.set(key, (set = new Set()));
    set.add(entry);
    const unsubscribe = () => {
      const current = this.removalWatches.get(key);
      current?.delete(entry);
      if (current?.size === 0) this.removalWatches.delete(key);
    };
    // The type may have gone between the request's catalog lookup and now.
    if (!this.stillServed(cluster, rt.group, rt.resource, entry)) {
      unsubscribe();
      queueMicrotask(onGone);
    }
    return unsubscribe;
  }

  /** A cluster's CRDs: from the cache, or one prefix scan of that cluster. */
  private entry(cluster: string): ClusterEntry {
    let entry = this.clusters.get(cluster);
    if (!entry) {
      entry = { base: this.bases.baseFor(cluster), crds: new Map() };
      for (const kv of this.store.list(`${crdPrefix}${cluster}/`).items) {
        entry.crds.set(kv.key.slice(crdPrefix.length + cluster.length + 1), JSON.parse(kv.value) as CustomResourceDefinition);
      }
      this.clusters.set(cluster, entry);
    }
    return entry;
  }

  private changed(key: string, value: string, deleted: boolean): void {
    const rest = key.slice(crdPrefix.length);
    const slash = rest.indexOf('/');
    if (slash < 0) return;
    const cluster = rest.slice(0, slash);
    const name = rest.slice(slash + 1);
    const crd = JSON.parse(value) as CustomResourceDefinition;
    // Only clusters already in memory are updated; the others read the change when they are next needed.
    const entry = this.clusters.peek(cluster);
    if (entry) {
      if (deleted) entry.crds.delete(name);
      else entry.crds.set(name, crd);
      entry.catalog = undefined;
    }
    const view = this.wildcard;
    this.wildcard = undefined;
    this.notifyRemovals(cluster, name, view);
    for (const listener of this.listeners) listener(cluster, crd, deleted);
  }

  /**
   * Ends the watches whose type this CRD change took away (the cluster's own and the wildcard's). `before` is the
   * wildcard view from before the change, if one was built: the clusters that could still serve the resource.
   */
  private notifyRemovals(cluster: string, name: string, before: WildcardView | undefined): void {
    const dot = name.indexOf('.');
    const resource = name.slice(0, dot);
    const group = name.slice(dot + 1);
    for (const target of [cluster, '*']) {
      const key = `${target}|${name}`;
      const set = this.removalWatches.get(key);
      if (!set) continue;
      for (const entry of [...set]) {
        if (this.stillServed(target, group, resource, entry, before)) continue;
        set.delete(entry);
        // Not inside the storage commit that is delivering this CRD event.
        queueMicrotask(entry.onGone);
      }
      if (set.size === 0) this.removalWatches.delete(key);
    }
  }

  private stillServed(cluster: string, group: string, resource: string, entry: RemovalWatch, before?: WildcardView): boolean {
    const same = (shape: ServedShape | undefined) => shape !== undefined && shape.namespaced === entry.namespaced;
    if (cluster !== '*') return same(this.servedIn(cluster, group, entry.version, resource));
    const holders = (before ?? this.wildcardView()).clustersByName.get(`${resource}.${group}`) ?? [];
    for (const holder of holders) {
      if (same(this.servedIn(holder, group, entry.version, resource))) return true;
    }
    return false;
  }

  /** The compiled types of one CRD, shared by every cluster holding an identical definition. */
  private typesOf(crd: CustomResourceDefinition): { hash: string; types: ResourceType[] } {
    const hash = createHash('sha256')
      .update(JSON.stringify([crd.metadata?.name, crd.spec, crd.status?.acceptedNames, !!crd.metadata?.deletionTimestamp]))
      .digest('hex');
    let types = this.definitions.get(hash);
    if (!types) this.definitions.set(hash, (types = customResourceTypes(crd)));
    return { hash, types };
  }

  private build(base: ClusterCatalog, crds: CustomResourceDefinition[], bound?: { hash: string; types: ResourceType[] }): ClusterCatalog {
    const established = crds.filter(isEstablished).sort((a, b) => (a.metadata!.name! < b.metadata!.name! ? -1 : 1));
    if (established.length === 0 && !bound) return base;
    const revision = createHash('sha256');
    const custom: ResourceType[] = [...(bound?.types ?? [])];
    // One owner per group/resource: a binding's resource is never also served from a CRD of the cluster.
    const boundResources = new Set(custom.map((rt) => `${rt.resource}.${rt.group}`));
    for (const crd of established) {
      if (boundResources.has(`${crd.status?.acceptedNames?.plural ?? crd.spec.names.plural}.${crd.spec.group}`)) continue;
      const { hash, types } = this.typesOf(crd);
      revision.update(hash);
      custom.push(...types);
    }
    const boundPart = bound ? `+bound-${bound.hash}` : '';
    return new StaticCatalog(this.merge(base, custom), `${base.revision}+crd-${revision.digest('hex').slice(0, 24)}${boundPart}`);
  }

  /** Custom types never shadow a built-in group/version/resource. */
  private merge(base: ClusterCatalog, custom: ResourceType[]): ResourceType[] {
    const builtins = base.resourceTypes();
    const builtin = new Set(builtins.map((rt) => `${rt.group}/${rt.version}/${rt.resource}`));
    return [...builtins, ...custom.filter((rt) => !builtin.has(`${rt.group}/${rt.version}/${rt.resource}`))];
  }

  /** Every cluster's CRDs, read once per change of any CRD, and only when a wildcard request needs them. */
  private wildcardView(): WildcardView {
    if (this.wildcard) return this.wildcard;
    const view: WildcardView = { crds: new Map(), clustersByName: new Map() };
    for (const kv of this.store.list(crdPrefix).items) {
      const rest = kv.key.slice(crdPrefix.length);
      const slash = rest.indexOf('/');
      const cluster = rest.slice(0, slash);
      const name = rest.slice(slash + 1);
      let own = view.crds.get(cluster);
      if (!own) view.crds.set(cluster, (own = new Map()));
      own.set(name, JSON.parse(kv.value) as CustomResourceDefinition);
      let holders = view.clustersByName.get(name);
      if (!holders) view.clustersByName.set(name, (holders = new Set()));
      holders.add(cluster);
    }
    return (this.wildcard = view);
  }

  /**
   * The wildcard serves every GVR some cluster serves from an Established CRD. Which clusters' objects a wildcard
   * read returns is decided per object, live (`servedIn`), because the catalog is cached while CRDs come and go.
   */
  private buildWildcard(view: WildcardView): ClusterCatalog {
    const hash = createHash('sha256');
    const representatives: CustomResourceDefinition[] = [];
    for (const cluster of [...view.crds.keys()].sort()) {
      for (const [name, crd] of [...view.crds.get(cluster)!.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
        if (!isEstablished(crd)) continue;
        hash.update(JSON.stringify([cluster, name, crd.spec.versions.map((v) => [v.name, v.served]), crd.spec.scope]));
        representatives.push(crd);
      }
    }
    const base = this.bases.widest();
    const bound = view.bound;
    if (representatives.length === 0 && !bound) return base;
    // Per-object checks read the current view, so a wildcard list sees CRD changes made after the catalog was built.
    const custom = wildcardTypes(representatives, (cluster, group, version, resource) => {
      const crd = this.wildcardView().crds.get(cluster)?.get(`${resource}.${group}`);
      return crd ? servedShape(crd, version, resource) : undefined;
    });
    const boundPart = bound ? `+bound-${bound.hash}` : '';
    return new StaticCatalog(this.merge(base, [...custom, ...(bound?.types ?? [])]), `${base.revision}+wildcard-${hash.digest('hex').slice(0, 24)}${boundPart}`);
  }
}

/**
 * Whether two stored LogicalClusters carry the same API-set annotation. Unchanged annotations (the text compared,
 * unparsed) are the usual case: a cluster being deleted has two updates that touch only its deletion state.
 */
function sameApis(value: string, prevValue: string): boolean {
  const annotations = annotationsText(value);
  if (annotations !== undefined && annotations === annotationsText(prevValue)) return true;
  return apisOf(value) === apisOf(prevValue);
}

/** A stored LogicalCluster's API-set annotation. */
function apisOf(value: string): string | undefined {
  return (JSON.parse(value) as { metadata?: { annotations?: Record<string, string> } }).metadata?.annotations?.[APIS_ANNOTATION];
}
