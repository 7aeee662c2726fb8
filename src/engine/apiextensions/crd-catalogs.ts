/**
 * Per-logical-cluster API catalogs: the built-ins every cluster shares plus the custom resources of that cluster's
 * Established CRDs. CRDs are followed through one storage watch for the whole server (listeners run inside the
 * commit, so a CRD's create answer is already served by the next request). A cluster's catalog is rebuilt lazily
 * after one of its CRDs changes; its revision is a content hash, so clusters holding the same CRDs share cached
 * OpenAPI documents. The `*` wildcard serves the union of every cluster's custom resources.
 */
import { createHash } from 'node:crypto';
import { StaticCatalog, type ClusterCatalog } from '../registry/catalog.js';
import type { ResourceType } from '../registry/types.js';
import type { Store, WatchHandle } from '../storage/store.js';
import { customResourceTypes } from './cr-types.js';
import { CRD_GROUP, isEstablished, type CustomResourceDefinition } from './crd.js';

const crdPrefix = `/registry/${CRD_GROUP}/customresourcedefinitions/`;

export type CRDListener = (cluster: string, crd: CustomResourceDefinition, deleted: boolean) => void;

export class CRDCatalogs {
  /** cluster → CRD name → stored CRD */
  private readonly crds = new Map<string, Map<string, CustomResourceDefinition>>();
  private readonly catalogs = new Map<string, ClusterCatalog>();
  private wildcard: ClusterCatalog | undefined;
  private watch?: WatchHandle;
  private readonly listeners: CRDListener[] = [];

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

  private remember(key: string, value: string, deleted: boolean): void {
    const rest = key.slice(crdPrefix.length);
    const slash = rest.indexOf('/');
    if (slash < 0) return;
    const cluster = rest.slice(0, slash);
    const name = rest.slice(slash + 1);
    const crd = JSON.parse(value) as CustomResourceDefinition;
    let own = this.crds.get(cluster);
    if (deleted) {
      own?.delete(name);
      if (own?.size === 0) this.crds.delete(cluster);
    } else {
      if (!own) this.crds.set(cluster, (own = new Map()));
      own.set(name, crd);
    }
    this.catalogs.delete(cluster);
    this.wildcard = undefined;
    for (const listener of this.listeners) listener(cluster, crd, deleted);
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

  private buildWildcard(): ClusterCatalog {
    const seen = new Map<string, ResourceType>();
    const hash = createHash('sha256');
    for (const cluster of [...this.crds.keys()].sort()) {
      const catalog = this.catalogFor(cluster);
      hash.update(catalog.revision);
      for (const rt of catalog.resourceTypes()) {
        const gvr = `${rt.group}/${rt.version}/${rt.resource}`;
        if (!seen.has(gvr)) seen.set(gvr, rt);
      }
    }
    if (seen.size === 0) return this.builtinCatalog;
    return new StaticCatalog([...seen.values()], `wildcard-${hash.digest('hex').slice(0, 24)}`);
  }
}
