/**
 * One garbage collector for the whole server, for every logical cluster: deleting an owner deletes (Background,
 * Foreground) or releases (Orphan) its dependents in the same logical cluster, and dependents whose owners do not
 * exist are collected.
 *
 * It never scans objects or clusters. Everything it needs is in keys the generic store writes in the same commit as
 * the objects (owner-index.ts): the owner index (dependents of an owner uid: one prefix list), absent-owner markers
 * and deletion markers. It follows three storage watches on those keys, and at start-up lists only the markers,
 * which hold pending work and nothing else:
 * - a deletion marker written or touched → the object may carry `orphan` / `foregroundDeletion` now, or (touched by
 *   the owner index) has a new dependent to delete first;
 * - an absent-owner marker → settle the dependents of a gone (or never existing) owner, then drop the marker;
 * - a blocking index entry removed → the foreground-deleting owner may be free to go.
 */
import { StatusError } from '../machinery/status.js';
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from '../registry/gc-finalizers.js';
import type { GenericStore, OpContext } from '../registry/generic-store.js';
import { clusterOfKey, decodeStored } from '../registry/stored-object.js';
import type { KubeObject, ObjectMeta, OwnerReference } from '../registry/types.js';
import { hasKeys, type Store } from '../storage/store.js';
import { defineController, type Controller, type ControllerQueue } from './controller.js';
import { decideForDependent, type ClassifiedReference, type OwnerState } from './gc-decisions.js';
import {
  absentOwnerKey,
  absentOwnerRoot,
  absentReason,
  blockingDependentsPrefix,
  dependentsPrefix,
  ownerIndexRoot,
  parseAbsentOwnerKey,
  parseOwnerIndexKey,
} from './owner-index.js';
import { namespaceOfKey, type OwnerResolver } from './owner-references.js';

export interface GarbageCollectorDeps {
  store: Store;
  generic: GenericStore;
  owners: OwnerResolver;
  onError?(controller: string, key: string, err: unknown): void;
}

const deletionMarkerRoot = '/kcpt/deleting/';
/** Dependents handled between two yields to the event loop, so one huge owner never stalls requests. */
const PAGE = 200;

/** Queue keys are JSON tuples; the work queue coalesces equal ones. */
type Task =
  /** An object's deletion state changed: run its orphan or foreground deletion. */
  | ['owner', string]
  /** A blocking dependent of this owner (key, uid) went away: finish its foreground deletion if none is left. */
  | ['unblocked', string, string]
  /** An owner uid is gone (or was never there): settle its dependents. */
  | ['absent', string, string];

export function garbageCollector(deps: GarbageCollectorDeps): Controller {
  const { store } = deps;
  return defineController({
    name: 'garbagecollector',
    store,
    onError: deps.onError,
    watches(feed) {
      const add = (task: Task) => feed.add(JSON.stringify(task));
      const onAbsentMarker = (key: string) => {
        const parsed = parseAbsentOwnerKey(key);
        if (parsed) add(['absent', parsed.cluster, parsed.ownerUid]);
      };
      // Work a restart interrupted. Both lists hold pending work only, never the objects themselves.
      for (const kv of store.list(deletionMarkerRoot).items) add(['owner', objectKeyOfMarker(kv.key)]);
      for (const kv of store.list(absentOwnerRoot).items) onAbsentMarker(kv.key);
      feed.watch(deletionMarkerRoot, (e) => {
        if (e.type !== 'DELETED') add(['owner', objectKeyOfMarker(e.key)]);
      });
      feed.watch(absentOwnerRoot, (e) => {
        if (e.type !== 'DELETED') onAbsentMarker(e.key);
      });
      // Runs inside the commit: only queues work.
      feed.watch(ownerIndexRoot, (e) => {
        const entry = parseOwnerIndexKey(e.key);
        if (!entry?.blocking || e.type !== 'DELETED') return;
        let ref: OwnerReference;
        try {
          ref = JSON.parse(e.value) as OwnerReference;
        } catch {
          return;
        }
        const ownerKey = deps.owners.ownerKey(entry.cluster, namespaceOfKey(entry.dependentKey), ref);
        if (ownerKey) add(['unblocked', ownerKey, entry.ownerUid]);
      });
    },
    reconcile: (key, queue) => new Collection(deps, queue).run(JSON.parse(key) as Task),
  });
}

/** One task's work: the collector's reads and writes, and where the follow-up tasks it finds go. */
class Collection {
  constructor(
    private readonly deps: GarbageCollectorDeps,
    private readonly queue: ControllerQueue,
  ) {}

