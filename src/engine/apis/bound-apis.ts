/**
 * What each logical cluster serves through its APIBindings: for every binding's `status.boundResources`, the
 * APIResourceSchema it names (in the export's cluster) turned into ResourceTypes stored under the export identity.
 * The CRD catalogs layer these next to the cluster's CRDs. Like them it is lazy and bounded: a cluster's bindings are
 * read (one prefix scan of that cluster) the first time its catalog is built, kept in an LRU, and dropped when one of
 * its bindings changes (a storage watch, delivered inside the commit, so the binding controller's write is served by
 * the next request). Compiled types are shared by every cluster bound to the same schema and identity.
 */
import { LRUCache } from 'lru-cache';
import { createHash } from 'node:crypto';
import type { CustomResourceDefinition } from '../apiextensions/crd.js';
import type { ResourceType } from '../registry/types.js';
import { hasKeys, type Store, type WatchHandle } from '../storage/store.js';
import type { ReplicatedKind, SharingReplica } from '../shards/sharing-replica.js';
import { BINDINGS_PREFIX, EXPORTS_PREFIX, SCHEMAS_PREFIX } from './names.js';
import { resourceTypesForSchema } from './schema-types.js';
import type { APIBinding, APIExport, APIResourceSchema } from './types.js';

const CACHED_CLUSTERS = 1024;
const CACHED_SCHEMAS = 512;
/** What the hash of an empty binding set digests to (the same as hashing nothing). */
const NOTHING_BOUND_HASH = createHash('sha256').digest('hex').slice(0, 24);

/** One bound resource of a cluster. */
export interface BoundAPI {
  binding: string;
  group: string;
  resource: string;
  identityHash: string;
  schema: APIResourceSchema;
  types: ResourceType[];
}

interface ClusterBindings {
  bindings: APIBinding[];
  apis: BoundAPI[];
  /** Content hash of the bound APIs (schema UIDs and identities), for catalog revisions. */
  hash: string;
  /** A bound schema was not found (another shard's, not replicated yet): dropped when it arrives. */
  incomplete: boolean;
  /** `<resource>.<group>` of the bound resources whose schema was not found. */
  missing: Set<string>;
}

/** `cluster` changed its bindings; `resources` (`<plural>.<group>`) are those it bound before or after. */
/** What bound APIs read of the replica of other shards' exports and schemas. */
export type SharingReplicaView = Pick<SharingReplica, 'get' | 'all' | 'onChange' | 'hasSynced' | 'untilSynced'>;

export type BoundAPIsListener = (cluster: string, resources: string[], binding: APIBinding, deleted: boolean) => void;

export class BoundAPIs {
  private readonly clusters = new LRUCache<string, ClusterBindings>({ max: CACHED_CLUSTERS });
  private readonly compiled = new LRUCache<string, ResourceType[]>({ max: CACHED_SCHEMAS });
  private readonly listeners: BoundAPIsListener[] = [];
  private watch?: WatchHandle;
  private exportWatch?: WatchHandle;
  /** The `*` wildcard's `<resource>:<identityHash>` types, built on the first wildcard request after an export change. */
  private wildcard?: { hash: string; types: ResourceType[] } | null;
  /** Other shards' exports and schemas (a sharded deployment); bindings here may name them. */
  private replica?: SharingReplicaView;
  private readonly replicaListeners: Array<(kind: ReplicatedKind, cluster: string, name: string) => void> = [];

  constructor(private readonly store: Store) {}

  /**
   * Serves bindings to exports of other shards from their replicated exports and schemas. A cluster whose catalog
   * was built before a schema it binds arrived (this shard restarted ahead of the replica) is rebuilt then.
   */
  useReplica(replica: SharingReplicaView): void {
    this.replica = replica;
    replica.onChange((kind, cluster, name) => {
      if (kind === 'apiexports') this.wildcard = undefined;
      if (kind === 'apiresourceschemas') {
        for (const [consumer, entry] of this.clusters.entries()) {
          if (!entry.incomplete) continue;
          this.clusters.delete(consumer);
          for (const binding of entry.bindings) {
            const resources = (binding.status?.boundResources ?? []).map((r) => `${r.resource}.${r.group}`);
            for (const listener of this.listeners) listener(consumer, resources, binding, false);
          }
        }
      }
      for (const l of this.replicaListeners) l(kind, cluster, name);
    });
  }

  /** False while other shards' exports and schemas may still be on their way (this shard just started). */
  replicaSynced(): boolean {
    return this.replica?.hasSynced() ?? true;
  }

  /**
   * While this shard has just started and has not yet copied the other shards' schemas: a promise of that copy when
   * `cluster` binds a schema not here yet and the request needs it — discovery (no `resource`), or that very
   * resource, which would otherwise not be found. Any other request goes on: the shard's own traffic (a shard
   * registering in root) must never wait on a copy that needs the other shards up.
   */
  untilComplete(cluster: string, group: string, resource: string | undefined): Promise<void> | undefined {
    if (!this.replica || this.replica.hasSynced()) return undefined;
    const { missing } = this.entry(cluster);
    const needed = missing.size > 0 && (resource === undefined || missing.has(`${resource}.${group}`));
    return needed ? this.replica.untilSynced() : undefined;
  }

