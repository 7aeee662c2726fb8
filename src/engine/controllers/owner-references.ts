/**
 * Finding the object an ownerReference points to, inside one logical cluster: apiVersion + kind are mapped to a
 * ResourceType through that cluster's catalog (so custom resources work like built-ins), a namespaced owner is
 * looked up in the dependent's namespace, and the owner counts only if its uid matches (kube's GC does the same).
 */
import type { ClusterCatalog } from '../registry/catalog.js';
import { decodeStored, objectKey } from '../registry/stored-object.js';
import { apiVersionOf, type KubeObject, type OwnerReference, type ResourceType } from '../registry/types.js';
import type { Store } from '../storage/store.js';

export type OwnerLookup =
  /** Kind not served in this cluster, or a cluster-scoped dependent naming a namespaced owner (kube: invalid). */
  | { state: 'unresolvable' }
  | { state: 'absent'; key: string }
  | { state: 'present'; key: string; owner: KubeObject };

interface CatalogIndex {
  /** `<group>/<kind>` → a type storing that kind (every version of a kind shares its storage prefix). */
  byGroupKind: Map<string, ResourceType>;
  /** storage prefix → the types stored there (one per served version, plus converted views such as events). */
  byStoragePrefix: Map<string, ResourceType[]>;
}

export function groupOfApiVersion(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash === -1 ? '' : apiVersion.slice(0, slash);
}

/** Namespace segment of a storage key (`/registry/<group>/<resource>/<cluster>[/<namespace>]/<name>`). */
export function namespaceOfKey(key: string): string {
  const parts = key.split('/');
  return parts.length === 7 ? parts[5]! : '';
}

export class OwnerResolver {
  /** Catalog objects are replaced when a cluster's API set changes, so a WeakMap keyed by them never goes stale. */
  private readonly indexes = new WeakMap<ClusterCatalog, CatalogIndex>();

  constructor(
    private readonly store: Store,
    private readonly catalogFor: (cluster: string) => ClusterCatalog,
  ) {}

  /**
   * Storage key of the object `ref` names. Lenient on the version: an owner is the same object whichever served
   * version of its kind the reference spells.
   */
  ownerKey(cluster: string, dependentNamespace: string, ref: Pick<OwnerReference, 'apiVersion' | 'kind' | 'name'>): string | undefined {
    const rt = this.index(cluster).byGroupKind.get(`${groupOfApiVersion(ref.apiVersion ?? '')}/${ref.kind}`);
    if (!rt || !ref.name) return undefined;
    if (rt.namespaced && !dependentNamespace) return undefined;
    return objectKey(rt, cluster, rt.namespaced ? dependentNamespace : '', ref.name);
  }

  lookup(cluster: string, dependentNamespace: string, ref: OwnerReference): OwnerLookup {
    const key = this.ownerKey(cluster, dependentNamespace, ref);
    if (!key) return { state: 'unresolvable' };
    const kv = this.store.get(key);
    if (!kv) return { state: 'absent', key };
    const owner = decodeStored(kv);
    if (owner.metadata?.uid !== ref.uid) return { state: 'absent', key };
    return { state: 'present', key, owner };
  }

  /** The type to write a stored object through (the one whose apiVersion and kind it is stored with). */
  typeOf(cluster: string, key: string, obj: KubeObject): ResourceType | undefined {
    const prefix = key.split('/').slice(2, 4).join('/');
    const candidates = this.index(cluster).byStoragePrefix.get(prefix) ?? [];
    return (
      candidates.find((rt) => apiVersionOf(rt) === obj.apiVersion && rt.kind === obj.kind) ??
      candidates.find((rt) => !rt.convert)
    );
  }

  private index(cluster: string): CatalogIndex {
    const catalog = this.catalogFor(cluster);
    let index = this.indexes.get(catalog);
    if (!index) {
      index = { byGroupKind: new Map(), byStoragePrefix: new Map() };
      for (const rt of catalog.resourceTypes()) {
        if (rt.virtualCreate) continue;
        const gk = `${rt.group}/${rt.kind}`;
        if (!index.byGroupKind.has(gk)) index.byGroupKind.set(gk, rt);
        const list = index.byStoragePrefix.get(rt.storagePrefix);
        if (list) list.push(rt);
        else index.byStoragePrefix.set(rt.storagePrefix, [rt]);
      }
      this.indexes.set(catalog, index);
    }
    return index;
  }
}
