/**
 * kcp's LogicalClusterObjectCountLimit ("poor man's quota"): a hard cap on the number of objects in one logical
 * cluster, from the LogicalCluster's `core.kcp.io/max-total-objects` annotation or else the server-wide
 * `--logical-cluster-total-object-limit` (which root and `system:*` clusters are exempt from). Creates only; events
 * are neither counted nor refused (they are what a person needs to debug a full workspace), nor are the
 * LogicalCluster itself and its `workspace-admin` ClusterRoleBinding, and nothing is enforced before the cluster is
 * Ready, so bootstrapping never trips over it.
 *
 * Cost: no counter is kept anywhere. A create reads the cluster's LogicalCluster row and stops there unless a cap
 * applies; only in capped clusters does it count, one index range count per resource type the cluster serves. kcp
 * keeps in-memory counts corrected by a periodic scan of all keys; counting on demand is exact instead and costs
 * nothing in clusters without a cap.
 */
import { forbidden } from '../machinery/status.js';
import type { ClusterCatalog } from '../registry/catalog.js';
import { objectKey } from '../registry/stored-object.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import type { Store } from '../storage/store.js';
import type { CreateAttributes, ValidatingAdmissionPlugin } from './chain.js';

export const maxTotalObjectsAnnotation = 'core.kcp.io/max-total-objects';
const annotationNeedle = `"${maxTotalObjectsAnnotation}"`;

/** Root and system clusters get bootstrap content written into them; the server-wide default never applies there. */
export function exemptFromDefaultLimit(cluster: string): boolean {
  return cluster === 'root' || cluster.startsWith('system:');
}

/**
 * The cap of one logical cluster: the annotation when it holds an integer (≤ 0 switches the cap off), else the
 * server-wide default unless the cluster is exempt from it. ≤ 0 means no cap.
 */
export function effectiveLimit(cluster: string, annotations: Record<string, string> | undefined, defaultLimit: number): number {
  const raw = annotations?.[maxTotalObjectsAnnotation];
  // strconv.ParseInt(v, 10, 64): an optional sign and decimal digits, nothing else.
  if (raw !== undefined && /^[+-]?\d+$/.test(raw)) {
    const value = BigInt(raw);
    if (value >= -(2n ** 63n) && value < 2n ** 63n) return Number(value);
  }
  return exemptFromDefaultLimit(cluster) ? 0 : defaultLimit;
}

/** Events (both groups share one key space) are left out of the count, as kcp's scanner leaves them out. */
function isEvent(rt: Pick<ResourceType, 'group' | 'resource'>): boolean {
  return rt.resource === 'events' && (rt.group === '' || rt.group === 'events.k8s.io');
}

/** Every stored object of the cluster, namespaced and cluster-scoped, custom resources included; events left out. */
export function countClusterObjects(store: Store, catalog: ClusterCatalog, cluster: string): number {
  const seen = new Set<string>();
  let total = 0;
  for (const rt of catalog.resourceTypes()) {
    if (rt.virtualCreate || isEvent(rt) || seen.has(rt.storagePrefix)) continue;
    seen.add(rt.storagePrefix);
    total += store.count(`/registry/${rt.storagePrefix}/${cluster}/`);
  }
  return total;
}

export interface ObjectCountLimitDeps {
  store: Store;
  logicalClusterType: ResourceType;
  catalogFor(cluster: string): ClusterCatalog;
  /** `--logical-cluster-total-object-limit`; 0 = no server-wide cap. */
  defaultLimit: number;
}

export class ObjectCountLimit implements ValidatingAdmissionPlugin {
  readonly name = 'core.kcp.io/LogicalClusterObjectCountLimit';

  constructor(private readonly deps: ObjectCountLimitDeps) {}

  validateCreate({ rt, cluster, object }: CreateAttributes): void {
    if (isEvent(rt)) return;
    if (rt.group === 'core.kcp.io' && rt.resource === 'logicalclusters') return;
    const name = object.metadata?.name ?? '';
    if (rt.group === 'rbac.authorization.k8s.io' && rt.resource === 'clusterrolebindings' && name === 'workspace-admin') return;

    const { store, logicalClusterType, defaultLimit } = this.deps;
    const kv = store.get(objectKey(logicalClusterType, cluster, '', 'cluster'));
    // No LogicalCluster: kcp fails open rather than refuse writes it cannot attribute.
    if (!kv) return;
    // The common case, decided without parsing: no annotation and no default that applies here.
    if (!kv.value.includes(annotationNeedle) && (defaultLimit <= 0 || exemptFromDefaultLimit(cluster))) return;
    const lc = JSON.parse(kv.value) as KubeObject;
    if ((lc.status as { phase?: string } | undefined)?.phase !== 'Ready') return;
    const limit = effectiveLimit(cluster, lc.metadata?.annotations, defaultLimit);
    if (limit <= 0) return;
    const count = countClusterObjects(store, this.deps.catalogFor(cluster), cluster);
    if (count >= limit) {
      throw forbidden(
        rt,
        name,
        `logical cluster "${cluster}" has reached its total object count limit (${count}/${limit} objects); delete objects to free up capacity`,
      );
    }
  }
}