  /** Called when another shard's export, schema or endpoint slice changed (only queue work). */
  onReplicaChange(listener: (kind: ReplicatedKind, cluster: string, name: string) => void): void {
    this.replicaListeners.push(listener);
  }

  /** An APIExport of this shard or, replicated, of another one. */
  exportOf(cluster: string, name: string): { object: APIExport; revision: string; shard?: string } | undefined {
    const kv = this.store.get(`${EXPORTS_PREFIX}${cluster}/${name}`);
    if (kv) return { object: JSON.parse(kv.value) as APIExport, revision: String(kv.revision) };
    const remote = this.replica?.get('apiexports', cluster, name);
    return remote ? { object: remote.object as APIExport, revision: `${remote.shard}:${remote.object.metadata?.resourceVersion}`, shard: remote.shard } : undefined;
  }

  start(): void {
    this.watch = this.store.watch(BINDINGS_PREFIX, this.store.currentRevision(), (events) => {
      for (const e of events) {
        const rest = e.key.slice(BINDINGS_PREFIX.length);
        const cluster = rest.slice(0, rest.indexOf('/'));
        const before = this.clusters.peek(cluster);
        this.clusters.delete(cluster);
        const binding = JSON.parse(e.value) as APIBinding;
        const resources = new Set((binding.status?.boundResources ?? []).map((r) => `${r.resource}.${r.group}`));
        for (const api of before?.apis ?? []) if (api.binding === binding.metadata?.name) resources.add(`${api.resource}.${api.group}`);
        for (const listener of this.listeners) listener(cluster, [...resources], binding, e.type === 'DELETED');
      }
    });
    this.exportWatch = this.store.watch(EXPORTS_PREFIX, this.store.currentRevision(), () => (this.wildcard = undefined));
  }

  stop(): void {
    this.watch?.cancel();
    this.exportWatch?.cancel();
  }

  /**
   * kcp's wildcard form of bound resources, `<resource>:<identityHash>` under the `*` cluster: one type
   * per exported schema version and identity, reading `<group>/<resource>:<identityHash>` across every cluster and
   * keeping the objects of clusters that bind it right now. Every export is read once after any export changes, and
   * only when a wildcard request asks (like the CRD catalogs' wildcard view).
   */
  wildcardTypes(): { hash: string; types: ResourceType[] } | undefined {
    if (this.wildcard === undefined) this.wildcard = this.buildWildcard();
    return this.wildcard ?? undefined;
  }

  private buildWildcard(): { hash: string; types: ResourceType[] } | null {
    const byName = new Map<string, ResourceType>();
    const hash = createHash('sha256');
    const exports: Array<{ cluster: string; exp: APIExport }> = this.store.list(EXPORTS_PREFIX).items.map((kv) => {
      const rest = kv.key.slice(EXPORTS_PREFIX.length);
      return { cluster: rest.slice(0, rest.indexOf('/')), exp: JSON.parse(kv.value) as APIExport };
    });
    // Other shards' exports too: their consumers here store under the same identities.
    for (const r of this.replica?.all('apiexports') ?? []) exports.push({ cluster: r.cluster, exp: r.object as APIExport });
    for (const { cluster: exportCluster, exp } of exports) {
      const identityHash = exp.status?.identityHash;
      if (!identityHash) continue;
      for (const r of exp.spec?.resources ?? []) {
        const schema = this.schema(exportCluster, r.schema);
        if (!schema) continue;
        for (const rt of this.typesForSchema(schema, identityHash)) {
          const key = `${rt.group}/${rt.version}/${rt.resource}:${identityHash}`;
          if (byName.has(key)) continue;
          hash.update(`${key}|${schema.metadata?.uid};`);
          byName.set(key, this.asWildcardType(rt, identityHash));
        }
      }
    }
    return byName.size > 0 ? { hash: hash.digest('hex').slice(0, 24), types: [...byName.values()] } : null;
  }

  private asWildcardType(rt: ResourceType, identityHash: string): ResourceType {
    const apiVersion = `${rt.group}/${rt.version}`;
    return {
      ...rt,
      resource: `${rt.resource}:${identityHash}`,
      convert: { toStorage: (obj) => obj, fromStorage: (obj) => (obj.apiVersion === apiVersion ? obj : { ...obj, apiVersion }) },
      servedIn: (cluster) => {
        const api = this.apisIn(cluster).find((a) => a.identityHash === identityHash && a.group === rt.group && a.resource === rt.resource);
        const served = api?.types.find((t) => t.version === rt.version);
        return served && served.namespaced === rt.namespaced ? { namespaced: served.namespaced } : undefined;
      },
    };
  }

