/**
 * Reading ResourceQuotas and measuring what they count, straight from storage: the quotas of one namespace are one
 * index range read (`/registry/core/resourcequotas/<cluster>/<namespace>/`), and an object count is one index range
 * count of the resource's objects in that namespace. Shared by quota admission and the quota controller, so both
 * always agree on a number. Nothing is cached here: a namespace without quotas costs one empty index range count per
 * create, which the SQLite store answers from its empty-prefix memory (storage/empty-prefixes.ts) after the first.
 */
import { record } from '../machinery/field-values.js';
import { countedResource, formatCount, hasScopes, isIgnoredByQuota, resourceList, type ResourceList } from '../machinery/quota-names.js';
import type { GroupResource } from '../machinery/status.js';
import type { ClusterCatalog } from '../registry/catalog.js';
import { decodeStored } from '../registry/stored-object.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import type { KeyValue, Store } from '../storage/store.js';

export interface StoredQuota {
  kv: KeyValue;
  quota: KubeObject;
}

export interface QuotaStatus {
  hard: ResourceList;
  used: ResourceList;
}

export class QuotaUsage {
  constructor(
    private readonly store: Store,
    /** The ResourceQuota type (for its storage prefix). */
    readonly quotaType: ResourceType,
    private readonly catalogFor: (cluster: string) => ClusterCatalog,
  ) {}

  /** Key prefix of one namespace's quotas. */
  quotaPrefix(cluster: string, namespace: string): string {
    return `/registry/${this.quotaType.storagePrefix}/${cluster}/${namespace}/`;
  }

  /** Whether the namespace has any quota: one index range count, the whole cost of quotas for most writes. */
  hasQuotas(cluster: string, namespace: string): boolean {
    return this.store.count(this.quotaPrefix(cluster, namespace)) > 0;
  }

  /** The namespace's quotas, in name order. */
  quotasIn(cluster: string, namespace: string): StoredQuota[] {
    return this.store.list(this.quotaPrefix(cluster, namespace)).items.map((kv) => ({ kv, quota: decodeStored(kv) }));
  }

  /** How many objects of a stored resource type sit in the namespace. */
  countStored(rt: ResourceType, cluster: string, namespace: string): number {
    if (!rt.namespaced || rt.virtualCreate || isIgnoredByQuota(rt)) return 0;
    return this.store.count(`/registry/${rt.storagePrefix}/${cluster}/${namespace}/`);
  }

  /** How many objects of `gr` the namespace holds; 0 when the cluster does not serve it (no evaluator, no usage). */
  count(gr: GroupResource, cluster: string, namespace: string): number {
    const rt = this.catalogFor(cluster)
      .resourceTypes()
      .find((t) => t.group === gr.group && t.resource === gr.resource && !t.virtualCreate);
    return rt ? this.countStored(rt, cluster, namespace) : 0;
  }

  /**
   * What the quota controller publishes: `hard` = `spec.hard`, and a `used` entry for every hard name — the object
   * count for count names, 0 for everything kcpt has nothing to measure with (compute resources, pods, services,
   * storage) and for quotas with scopes, which object counts never match.
   */
  observedStatus(cluster: string, quota: KubeObject): QuotaStatus {
    const spec = record(quota.spec);
    const hard = resourceList(spec.hard);
    const namespace = quota.metadata?.namespace ?? '';
    const scoped = hasScopes(spec);
    const counted = new Map<string, number>();
    const used: ResourceList = {};
    for (const name of Object.keys(hard)) {
      const gr = scoped ? undefined : countedResource(name);
      if (!gr) {
        used[name] = '0';
        continue;
      }
      const id = `${gr.group}/${gr.resource}`;
      if (!counted.has(id)) counted.set(id, this.count(gr, cluster, namespace));
      used[name] = formatCount(counted.get(id)!);
    }
    return { hard, used };
  }
}
