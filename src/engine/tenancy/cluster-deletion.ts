/**
 * Removing everything in a logical cluster whose LogicalCluster is being deleted, as kcp's logical cluster deletion
 * controller does: every object is deleted (objects with finalizers are marked and waited for, child Workspaces
 * included, which recurses down the tree); once nothing is held back, namespaces, cluster RBAC and the LogicalCluster
 * itself go, together with the server's own bookkeeping keys for the cluster, in the same commit. An empty
 * workspace is therefore removed in one transaction and leaves no row behind.
 */
import { fromStorage, WriteBatch, type GenericStore } from '../registry/generic-store.js';
import { deletionMarkerKey, removeRow } from '../registry/object-rules.js';
import type { ClusterCatalog } from '../registry/catalog.js';
import type { OccupiedResources } from '../registry/occupied-resources.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import type { KeyValue, Store, WriteOp } from '../storage/store.js';
import { StatusError } from '../machinery/status.js';
import { logicalClusterKey, workspaceKey } from './cluster-paths.js';
import { showDeleting } from './workspace-deleting.js';
import type { Workspace } from './workspace-resource.js';
import { LOGICAL_CLUSTER_FINALIZER } from '../machinery/kcp-names.js';
import { LOGICAL_CLUSTER_DELETION_FINALIZER } from './workspace-scheduler.js';
import { decodeStored, keyNamespaceAndName } from '../registry/stored-object.js';

/** Server bookkeeping keyed by cluster (owner index, absent-owner markers, pending-work markers). */
export const clusterBookkeepingPrefixes = (cluster: string) => [
  `/kcpt/owners/${cluster}/`,
  `/kcpt/gc/absent-owners/${cluster}/`,
  `/kcpt/pending/workspaces/${cluster}/`,
];

const NAMESPACES = 'core/namespaces';

/**
 * Resources kept until the end so the workspace stays debuggable (kcp keeps cluster RBAC too). ServiceAccounts go
 * with their namespaces: the serviceaccounts controller recreates a deleted `default` in a namespace still there.
 */
const keptUntilLast = new Set([
  NAMESPACES,
  'core/serviceaccounts',
  'rbac.authorization.k8s.io/clusterroles',
  'rbac.authorization.k8s.io/clusterrolebindings',
]);

export interface DeletionProgress {
  /** Objects still there (held by finalizers, child workspaces being deleted). */
  remaining: number;
  /**
   * Of those, the ones other than child workspaces: only these need polling. A child workspace's own DELETED
   * event brings the deletion back (the workspace controller files its parent cluster again).
   */
  heldByOthers: number;
  /** True once the LogicalCluster itself is gone. */
  done: boolean;
}

/** An object the final pass deletes as its row (its index writers' ops come later in the same commit). */
interface PlainDelete {
  key: string;
  object: KubeObject;
}

/** Marked children kept for their own pass (see `marks`); past this many the oldest goes. */
const MARKS_KEPT = 4096;

export class ClusterContentDeleter {
  private readonly storedTypesOf = new WeakMap<ClusterCatalog, ResourceType[]>();
  /**
   * The child LogicalClusters and Workspaces a committed pass marked, by key, as stored (their resourceVersion is the
   * mark's revision): the child's own pass reads both rows again one commit later, and `storedObject` hands it these
   * instead of parsing them, while the row is still at that revision. Each is taken once; at most MARKS_KEPT.
   */
  private readonly marks = new Map<string, KubeObject>();
  /** Rows above this revision were written by this process, so by this build (see `readRow`). */
  private readonly writtenFrom: number;

  constructor(
    private readonly store: Store,
    private readonly generic: GenericStore,
    /** Every type a cluster may hold objects of (a superset of what it serves will do). */
    private readonly catalogFor: (cluster: string) => ClusterCatalog,
    private readonly logicalClusterType: ResourceType,
    /** Resources no cluster has objects of are not looked at (most built-ins, in a workspace-only server). */
    private readonly occupied?: OccupiedResources,
    /** Workspaces: the owner of a finished cluster is let go in the same commit. */
    private readonly workspaceType?: ResourceType,
  ) {
    this.writtenFrom = store.currentRevision();
  }