  /** Called inside the storage commit of every binding change; listeners must only queue work or drop caches. */
  onChange(listener: BoundAPIsListener): void {
    this.listeners.push(listener);
  }

  /** The APIs a cluster serves through bindings. */
  apisIn(cluster: string): readonly BoundAPI[] {
    return this.entry(cluster).apis;
  }

  bindingsIn(cluster: string): readonly APIBinding[] {
    return this.entry(cluster).bindings;
  }

  /**
   * Whether the cluster may serve anything through bindings: from its cached entry, else whether it has an
   * APIBinding at all (one probe, nothing cached: a cluster being deleted is not worth an entry).
   */
  mayBindIn(cluster: string): boolean {
    const entry = this.clusters.peek(cluster);
    return entry ? entry.apis.length > 0 : hasKeys(this.store, `${BINDINGS_PREFIX}${cluster}/`);
  }

  /** Types and a content hash for the cluster's catalog (undefined: nothing bound). */
  typesIn(cluster: string): { hash: string; types: ResourceType[] } | undefined {
    const entry = this.entry(cluster);
    if (entry.apis.length === 0) return undefined;
    return { hash: entry.hash, types: entry.apis.flatMap((a) => a.types) };
  }

  /** The binding serving `<group>/<resource>` in the cluster, if any. */
  owner(cluster: string, group: string, resource: string): BoundAPI | undefined {
    // A loop, not find(): asked on every resource request, and a closure per call showed in its allocation.
    for (const a of this.entry(cluster).apis) if (a.group === group && a.resource === resource) return a;
    return undefined;
  }

  /**
   * The bound APIs of `group` as the accepted names of CRDs, for kube's naming rules: a CRD asking for a plural or
   * kind a binding serves is refused (NamesAccepted=False), never served beside it.
   */
  namesIn(cluster: string, group: string): CustomResourceDefinition[] {
    return this.entry(cluster)
      .apis.filter((a) => a.group === group)
      .map(
        (a) =>
          ({
            metadata: { name: `${a.resource}.${a.group}` },
            spec: { group, names: a.schema.spec.names, scope: a.schema.spec.scope, versions: [] },
            status: { acceptedNames: { ...a.schema.spec.names, singular: a.types[0]?.singular, listKind: a.types[0]?.listKind } },
          }) as unknown as CustomResourceDefinition,
      );
  }

  /** The types of a schema under an identity (compiled once for every cluster bound to them). */
  typesForSchema(schema: APIResourceSchema, identityHash: string): ResourceType[] {
    const key = `${schema.metadata?.uid ?? schema.metadata?.name}|${identityHash}`;
    let types = this.compiled.get(key);
    if (!types) this.compiled.set(key, (types = resourceTypesForSchema(schema, identityHash)));
    return types;
  }

  /** A schema in the export's cluster (this shard's, or replicated from the export's shard). */
  schema(cluster: string, name: string): APIResourceSchema | undefined {
    const kv = this.store.get(`${SCHEMAS_PREFIX}${cluster}/${name}`);
    if (kv) return JSON.parse(kv.value) as APIResourceSchema;
    return this.replica?.get('apiresourceschemas', cluster, name)?.object as APIResourceSchema | undefined;
  }

  private entry(cluster: string): ClusterBindings {
    let entry = this.clusters.get(cluster);
    if (entry) return entry;
    const bindings = this.store.list(`${BINDINGS_PREFIX}${cluster}/`).items.map((kv) => JSON.parse(kv.value) as APIBinding);
    const apis: BoundAPI[] = [];
    const hashed: string[] = [];
    let incomplete = false;
    const missing = new Set<string>();
    for (const binding of bindings) {
      const exportCluster = binding.status?.apiExportClusterName;
      if (!exportCluster) continue;
      for (const bound of binding.status?.boundResources ?? []) {
        const schema = this.schema(exportCluster, bound.schema.name);
        if (!schema) {
          incomplete = true;
          missing.add(`${bound.resource}.${bound.group}`);
        }
        if (!schema || apis.some((a) => a.group === bound.group && a.resource === bound.resource)) continue;
        hashed.push(`${bound.schema.UID}|${bound.schema.identityHash};`);
        apis.push({
          binding: binding.metadata!.name!,
          group: bound.group,
          resource: bound.resource,
          identityHash: bound.schema.identityHash,
          schema,
          types: this.typesForSchema(schema, bound.schema.identityHash),
        });
      }
    }
    // Most clusters bind nothing: their hash is the constant one, no digest to compute.
    const hash = hashed.length === 0 ? NOTHING_BOUND_HASH : createHash('sha256').update(hashed.join('')).digest('hex').slice(0, 24);
    entry = { bindings, apis, hash, incomplete, missing };
    this.clusters.set(cluster, entry);
    return entry;
  }
}