  private add(task: Task): void {
    this.queue.add(JSON.stringify(task));
  }

  async run(task: Task): Promise<void> {
    try {
      switch (task[0]) {
        case 'owner':
          return await this.processOwner(task[1], { full: true });
        case 'unblocked':
          return await this.processOwner(task[1], { full: false, uid: task[2] });
        case 'absent':
          return await this.processAbsentOwner(task[1], task[2]);
      }
    } catch (err) {
      // The object went away meanwhile: whatever it needed is moot.
      if (err instanceof StatusError && err.code === 404) return;
      throw err;
    }
  }

  /**
   * An owner being deleted with a GC finalizer. `full`: release (orphan) or delete (foreground) every dependent
   * first; otherwise only check whether blocking dependents remain.
   */
  private async processOwner(ownerKey: string, opts: { full: boolean; uid?: string }): Promise<void> {
    const owner = this.readHeldOwner(ownerKey);
    const meta = owner?.metadata;
    if (!meta?.deletionTimestamp || !meta.uid || (opts.uid && meta.uid !== opts.uid)) return;
    const cluster = clusterOfKey(ownerKey);
    const finalizers = meta.finalizers ?? [];
    if (finalizers.includes(ORPHAN_FINALIZER)) {
      if (!opts.full) return;
      await this.forEachDependent(cluster, meta.uid, (dependentKey) => this.dropReferences(dependentKey, [meta.uid!]));
      this.removeFinalizer(ownerKey, meta.uid, ORPHAN_FINALIZER);
      return;
    }
    if (!finalizers.includes(FOREGROUND_FINALIZER)) return;
    if (opts.full) await this.forEachDependent(cluster, meta.uid, (dependentKey) => this.settleDependent(dependentKey));
    if (!this.hasDependents(blockingDependentsPrefix(cluster, meta.uid))) {
      this.removeFinalizer(ownerKey, meta.uid, FOREGROUND_FINALIZER);
    }
  }

  private async processAbsentOwner(cluster: string, ownerUid: string): Promise<void> {
    const { store } = this.deps;
    const markerKey = absentOwnerKey(cluster, ownerUid);
    const marker = store.get(markerKey);
    if (!marker) return;
    // A deleted owner's uid is gone for good, whatever name a reference spells or whether its kind is still served
    // (a CRD deleted right after its objects). A "missing" owner was only missing at one name: look every one up.
    const goneUid = absentReason(marker.value) === 'deleted' ? ownerUid : undefined;
    await this.forEachDependent(cluster, ownerUid, (dependentKey) => this.settleDependent(dependentKey, goneUid));
    const now = store.get(markerKey);
    if (now && now.revision === marker.revision) store.commit([{ type: 'delete', key: markerKey, expectedRevision: now.revision }]);
  }

  /** kube's attemptToDeleteItem for one dependent. */
  private settleDependent(dependentKey: string, goneUid?: string): void {
    const obj = this.read(dependentKey);
    const meta = obj?.metadata;
    if (!obj || !meta) return;
    if (meta.deletionTimestamp) {
      // Deletion is one way; a dependent deleting its own dependents first is an owner to drive on.
      if (meta.finalizers?.includes(FOREGROUND_FINALIZER)) this.add(['owner', dependentKey]);
      return;
    }
    const refs = meta.ownerReferences ?? [];
    if (refs.length === 0) return;
    const cluster = clusterOfKey(dependentKey);
    const classified: ClassifiedReference[] = refs.map((ref) => ({
      uid: ref.uid,
      state: ref.uid === goneUid ? 'dangling' : this.ownerState(cluster, meta.namespace ?? '', ref),
    }));
    const decision = decideForDependent(classified, {
      finalizers: meta.finalizers ?? [],
      hasDependents: () => this.hasDependents(dependentsPrefix(cluster, meta.uid!)),
      hasDependentDeletingInForeground: () => this.hasDependentDeletingInForeground(cluster, meta.uid!),
    });
    if (decision.action === 'keep') return;
    if (decision.action === 'dropReferences') {
      this.dropReferences(dependentKey, decision.uids);
      return;
    }
    const ctx = this.ctx(dependentKey, obj);
    if (!ctx) return;
    let resourceVersion = meta.resourceVersion;
    if (decision.unblockFirst) {
      const unblocked = refs.map((r) => (r.blockOwnerDeletion ? { ...r, blockOwnerDeletion: false } : r));
      resourceVersion = this.deps.generic.update(ctx, meta.name!, { ...obj, metadata: { ...meta, ownerReferences: unblocked } }).metadata
        ?.resourceVersion;
    }
    this.deps.generic.delete(ctx, meta.name!, {
      propagationPolicy: decision.policy,
      preconditions: { uid: meta.uid, resourceVersion },
    });
  }

