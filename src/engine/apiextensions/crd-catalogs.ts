/**
 * Per-logical-cluster API catalogs: the built-ins every cluster shares plus the custom resources of that cluster's
 * Established CRDs. CRDs are followed through one storage watch for the whole server (listeners run inside the
 * commit, so a CRD's create answer is already served by the next request). A cluster's catalog is rebuilt lazily
 * after one of its CRDs changes; its revision is a content hash, so clusters holding the same CRDs share cached
 * OpenAPI documents. The `*` wildcard serves the union of every cluster's custom resources (wildcard-types.ts).
 *
 * Catalogs are snapshots, but a watch outlives the request that found its type: `watchRemoval` tells a watch when
 * the type it streams stops being served (its CRD deleted, or the version no longer served), so it can end the way
 * kube ends watches on a torn-down CRD.
 */
import { createHash } from 'node:crypto';
import { StaticCatalog, type ClusterCatalog } from '../registry/catalog.js';
import type { ResourceType } from '../registry/types.js';
import type { Store, WatchHandle } from '../storage/store.js';
import { customResourceTypes } from './cr-types.js';
import { CRD_GROUP, isEstablished, type CustomResourceDefinition } from './crd.js';
import { servedShape, wildcardTypes, type ServedShape } from './wildcard-types.js';

const crdPrefix = `/registry/${CRD_GROUP}/customresourcedefinitions/`;

export type CRDListener = (cluster: string, crd: CustomResourceDefinition, deleted: boolean) => void;

/** A watch waiting to hear that its type went away. */
interface RemovalWatch {
  version: string;
  namespaced: boolean;
  onGone: () => void;
}

export class CRDCatalogs {
  /** cluster → CRD name → stored CRD */
  private readonly crds = new Map<string, Map<string, CustomResourceDefinition>>();
  /** CRD name (`<plural>.<group>`) → clusters that have one by that name (for the wildcard). */
  private readonly clustersByName = new Map<string, Set<string>>();
  private readonly catalogs = new Map<string, ClusterCatalog>();
  private wildcard: ClusterCatalog | undefined;
  private watch?: WatchHandle;
  private readonly listeners: CRDListener[] = [];
  /** `<cluster or *>|<plural>.<group>` → watches on that resource. */
  private readonly removalWatches = new Map<string, Set<RemovalWatch>>();

  constructor(
    private readonly store: Store,
    private readonly builtinTypes: readonly ResourceType[],
    private readonly builtinCatalog: ClusterCatalog,
  ) {}

  /** Loads every CRD and follows changes from then on. */
  start(): void {
    const list = this.store.list(crdPrefix);
    for (const kv of list.items) this.remember(kv.key, kv.value, false);
    this.watch = this.store.watch(crdPrefix, list.revision, (events) => {
      for (const e of events) this.remember(e.key, e.value, e.type === 'DELETED');
    });
  }

  stop(): void {
    this.watch?.cancel();
  }

  /** Called (inside the storage commit) for every CRD change; listeners must only queue work. */
  onChange(listener: CRDListener): void {
    this.listeners.push(listener);
  }

  crdsOf(cluster: string): CustomResourceDefinition[] {
    return [...(this.crds.get(cluster)?.values() ?? [])];
  }

  catalogFor = (cluster: string): ClusterCatalog => {
    if (cluster === '*') return (this.wildcard ??= this.buildWildcard());
    const own = this.crds.get(cluster);
    if (!own || own.size === 0) return this.builtinCatalog;
    let catalog = this.catalogs.get(cluster);
    if (!catalog) {
      catalog = this.build([...own.values()]);
      this.catalogs.set(cluster, catalog);
    }
    return catalog;
  };

  /** How `cluster` serves group/version/resource from a CRD right now (undefined: it does not). */
  servedIn(cluster: string, group: string, version: string, resource: string): ServedShape | undefined {
    const crd = this.crds.get(cluster)?.get(`${resource}.${group}`);
    return crd ? servedShape(crd, version, resource) : undefined;
  }

