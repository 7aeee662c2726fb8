/**
 * How many objects a logical cluster holds, for the object cap (object-count-limit.ts). Counting is an index range
 * count per resource type the cluster serves, so it grows with the cluster (≈50 ns an object on SQLite). Clusters
 * under a cap therefore keep their count in storage instead, written in the same commit as every object:
 *
 *   /kcpt/object-counts/<cluster>  →  "<number of objects>"
 *
 * The key exists only for clusters that have been under a cap: the first capped create counts once and creates
 * it, and from then on this module's index writer adds one for each object created and takes one away for each
 * object removed. Every other cluster pays one key lookup per create or removal, nothing more. The key goes
 * away with its LogicalCluster, or when the cluster's cap is lifted through its LogicalCluster. Events are never
 * counted (kcp leaves them out too).
 */
import type { ClusterCatalog } from '../registry/catalog.js';
import type { IndexWriter } from '../registry/index-writer.js';
import { clusterOfKey } from '../registry/stored-object.js';
import type { ResourceType } from '../registry/types.js';
import { hasKeys, type Store, type WriteOp } from '../storage/store.js';

export const maxTotalObjectsAnnotation = 'core.kcp.io/max-total-objects';

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

export const objectCountRoot = '/kcpt/object-counts/';

export function objectCountKey(cluster: string): string {
  return `${objectCountRoot}${cluster}`;
}

const registryRoot = '/registry/';

/** Events (both groups share one key space) are left out of the count, as kcp's scanner leaves them out. */
export function isEvent(rt: Pick<ResourceType, 'group' | 'resource'>): boolean {
  return rt.resource === 'events' && (rt.group === '' || rt.group === 'events.k8s.io');
}

/** Every stored object of the cluster, namespaced and cluster-scoped, custom resources included; events left out. */
export function countClusterObjects(store: Store, catalog: ClusterCatalog, cluster: string): number {
  const seen = new Set<string>();
  let total = 0;
  for (const rt of catalog.resourceTypes()) {
    if (rt.virtualCreate || isEvent(rt) || seen.has(rt.storagePrefix)) continue;
    seen.add(rt.storagePrefix);
    total += store.count(`${registryRoot}${rt.storagePrefix}/${cluster}/`);
  }
  return total;
}

/**
 * Whether any count row may exist. None does until a cap first applies (most servers never set one), and only
 * ObjectCountLimit creates them: until then the writer below skips its lookup on every create and delete.
 */
export class CountRows {
  private mayExist: boolean;

  constructor(store: Store) {
    this.mayExist = hasKeys(store, objectCountRoot);
  }

  get any(): boolean {
    return this.mayExist;
  }

  /** Called before a count row's create is handed to a commit (a commit that then fails costs lookups, no more). */
  creating(): void {
    this.mayExist = true;
  }
}

export interface ObjectCountWriterDeps {
  store: Store;
  /** Without it, every create and delete looks its cluster's count row up. */
  countRows?: CountRows;
  logicalClusterType: ResourceType;
  /** `--logical-cluster-total-object-limit`, to tell whether a LogicalCluster update lifted the cap. */
  defaultLimit: number;
}

/** Keeps `/kcpt/object-counts/<cluster>` in step with the cluster's objects, where that key exists. */
export function objectCountWriter(deps: ObjectCountWriterDeps): IndexWriter {
  const eventsRoot = `${registryRoot}core/events/`;
  const logicalClusterRoot = `${registryRoot}${deps.logicalClusterType.storagePrefix}/`;
  return (key, before, after): WriteOp[] => {
    if (!key.startsWith(registryRoot) || key.startsWith(eventsRoot)) return [];
    const created = before === undefined && after !== undefined;
    const removed = after === undefined && before !== undefined;
    const isLogicalCluster = key.startsWith(logicalClusterRoot);
    if (!created && !removed && !isLogicalCluster) return [];
    if (deps.countRows && !deps.countRows.any) return [];
    const cluster = clusterOfKey(key);
    const kv = deps.store.get(objectCountKey(cluster));
    if (!kv) return [];
    if (isLogicalCluster && !created) {
      if (removed || effectiveLimit(cluster, after?.metadata?.annotations, deps.defaultLimit) <= 0) {
        return [{ type: 'delete', key: kv.key, expectedRevision: kv.revision }];
      }
      return [];
    }
    // A cluster being deleted is emptied in batches of many deletes; its count no longer matters (and one update per
    // delete in one commit would conflict). The LogicalCluster's own removal drops the row.
    if (removed && isBeingDeleted(deps.store, logicalClusterRoot, cluster)) return [];
    const count = Number(kv.value) + (created ? 1 : -1);
    return [{ type: 'update', key: kv.key, value: String(count), expectedRevision: kv.revision }];
  };
}

function isBeingDeleted(store: Store, logicalClusterRoot: string, cluster: string): boolean {
  const kv = store.get(`${logicalClusterRoot}${cluster}/cluster`);
  return kv !== undefined && Boolean((JSON.parse(kv.value) as { metadata?: { deletionTimestamp?: string } }).metadata?.deletionTimestamp);
}