  private ownerState(cluster: string, namespace: string, ref: OwnerReference): OwnerState {
    const found = this.deps.owners.lookup(cluster, namespace, ref);
    // An owner of a kind this cluster does not serve is never taken for gone: deleting on a guess loses data.
    if (found.state === 'unresolvable') return 'solid';
    if (found.state === 'absent') return 'dangling';
    const ownerMeta = found.owner.metadata;
    return ownerMeta?.deletionTimestamp && ownerMeta.finalizers?.includes(FOREGROUND_FINALIZER) ? 'waiting' : 'solid';
  }

  /** Removes the references to `uids` from a dependent (orphaning, or dropping gone owners). */
  private dropReferences(dependentKey: string, uids: string[]): void {
    const obj = this.read(dependentKey);
    const meta = obj?.metadata;
    if (!obj || !meta?.ownerReferences) return;
    const kept = meta.ownerReferences.filter((r) => !uids.includes(r.uid));
    if (kept.length === meta.ownerReferences.length) return;
    const ctx = this.ctx(dependentKey, obj);
    if (!ctx) return;
    const next: ObjectMeta = { ...meta, ownerReferences: kept };
    if (kept.length === 0) delete next.ownerReferences;
    this.deps.generic.update(ctx, meta.name!, { ...obj, metadata: next });
  }

  private removeFinalizer(key: string, uid: string, finalizer: string): void {
    const obj = this.read(key);
    const meta = obj?.metadata;
    if (!obj || !meta || meta.uid !== uid || !meta.finalizers?.includes(finalizer)) return;
    const ctx = this.ctx(key, obj);
    if (!ctx) return;
    const next: ObjectMeta = { ...meta, finalizers: meta.finalizers.filter((f) => f !== finalizer) };
    if (next.finalizers!.length === 0) delete next.finalizers;
    this.deps.generic.update(ctx, meta.name!, { ...obj, metadata: next });
  }

  /** Calls `fn` for every dependent of an owner uid, a page at a time, yielding to the event loop in between. */
  private async forEachDependent(cluster: string, ownerUid: string, fn: (dependentKey: string) => void): Promise<void> {
    const prefix = dependentsPrefix(cluster, ownerUid);
    let startAfter: string | undefined;
    for (;;) {
      const page = this.deps.store.list(prefix, { startAfter, limit: PAGE });
      for (const kv of page.items) {
        const entry = parseOwnerIndexKey(kv.key);
        if (entry) fn(entry.dependentKey);
      }
      if (!page.more || page.items.length === 0) return;
      startAfter = page.items[page.items.length - 1]!.key;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  private hasDependents(prefix: string): boolean {
    return hasKeys(this.deps.store, prefix);
  }

  private hasDependentDeletingInForeground(cluster: string, uid: string): boolean {
    for (const kv of this.deps.store.list(dependentsPrefix(cluster, uid)).items) {
      const entry = parseOwnerIndexKey(kv.key);
      const meta = entry && this.read(entry.dependentKey)?.metadata;
      if (meta?.deletionTimestamp && meta.finalizers?.includes(FOREGROUND_FINALIZER)) return true;
    }
    return false;
  }

  /**
   * An owner that may hold a GC finalizer, parsed; undefined without either finalizer's name in its text (most
   * objects being deleted: every workspace and LogicalCluster of a tree deletion has a marker this task reads).
   */
  private readHeldOwner(key: string): KubeObject | undefined {
    const kv = this.deps.store.get(key);
    if (!kv || (!kv.value.includes(`"${ORPHAN_FINALIZER}"`) && !kv.value.includes(`"${FOREGROUND_FINALIZER}"`))) return undefined;
    return decodeStored(kv);
  }

  private read(key: string): KubeObject | undefined {
    const kv = this.deps.store.get(key);
    return kv ? decodeStored(kv) : undefined;
  }

  /** Context to write a stored object back through the generic store (undefined if its type is not served). */
  private ctx(key: string, obj: KubeObject): OpContext | undefined {
    const cluster = clusterOfKey(key);
    const rt = this.deps.owners.typeOf(cluster, key, obj);
    if (!rt) return undefined;
    return { rt, cluster, namespace: rt.namespaced ? (obj.metadata?.namespace ?? '') : '' };
  }
}

function objectKeyOfMarker(markerKey: string): string {
  return `/registry/${markerKey.slice(deletionMarkerRoot.length)}`;
}