  /**
   * A listed row as served. A type whose objects this build stores as a read gives them back
   * (ResourceType.convert.storedAsRead: Workspaces) skips the read's pruning and defaulting for rows this process
   * wrote, as its live watches do; older rows, possibly of another build's schema, are converted.
   */
  private readRow(rt: ResourceType, kv: KeyValue): KubeObject {
    const object = decodeStored(kv);
    return rt.convert?.storedAsRead && kv.revision > this.writtenFrom ? object : fromStorage(rt, object);
  }

  /** The object stored in `row`: the one a pass of this deleter marked while the row is still that mark, else parsed. */
  storedObject(row: KeyValue): KubeObject {
    const marked = this.marks.get(row.key);
    if (marked === undefined) return decodeStored(row);
    this.marks.delete(row.key);
    return marked.metadata?.resourceVersion === String(row.revision) ? marked : decodeStored(row);
  }

  /**
   * The object a committed pass of this deleter marked, when `revision` is that mark's (a watch event of the very
   * write): looked at, not taken, so the child's own pass still gets it. Undefined otherwise: parse the event.
   */
  markAt(key: string, revision: number): KubeObject | undefined {
    const marked = this.marks.get(key);
    return marked !== undefined && marked.metadata?.resourceVersion === String(revision) ? marked : undefined;
  }

  /** Oldest first out: a child held for good (a finalizer nobody removes) must not keep the others' marks out. */
  private keepMark(key: string, object: KubeObject): void {
    if (this.marks.size >= MARKS_KEPT) this.marks.delete(this.marks.keys().next().value!);
    this.marks.set(key, object);
  }

  /** One pass: delete what can go; finish the cluster when nothing is left. `lc` is decoded from `lcRow`. */
  run(cluster: string, lcRow: KeyValue, lc: KubeObject): DeletionProgress {
    const batch = new WriteBatch();
    const types = this.deletableTypes(cluster);
    let remaining = 0;
    let heldByOthers = 0;
    const last: ResourceType[] = [];
    const marked = new Map<string, KubeObject>();
    for (const rt of types) {
      if (keptUntilLast.has(rt.storagePrefix)) {
        last.push(rt);
        continue;
      }
      const left = this.deleteAll(rt, cluster, batch, { marked });
      remaining += left;
      if (rt.storagePrefix !== this.workspaceType?.storagePrefix) heldByOthers += left;
    }
    if (remaining > 0) {
      this.generic.commitBatch(batch);
      // Committed: the marks are what the rows hold now (a failed commit throws before this).
      for (const [key, object] of marked) this.keepMark(key, object);
      return { remaining, heldByOthers, done: false };
    }
    // Nothing holds the cluster any more: its ServiceAccounts and RBAC go now, then its namespaces and the cluster. A
    // namespace something still stays in (a ServiceAccount held by a finalizer) is marked and kept, as kube's
    // namespace controller keeps it: no object outlives its namespace.
    const heldIn = new Set<string>();
    const plain: PlainDelete[] = [];
    let namespaces: ResourceType | undefined;
    for (const rt of last) {
      if (rt.storagePrefix === NAMESPACES) namespaces = rt;
      else remaining += this.deleteAll(rt, cluster, batch, { final: { plain }, heldIn });
    }
    if (namespaces) remaining += this.deleteAll(namespaces, cluster, batch, { final: { plain }, keep: heldIn });
    if (remaining > 0) {
      this.addIndexOps(plain, batch, false);
      this.generic.commitBatch(batch);
      return { remaining, heldByOthers: remaining, done: false };
    }
    const ctx = { rt: this.logicalClusterType, cluster, namespace: '' };
    // Removed (done) only together with the sweep of the cluster's bookkeeping below.
    const removal = { clusterRemoved: true };
    const done = this.generic.releaseFinalizer(ctx, lcRow, lc, LOGICAL_CLUSTER_DELETION_FINALIZER, { batch, removal });
    this.addIndexOps(plain, batch, done);
    if (done) {
      this.sweepBookkeeping(cluster, batch);
      this.releaseOwner(lc, batch);
    }
    this.generic.commitBatch(batch);
    // Another finalizer on the LogicalCluster itself keeps it (its removal is an event too, but polling is cheap).
    return { remaining: 0, heldByOthers: done ? 0 : 1, done };
  }

