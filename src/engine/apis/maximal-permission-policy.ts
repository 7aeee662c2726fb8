/**
 * kcp's maximal permission policy: a request on a resource that a workspace has from an
 * APIBinding, whose APIExport sets `maximalPermissionPolicy.local`, must also be allowed by RBAC in the *export's*
 * workspace for the same user with its name and every group prefixed `apis.kcp.io:binding:`. A provider thereby
 * caps what any consumer may do with its API, whatever the consumer's own RBAC says.
 *
 * Asked on every request: which resources a cluster has bound comes from the bound-API cache the catalogs already
 * use, and which exports carry a local policy is cached here, dropped when a watch sees the export change.
 */
import { LRUCache } from 'lru-cache';
import type { RequestAttributes } from '../authorization/rules.js';
import { decodeStored, objectKey } from '../registry/stored-object.js';
import type { ResourceType } from '../registry/types.js';
import type { Store, WatchHandle } from '../storage/store.js';
import type { BoundAPIs } from './bound-apis.js';
import type { APIExport } from './types.js';

/** The export whose workspace's RBAC caps a request. */
export interface ExportPolicy {
  cluster: string;
  path: string;
  name: string;
  /** The export is another shard's (replicated here): its workspace's RBAC is asked there. */
  remote?: boolean;
}

const CACHED_EXPORTS = 4096;
const NO_POLICY = Object.freeze({}) as ExportPolicy;

export class MaximalPermissionPolicies {
  /** `<export cluster>/<name>` → its policy (NO_POLICY: none, or no such export). */
  private readonly exports = new LRUCache<string, ExportPolicy>({ max: CACHED_EXPORTS });
  private watches: WatchHandle[] = [];

  constructor(
    private readonly store: Store,
    private readonly bound: BoundAPIs,
    private readonly apiExports: ResourceType,
  ) {}

  start(): void {
    const from = this.store.currentRevision();
    const exports = `/registry/${this.apiExports.storagePrefix}/`;
    this.watches.push(
      this.store.watch(exports, from, (events) => {
        for (const e of events) this.exports.delete(e.key.slice(exports.length));
      }),
    );
    this.bound.onReplicaChange((kind, cluster, name) => {
      if (kind === 'apiexports') this.exports.delete(`${cluster}/${name}`);
    });
  }

  stop(): void {
    for (const w of this.watches) w.cancel();
    this.watches = [];
    this.exports.clear();
  }

  /**
   * The export whose local policy also has to allow this request in `cluster`, or undefined when none applies (not
   * a bound resource, no local policy, or the export is gone: kcp then leaves the consumer's RBAC alone).
   */
  policyFor(cluster: string, attrs: RequestAttributes): ExportPolicy | undefined {
    if (!attrs.resourceRequest || !attrs.resource) return undefined;
    const api = this.bound.owner(cluster, attrs.apiGroup, attrs.resource);
    const binding = api && this.bound.bindingsIn(cluster).find((b) => b.metadata?.name === api.binding);
    const exportCluster = binding?.status?.apiExportClusterName;
    const ref = binding?.spec.reference.export;
    if (!exportCluster || !ref) return undefined;
    const key = `${exportCluster}/${ref.name}`;
    let policy = this.exports.get(key);
    if (!policy) {
      const kv = this.store.get(objectKey(this.apiExports, exportCluster, '', ref.name));
      // Another shard's export: its replicated copy says whether it has a policy.
      const elsewhere = kv ? undefined : this.bound.exportOf(exportCluster, ref.name);
      const exp = kv ? (decodeStored(kv) as APIExport) : elsewhere?.object;
      policy = exp?.spec?.maximalPermissionPolicy?.local
        ? { cluster: exportCluster, path: ref.path ?? '', name: ref.name, ...(elsewhere ? { remote: true } : {}) }
        : NO_POLICY;
      this.exports.set(key, policy);
    }
    return policy === NO_POLICY ? undefined : policy;
  }
}