  /**
   * Calls `onGone` (once, outside any storage commit) when `cluster` (`*`: every cluster) stops serving the custom
   * resource `rt`. Returns the unsubscribe. Built-in types never go away, so this is a no-op for them.
   */
  watchRemoval(cluster: string, rt: ResourceType, onGone: () => void): () => void {
    if (!rt.isCustomResource) return () => {};
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

  private remember(key: string, value: string, deleted: boolean): void {
    const rest = key.slice(crdPrefix.length);
    const slash = rest.indexOf('/');
    if (slash < 0) return;
    const cluster = rest.slice(0, slash);
    const name = rest.slice(slash + 1);
    const crd = JSON.parse(value) as CustomResourceDefinition;
    let own = this.crds.get(cluster);
    let holders = this.clustersByName.get(name);
    if (deleted) {
      own?.delete(name);
      if (own?.size === 0) this.crds.delete(cluster);
      holders?.delete(cluster);
      if (holders?.size === 0) this.clustersByName.delete(name);
    } else {
      if (!own) this.crds.set(cluster, (own = new Map()));
      own.set(name, crd);
      if (!holders) this.clustersByName.set(name, (holders = new Set()));
      holders.add(cluster);
    }
    this.catalogs.delete(cluster);
    this.wildcard = undefined;
    this.notifyRemovals(cluster, name);
    for (const listener of this.listeners) listener(cluster, crd, deleted);
  }

  /** Ends the watches whose type this CRD change took away (the cluster's own and the wildcard's). */
  private notifyRemovals(cluster: string, name: string): void {
    const dot = name.indexOf('.');
    const resource = name.slice(0, dot);
    const group = name.slice(dot + 1);
    for (const target of [cluster, '*']) {
      const key = `${target}|${name}`;
      const set = this.removalWatches.get(key);
      if (!set) continue;
      for (const entry of [...set]) {
        if (this.stillServed(target, group, resource, entry)) continue;
        set.delete(entry);
        // Not inside the storage commit that is delivering this CRD event.
        queueMicrotask(entry.onGone);
      }
      if (set.size === 0) this.removalWatches.delete(key);
    }
  }

  private stillServed(cluster: string, group: string, resource: string, entry: RemovalWatch): boolean {
    const same = (shape: ServedShape | undefined) => shape !== undefined && shape.namespaced === entry.namespaced;
    if (cluster !== '*') return same(this.servedIn(cluster, group, entry.version, resource));
    for (const holder of this.clustersByName.get(`${resource}.${group}`) ?? []) {
      if (same(this.servedIn(holder, group, entry.version, resource))) return true;
    }
    return false;
  }

  private build(crds: CustomResourceDefinition[]): ClusterCatalog {
    const established = crds.filter(isEstablished).sort((a, b) => (a.metadata!.name! < b.metadata!.name! ? -1 : 1));
    if (established.length === 0) return this.builtinCatalog;
    const hash = createHash('sha256');
    const custom: ResourceType[] = [];
    for (const crd of established) {
      hash.update(JSON.stringify([crd.metadata?.name, crd.spec, crd.status?.acceptedNames, !!crd.metadata?.deletionTimestamp]));
      custom.push(...customResourceTypes(crd));
    }
    return new StaticCatalog(this.merge(custom), `${this.builtinCatalog.revision}+crd-${hash.digest('hex').slice(0, 24)}`);
  }

  /** Custom types never shadow a built-in group/version/resource. */
  private merge(custom: ResourceType[]): ResourceType[] {
    const builtin = new Set(this.builtinTypes.map((rt) => `${rt.group}/${rt.version}/${rt.resource}`));
    return [...this.builtinTypes, ...custom.filter((rt) => !builtin.has(`${rt.group}/${rt.version}/${rt.resource}`))];
  }

  /**
   * The wildcard serves every GVR some cluster serves from an Established CRD. Which clusters' objects a wildcard
   * read returns is decided per object, live (`servedIn`), because the catalog is cached while CRDs come and go.
   */
  private buildWildcard(): ClusterCatalog {
    const hash = createHash('sha256');
    const clusters = [...this.crds.keys()].sort();
    const representatives: CustomResourceDefinition[] = [];
    const seen = new Set<string>();
    for (const cluster of clusters) {
      for (const [name, crd] of [...this.crds.get(cluster)!.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
        if (!isEstablished(crd)) continue;
        hash.update(JSON.stringify([cluster, name, crd.spec.versions.map((v) => [v.name, v.served]), crd.spec.scope]));
        representatives.push(crd);
        seen.add(name);
      }
    }
    if (seen.size === 0) return this.builtinCatalog;
    const custom = wildcardTypes(representatives, (cluster, group, version, resource) =>
      this.servedIn(cluster, group, version, resource),
    );
    return new StaticCatalog(this.merge(custom), `${this.builtinCatalog.revision}+wildcard-${hash.digest('hex').slice(0, 24)}`);
  }
}