  /**
   * The index ops of the final pass's plain deletes, added once the pass knows whether the cluster goes in this
   * commit: then writers whose rows live under the cluster's swept prefixes are told so (and skip their reads).
   */
  private addIndexOps(plain: PlainDelete[], batch: WriteBatch, clusterRemoved: boolean): void {
    const change = clusterRemoved ? { clusterRemoved } : undefined;
    const ops: WriteOp[] = [];
    for (const { key, object } of plain) for (const op of this.generic.indexOps(key, object, undefined, change)) ops.push(op);
    if (ops.length > 0) batch.add(ops, () => {});
  }

  private deletableTypes(cluster: string): ResourceType[] {
    const stored = this.storedTypes(this.catalogFor(cluster));
    return this.occupied ? stored.filter((rt) => this.occupied!.mayHaveObjects(rt.storagePrefix)) : stored;
  }

  /** A catalog's types with objects of their own in storage, one per storage prefix (catalogs are shared). */
  private storedTypes(catalog: ClusterCatalog): ResourceType[] {
    let out = this.storedTypesOf.get(catalog);
    if (out) return out;
    const seen = new Set<string>();
    out = [];
    for (const rt of catalog.resourceTypes()) {
      if (rt.virtualCreate || rt.storagePrefix === this.logicalClusterType.storagePrefix || seen.has(rt.storagePrefix)) continue;
      seen.add(rt.storagePrefix);
      out.push(rt);
    }
    this.storedTypesOf.set(catalog, out);
    return out;
  }

  /**
   * Deletes every object of one type in the cluster; returns how many stay (finalizers). `final`: the pass that
   * removes the cluster (nothing else is left in it), where an object without finalizers goes as a plain delete of
   * its row, collected in `final.plain` for its index writers' ops (added by the caller in the same commit), which
   * is all the generic delete would write for it with background propagation from this system deleter (no authority
   * or admission applies; its deletion marker, if any, goes in the same commit). Namespaces there also skip their
   * `kubernetes` finalizer: this deleter did its work, except those named in `keep`, which still hold something and
   * are deleted the generic way (marked). `heldIn` collects the namespace of every object that stays.
   */
  private deleteAll(
    rt: ResourceType,
    cluster: string,
    batch: WriteBatch,
    {
      final,
      keep,
      heldIn,
      marked,
    }: { final?: { plain: PlainDelete[] }; keep?: ReadonlySet<string>; heldIn?: Set<string>; marked?: Map<string, KubeObject> } = {},
  ): number {
    let remaining = 0;
    const prefix = `/registry/${rt.storagePrefix}/${cluster}/`;
    for (const kv of this.store.list(prefix).items) {
      // Namespace and name from the key: no need to parse what delete() reads anyway.
      const { namespace, name } = keyNamespaceAndName(rt, kv.key);
      const object = final || rt === this.workspaceType ? this.readRow(rt, kv) : undefined;
      if (final && (object!.metadata?.finalizers ?? []).length === 0 && !keep?.has(name)) {
        const ops: WriteOp[] = [{ type: 'delete', key: kv.key, expectedRevision: kv.revision }];
        // A marker exists only beside an object being deleted (the generic delete's own rule for its removals).
        const marker = object!.metadata?.deletionTimestamp ? this.store.get(deletionMarkerKey(kv.key)) : undefined;
        if (marker) ops.push(removeRow(marker));
        batch.add(ops, () => {});
        final.plain.push({ key: kv.key, object: object! });
        continue;
      }
      try {
        // A row is parsed once, here: marking a child workspace's cluster reads it, and the delete is handed it.
        const current = { row: kv, object };
        const alsoOnMark = rt === this.workspaceType ? this.markChildCluster(object as Workspace, batch, marked) : undefined;
        const result = this.generic.delete({ rt, cluster, namespace }, name, { propagationPolicy: 'Background', batch, current, alsoOnMark, clusterDeletion: true });
        if (!result.removed) {
          remaining++;
          if (namespace) heldIn?.add(namespace);
          if (alsoOnMark) marked?.set(kv.key, result.object);
        }
      } catch (err) {
        if (!(err instanceof StatusError && err.code === 404)) throw err;
      }
    }
    return remaining;
  }

