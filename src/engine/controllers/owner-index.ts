/**
 * The garbage collector's persistent owner index, written by the generic store in the same commit as each
 * dependent (see registry/index-writer.ts), so it survives restarts and never needs a scan to rebuild:
 *
 *   /kcpt/owners/<cluster>/<owner uid>/<b|n>/<dependent's storage key without /registry/>  →  {apiVersion,kind,name}
 *
 * One key per (dependent, owner uid); `b` when the reference has blockOwnerDeletion: true. The dependents of an
 * owner are one prefix list, the blocking ones another, and a dependent in one logical cluster can never be found
 * through an owner in another.
 *
 * Absent-owner markers record work a restart must not lose:
 *
 *   /kcpt/gc/absent-owners/<cluster>/<owner uid>  →  {"reason":"deleted"|"missing"}
 *
 * "deleted" is written in the commit that removes an owner that still has dependents; "missing" in the commit that
 * gives a dependent a reference to an owner that does not exist. The collector settles the dependents, then drops
 * the marker. A new reference to an owner being deleted in the foreground touches that owner's deletion marker
 * instead, so the collector deletes the newcomer too. The collector thus does no work at all when a dependent of
 * a live owner is written.
 */
import { FOREGROUND_FINALIZER } from '../registry/gc-finalizers.js';
import type { IndexWriter } from '../registry/index-writer.js';
import { deletionMarkerKey } from '../registry/object-rules.js';
import { clusterOfKey } from '../registry/stored-object.js';
import type { KubeObject } from '../registry/types.js';
import { hasKeys, type Store, type WriteOp } from '../storage/store.js';
import type { OwnerResolver } from './owner-references.js';

export const ownerIndexRoot = '/kcpt/owners/';
export const absentOwnerRoot = '/kcpt/gc/absent-owners/';
const registryRoot = '/registry/';

export type AbsentReason = 'deleted' | 'missing';

/** uids come from clients inside ownerReferences; encoding keeps a `/` in one from splitting the key. */
const encodeUid = (uid: string) => encodeURIComponent(uid);

export function dependentsPrefix(cluster: string, ownerUid: string): string {
  return `${ownerIndexRoot}${cluster}/${encodeUid(ownerUid)}/`;
}

export function blockingDependentsPrefix(cluster: string, ownerUid: string): string {
  return `${dependentsPrefix(cluster, ownerUid)}b/`;
}

export function ownerIndexKey(cluster: string, ownerUid: string, blocking: boolean, dependentKey: string): string {
  return `${dependentsPrefix(cluster, ownerUid)}${blocking ? 'b' : 'n'}/${dependentKey.slice(registryRoot.length)}`;
}

export interface OwnerIndexEntry {
  cluster: string;
  ownerUid: string;
  blocking: boolean;
  dependentKey: string;
}

export function parseOwnerIndexKey(key: string): OwnerIndexEntry | undefined {
  if (!key.startsWith(ownerIndexRoot)) return undefined;
  const [cluster, uid, flag, ...rest] = key.slice(ownerIndexRoot.length).split('/');
  if (!cluster || !uid || (flag !== 'b' && flag !== 'n') || rest.length === 0) return undefined;
  return { cluster, ownerUid: decodeURIComponent(uid), blocking: flag === 'b', dependentKey: `${registryRoot}${rest.join('/')}` };
}

export function absentOwnerKey(cluster: string, ownerUid: string): string {
  return `${absentOwnerRoot}${cluster}/${encodeUid(ownerUid)}`;
}

export function parseAbsentOwnerKey(key: string): { cluster: string; ownerUid: string } | undefined {
  if (!key.startsWith(absentOwnerRoot)) return undefined;
  const [cluster, uid, ...rest] = key.slice(absentOwnerRoot.length).split('/');
  if (!cluster || !uid || rest.length > 0) return undefined;
  return { cluster, ownerUid: decodeURIComponent(uid) };
}

export function absentReason(value: string): AbsentReason {
  try {
    return (JSON.parse(value) as { reason?: string }).reason === 'deleted' ? 'deleted' : 'missing';
  } catch {
    return 'missing';
  }
}

interface OwnerEntry {
  blocking: boolean;
  /** The reference's coordinates, stored as the index value (the collector resolves the owner from them). */
  value: string;
  ref: { apiVersion: string; kind: string; name: string; uid: string };
}

