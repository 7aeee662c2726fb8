/**
 * kcp's LogicalClusterObjectCountLimit ("poor man's quota"): a hard cap on the number of objects in one logical
 * cluster, from the LogicalCluster's `core.kcp.io/max-total-objects` annotation or else the server-wide
 * `--logical-cluster-total-object-limit` (which root and `system:*` clusters are exempt from). Creates only; events
 * are neither counted nor refused (they are what a person needs to debug a full workspace), nor are the
 * LogicalCluster itself and its `workspace-admin` ClusterRoleBinding, and nothing is enforced before the cluster is
 * Ready, so bootstrapping never trips over it.
 *
 * Cost: a create reads its cluster's LogicalCluster row and, in the common case (no annotation, no default that
 * applies), decides without parsing it. Under a cap it reads the stored count (object-count.ts), which the first
 * capped create sets up by counting once; before refusing it counts again, so a refusal is always exact. kcp keeps
 * in-memory counts corrected by a periodic scan of every key instead.
 */
import { forbidden } from '../machinery/status.js';
import type { ClusterCatalog } from '../registry/catalog.js';
import { objectKey } from '../registry/stored-object.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import type { Store, WriteOp } from '../storage/store.js';
import type { CreateAttributes } from '../registry/write-admission.js';
import type { ValidatingAdmissionPlugin } from './chain.js';
import {
  type CountRows,
  countClusterObjects,
  effectiveLimit,
  exemptFromDefaultLimit,
  isEvent,
  maxTotalObjectsAnnotation,
  objectCountKey,
} from './object-count.js';

export { countClusterObjects, effectiveLimit, exemptFromDefaultLimit, maxTotalObjectsAnnotation } from './object-count.js';

const annotationNeedle = `"${maxTotalObjectsAnnotation}"`;

export interface ObjectCountLimitDeps {
  store: Store;
  logicalClusterType: ResourceType;
  catalogFor(cluster: string): ClusterCatalog;
  /** `--logical-cluster-total-object-limit`; 0 = no server-wide cap. */
  defaultLimit: number;
  /** Told when a count row is about to be created (see CountRows). */
  countRows?: CountRows;
}

export class ObjectCountLimit implements ValidatingAdmissionPlugin {
  readonly name = 'core.kcp.io/LogicalClusterObjectCountLimit';

  constructor(private readonly deps: ObjectCountLimitDeps) {}

  validateCreate({ rt, cluster, object }: CreateAttributes): WriteOp[] | void {
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

    const stored = store.get(objectCountKey(cluster));
    let count = stored ? Number(stored.value) : this.count(cluster);
    if (stored && count >= limit) {
      // About to refuse: count for real. The stored number can only be off if something wrote objects past the
      // generic store; if it is, it is put right on the spot.
      const exact = this.count(cluster);
      if (exact !== count) store.commit([{ type: 'update', key: stored.key, value: String(exact), expectedRevision: stored.revision }]);
      count = exact;
    }
    if (count >= limit) {
      throw forbidden(
        rt,
        name,
        `logical cluster "${cluster}" has reached its total object count limit (${count}/${limit} objects); delete objects to free up capacity`,
      );
    }
    // From now on the cluster's count is kept in storage, in the same commit as each object (object-count.ts).
    if (!stored) {
      this.deps.countRows?.creating();
      return [{ type: 'create', key: objectCountKey(cluster), value: String(count + 1) }];
    }
    return undefined;
  }

  private count(cluster: string): number {
    return countClusterObjects(this.deps.store, this.deps.catalogFor(cluster), cluster);
  }
}
