/**
 * Rules about object metadata that the generic store applies to every type: server-owned fields, generation,
 * storage-shape conversion, and the markers that let controllers find pending deletions after a restart.
 */
import { badRequest } from '../machinery/status.js';
import type { KeyValue, WriteOp } from '../storage/store.js';
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from './gc-finalizers.js';
import { jsonEqual } from './stored-object.js';
import { apiVersionOf, type KubeObject, type ResourceType } from './types.js';

let stampSecond = -1;
let stamp = '';

/** The current time as kube writes timestamps (RFC 3339, whole seconds); formatted once per second. */
export function nowTimestamp(): string {
  const second = Math.floor(Date.now() / 1000);
  if (second !== stampSecond) {
    stampSecond = second;
    stamp = new Date(second * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  return stamp;
}

/** Types stored in another shape (events.k8s.io Events live as core Events) convert on the way in and out. */
export function fromStorage(rt: ResourceType, obj: KubeObject): KubeObject {
  return rt.convert ? rt.convert.fromStorage(obj) : obj;
}

export function toStorage(rt: ResourceType, obj: KubeObject): KubeObject {
  return rt.convert ? rt.convert.toStorage(obj) : obj;
}

export const protectedNamespaces = new Set(['default', 'kube-system', 'kube-public']);

/**
 * Objects waiting on finalizers get a marker key written in the same commit that sets deletionTimestamp, so
 * controllers find pending deletions after a restart without scanning every logical cluster.
 */
export function deletionMarkerKey(objKey: string): string {
  return `/kcpt/deleting${objKey.slice('/registry'.length)}`;
}

export function deletionMarkerPrefix(storagePrefix: string): string {
  return `/kcpt/deleting/${storagePrefix}/`;
}

/**
 * The value of a marker written without an event. Markers are watched by the garbage collector alone, which acts
 * only on objects holding one of its finalizers; every other object's marker (each Workspace and LogicalCluster of a
 * tree deletion) is only ever listed after a restart, so it is written and removed unlogged. A marker written with
 * an event (or rewritten with one, which gives it another value) is removed with one: the log keeps an event's
 * value in the key's next event, which an unlogged removal would not write.
 */
const UNLOGGED_MARKER = '{"unlogged":true}';

/** The op creating the deletion marker of an object marked with these finalizers. */
export function createDeletionMarker(marker: string, finalizers: readonly string[]): WriteOp {
  const watched = finalizers.includes(ORPHAN_FINALIZER) || finalizers.includes(FOREGROUND_FINALIZER);
  return watched ? { type: 'create', key: marker, value: '{}' } : { type: 'create', key: marker, value: UNLOGGED_MARKER, unlogged: true };
}

/** The op removing a stored row, unlogged when it is a marker written unlogged. */
export function removeRow(row: KeyValue): WriteOp {
  return row.value === UNLOGGED_MARKER ? { type: 'delete', key: row.key, unlogged: true } : { type: 'delete', key: row.key };
}

export function checkTypeMeta(rt: ResourceType, obj: KubeObject): void {
  const expected = apiVersionOf(rt);
  if (obj.apiVersion !== undefined && obj.apiVersion !== expected) {
    throw badRequest(`the API version in the data (${obj.apiVersion}) does not match the expected API version (${expected})`);
  }
  if (obj.kind !== undefined && obj.kind !== rt.kind) {
    throw badRequest(`the kind in the data (${obj.kind}) does not match the expected kind (${rt.kind})`);
  }
  obj.apiVersion = expected;
  obj.kind = rt.kind;
}

/** Metadata the server owns on update: copied from the stored object whatever the client sent. */
export function copySystemMetadata(old: KubeObject, obj: KubeObject): void {
  const from = old.metadata!;
  const to = obj.metadata!;
  to.uid = from.uid;
  to.creationTimestamp = from.creationTimestamp;
  if (from.deletionTimestamp) to.deletionTimestamp = from.deletionTimestamp;
  else delete to.deletionTimestamp;
  if (from.deletionGracePeriodSeconds !== undefined) to.deletionGracePeriodSeconds = from.deletionGracePeriodSeconds;
  else delete to.deletionGracePeriodSeconds;
  if (from.generation !== undefined) to.generation = from.generation;
  else delete to.generation;
  if (!to.generateName && from.generateName) to.generateName = from.generateName;
}

/** True when anything outside metadata and status changed (what bumps metadata.generation). */
export function specChanged(old: KubeObject, obj: KubeObject): boolean {
  const strip = (o: KubeObject) => {
    const { metadata: _m, status: _s, ...rest } = o;
    return rest;
  };
  return !jsonEqual(strip(old), strip(obj));
}