/** One entry per owner uid (a uid listed twice blocks if either reference does). */
export function ownerEntries(obj: KubeObject | undefined): Map<string, OwnerEntry> {
  const entries = new Map<string, OwnerEntry>();
  for (const ref of obj?.metadata?.ownerReferences ?? []) {
    if (!ref?.uid) continue;
    const seen = entries.get(ref.uid);
    if (seen) {
      seen.blocking ||= ref.blockOwnerDeletion === true;
      continue;
    }
    const coordinates = { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name };
    entries.set(ref.uid, { blocking: ref.blockOwnerDeletion === true, value: JSON.stringify(coordinates), ref: { ...coordinates, uid: ref.uid } });
  }
  return entries;
}

/**
 * The index writer for the generic store. Cheap when nothing changes: objects without ownerReferences cost
 * nothing on create and update, and one bounded prefix probe when they are removed.
 */
export function ownerIndexWriter(store: Store, owners: OwnerResolver): IndexWriter {
  return (key, before, after, change) => {
    // Every row of this index for a removed object is under its cluster's /kcpt/owners/ or /kcpt/gc/absent-owners/
    // (owners and dependents share a cluster), which a cluster's removal sweeps in the same commit.
    if (after === undefined && change?.clusterRemoved) return [];
    const was = ownerEntries(before);
    const now = ownerEntries(after);
    const removedUid = after === undefined ? before?.metadata?.uid : undefined;
    if (was.size === 0 && now.size === 0 && !removedUid) return [];
    const cluster = clusterOfKey(key);
    const ops = new OpList(store);
    for (const [uid, old] of was) {
      const next = now.get(uid);
      if (!next || next.blocking !== old.blocking) ops.remove(ownerIndexKey(cluster, uid, old.blocking, key));
    }
    for (const [uid, next] of now) {
      const old = was.get(uid);
      if (old && old.blocking === next.blocking && old.value === next.value) continue;
      ops.put(ownerIndexKey(cluster, uid, next.blocking, key), next.value);
      // A reference to an object it did not name before: hand the collector what it must act on, durably.
      if (!old || old.value !== next.value) {
        const owner = owners.lookup(cluster, after?.metadata?.namespace ?? '', next.ref);
        if (owner.state === 'absent') ops.putIfAbsent(absentOwnerKey(cluster, uid), JSON.stringify({ reason: 'missing' }));
        else if (owner.state === 'present' && isDeletingInForeground(owner.owner)) ops.touch(deletionMarkerKey(owner.key));
      }
    }
    if (removedUid && hasKeys(store, dependentsPrefix(cluster, removedUid))) {
      ops.put(absentOwnerKey(cluster, removedUid), JSON.stringify({ reason: 'deleted' }));
    }
    return ops.ops;
  };
}

function isDeletingInForeground(obj: KubeObject): boolean {
  return Boolean(obj.metadata?.deletionTimestamp && obj.metadata.finalizers?.includes(FOREGROUND_FINALIZER));
}

/** Builds ops that cannot fail on the current store state (create vs update decided by a read). */
class OpList {
  readonly ops: WriteOp[] = [];
  private readonly touched = new Set<string>();

  constructor(private readonly store: Store) {}

  put(key: string, value: string): void {
    if (this.touched.has(key)) return;
    this.touched.add(key);
    const current = this.store.get(key);
    if (!current) this.ops.push({ type: 'create', key, value });
    else if (current.value !== value) this.ops.push({ type: 'update', key, value });
  }

  putIfAbsent(key: string, value: string): void {
    if (this.touched.has(key) || this.store.get(key)) return;
    this.touched.add(key);
    this.ops.push({ type: 'create', key, value });
  }

  /** Rewrites a marker so its watchers look again (creates it if an older store lacks it). */
  touch(key: string): void {
    if (this.touched.has(key)) return;
    this.touched.add(key);
    this.ops.push(this.store.get(key) ? { type: 'update', key, value: '{}' } : { type: 'create', key, value: '{}' });
  }

  remove(key: string): void {
    if (this.touched.has(key)) return;
    this.touched.add(key);
    if (this.store.get(key)) this.ops.push({ type: 'delete', key });
  }
}