  /**
   * A child workspace about to be marked deleted: its LogicalCluster (hosted here) is marked in the same commit, and
   * the workspace shows Deleting in its marking row, as the workspace controller would write one commit later
   * (watchers of the workspace see one MODIFIED instead of two). Returns the change to the workspace's mark, or
   * undefined to leave the child to the workspace controller (already marked, its cluster elsewhere or not its own).
   */
  private markChildCluster(ws: Workspace, batch: WriteBatch, marked?: Map<string, KubeObject>): ((marked: KubeObject) => void) | undefined {
    if (ws.metadata?.deletionTimestamp) return undefined;
    const child = ws.spec?.cluster;
    const lcRow = child ? this.store.get(logicalClusterKey(child)) : undefined;
    if (!lcRow || !ws.metadata?.uid) return undefined;
    const lc = fromStorage(this.logicalClusterType, decodeStored(lcRow));
    if ((lc.spec as { owner?: { uid?: string } } | undefined)?.owner?.uid !== ws.metadata.uid) return undefined;
    let terminators = (lc.status as { terminators?: string[] } | undefined)?.terminators ?? [];
    if (!lc.metadata?.deletionTimestamp) {
      const current = { row: lcRow, object: lc };
      const mark = this.generic.delete({ rt: this.logicalClusterType, cluster: child!, namespace: '' }, 'cluster', { batch, current }).object;
      marked?.set(lcRow.key, mark);
      terminators = (mark.status as { terminators?: string[] } | undefined)?.terminators ?? [];
    }
    return (marked) => void showDeleting(marked as Workspace, terminators);
  }

  /**
   * The workspace whose LogicalCluster this was, if it is being deleted, loses its `core.kcp.io/logicalcluster`
   * finalizer in the commit that removes the LogicalCluster (the workspace controller would do the same one commit
   * later, after reading both again; watchers see the same events in the same order).
   */
  private releaseOwner(lc: KubeObject, batch: WriteBatch): void {
    const owner = (lc.spec as { owner?: { cluster?: string; name?: string; uid?: string } } | undefined)?.owner;
    if (!this.workspaceType || !owner?.cluster || !owner.name) return;
    const kv = this.store.get(workspaceKey(owner.cluster, owner.name));
    if (!kv) return;
    const ws = this.storedObject(kv);
    const finalizers = ws.metadata?.finalizers ?? [];
    if (ws.metadata?.uid !== owner.uid || !ws.metadata?.deletionTimestamp || !finalizers.includes(LOGICAL_CLUSTER_FINALIZER)) return;
    this.generic.releaseFinalizer({ rt: this.workspaceType, cluster: owner.cluster, namespace: '' }, kv, ws, LOGICAL_CLUSTER_FINALIZER, { batch });
  }

  /**
   * Removes the server's per-cluster keys the objects' own deletes did not already remove in this batch. Deletion
   * markers are not among them: a marker is written in the commit that marks its object and removed in the one that
   * removes it, the final pass's plain deletes included.
   */
  private sweepBookkeeping(cluster: string, batch: WriteBatch): void {
    const deleting = new Set(batch.ops.filter((op) => op.type === 'delete').map((op) => op.key));
    const ops: WriteOp[] = [];
    for (const prefix of clusterBookkeepingPrefixes(cluster)) {
      for (const kv of this.store.list(prefix).items) if (!deleting.has(kv.key)) ops.push(removeRow(kv));
    }
    if (ops.length > 0) batch.add(ops, () => {});
  }
}
