/**
 * kcp's maximal permission policy (kcp-reference §6, step 4): a request on a resource that a workspace has from an
 * APIBinding, whose APIExport sets `maximalPermissionPolicy.local`, must also be allowed by RBAC in the *export's*
 * workspace for the same user with its name and every group prefixed `apis.kcp.io:binding:`. A provider thereby
 * caps what any consumer may do with its API, whatever the consumer's own RBAC says.
 *
 * Asked on every request, so both lookups are cached: which resources a cluster has bound (from its APIBindings'
 * status.boundResources) and which exports carry a local policy, each dropped when a watch sees the objects change.
 * A cluster without bindings costs one cache hit.
 */
import { LRUCache } from 'lru-cache';
import type { RequestAttributes } from '../authorization/rules.js';
import { decodeStored, objectKey } from '../registry/stored-object.js';
import type { ResourceType } from '../registry/types.js';
import type { Store, WatchHandle } from '../storage/store.js';
import type { ClusterPaths } from '../tenancy/cluster-paths.js';
import type { APIBinding, APIExport } from './types.js';

/** The export whose workspace's RBAC caps a request. */
export interface ExportPolicy {
  cluster: string;
  path: string;
  name: string;
}

interface BoundExport {
  path: string;
  name: string;
}

const CACHED_CLUSTERS = 16_384;
const CACHED_EXPORTS = 4096;
const NO_POLICY = Object.freeze({}) as ExportPolicy;

export class MaximalPermissionPolicies {
  /** cluster → `<group>/<resource>` → the export it is bound from (empty map: nothing bound). */
  private readonly bound = new LRUCache<string, Map<string, BoundExport>>({ max: CACHED_CLUSTERS });
  /** `<export cluster>/<name>` → its policy (NO_POLICY: none, or no such export). */
  private readonly exports = new LRUCache<string, ExportPolicy>({ max: CACHED_EXPORTS });
  private watches: WatchHandle[] = [];

  constructor(
    private readonly store: Store,
    private readonly paths: ClusterPaths,
    private readonly apiBindings: ResourceType,
    private readonly apiExports: ResourceType,
  ) {}

  start(): void {
    const from = this.store.currentRevision();
    const bindings = `/registry/${this.apiBindings.storagePrefix}/`;
    const exports = `/registry/${this.apiExports.storagePrefix}/`;
    this.watches.push(
      this.store.watch(bindings, from, (events) => {
        for (const e of events) this.bound.delete(e.key.slice(bindings.length).split('/')[0]!);
      }),
      this.store.watch(exports, from, (events) => {
        for (const e of events) this.exports.delete(e.key.slice(exports.length));
      }),
    );
  }

  stop(): void {
    for (const w of this.watches) w.cancel();
    this.watches = [];
    this.bound.clear();
    this.exports.clear();
  }

  /**
   * The export whose local policy also has to allow this request in `cluster`, or undefined when none applies (not
   * a bound resource, no local policy, or the export is gone: kcp then leaves the consumer's RBAC alone).
   */
  policyFor(cluster: string, attrs: RequestAttributes): ExportPolicy | undefined {
    if (!attrs.resourceRequest || !attrs.resource) return undefined;
    const ref = this.boundIn(cluster).get(`${attrs.apiGroup}/${attrs.resource}`);
    if (!ref) return undefined;
    const exportCluster = ref.path ? this.paths.resolve(ref.path) : cluster;
    if (!exportCluster) return undefined;
    const key = `${exportCluster}/${ref.name}`;
    let policy = this.exports.get(key);
    if (!policy) {
      const kv = this.store.get(objectKey(this.apiExports, exportCluster, '', ref.name));
      const exp = kv ? (decodeStored(kv) as APIExport) : undefined;
      policy = exp?.spec?.maximalPermissionPolicy?.local ? { cluster: exportCluster, path: ref.path, name: ref.name } : NO_POLICY;
      this.exports.set(key, policy);
    }
    return policy === NO_POLICY ? undefined : policy;
  }

  private boundIn(cluster: string): Map<string, BoundExport> {
    let map = this.bound.get(cluster);
    if (!map) {
      map = new Map();
      for (const kv of this.store.list(`/registry/${this.apiBindings.storagePrefix}/${cluster}/`).items) {
        const b = JSON.parse(kv.value) as APIBinding;
        const exp = b.spec?.reference?.export;
        if (!exp?.name) continue;
        for (const r of b.status?.boundResources ?? []) map.set(`${r.group ?? ''}/${r.resource}`, { path: exp.path ?? '', name: exp.name });
      }
      this.bound.set(cluster, map);
    }
    return map;
  }
}
