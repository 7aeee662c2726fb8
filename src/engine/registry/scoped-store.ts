/**
 * A view of the store that holds only what one request may reach of one key range (the objects of a resource that a
 * virtual workspace shows a provider in its consumers). Inside the range a read sees only the objects the scope
 * admits, and a write may neither touch an object the scope does not admit nor store one it does not admit; every
 * key outside the range passes through (namespaces, deletion markers, index rows), so the generic store's pipeline
 * runs over the view unchanged.
 *
 * Served with this view and a generic store over it, a request cannot get past the scope whatever path it takes:
 * GET, LIST, WATCH, every write and patch, server-side apply and the objects a delete-collection reads and deletes.
 * A watch sees an object that stops being admitted as DELETED (with the last content it was admitted with) and one
 * that starts being admitted as ADDED, as kube's filtered watch does.
 */
import type { StatusError } from '../machinery/status.js';
import {
  KeyNotFoundError,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type Store,
  type StoreEvent,
  type WriteOp,
} from '../storage/store.js';
import { clusterAnnotation } from './stored-object.js';
import type { KubeObject } from './types.js';

export interface StorageScope {
  /** The key range the scope rules (`/registry/<storage prefix>/`): every cluster's objects of one resource. */
  readonly prefix: string;
  /** Whether the object stored (or about to be stored) in `cluster` is there for the request. */
  admits(cluster: string, obj: KubeObject): boolean;
  /** No write may touch the range at all (the scope is for reading). */
  readOnly?: boolean;
  /** The answer to a write that would store an object the scope does not admit, or any write of a read-only scope. */
  refusal(obj: KubeObject | undefined): StatusError;
}

/** The scope as a predicate on served objects (lists and watches filter on it too), by their `kcp.io/cluster`. */
export function scopePredicate(scope: StorageScope): (obj: KubeObject) => boolean {
  return (obj) => {
    const cluster = obj.metadata?.annotations?.[clusterAnnotation];
    return cluster !== undefined && scope.admits(cluster, obj);
  };
}

/** How many keys a list reads per round while it looks for admitted objects. */
const ROUND = 500;

export function scopedStore(inner: Store, scope: StorageScope): Store {
  const { prefix } = scope;
  const inRange = (key: string) => key.startsWith(prefix);
  const overlaps = (range: string) => range.startsWith(prefix) || prefix.startsWith(range);
  // The key names the cluster (`<prefix><cluster>/…`); the object's own annotation is data and not asked.
  const admitted = (key: string, value: string): boolean => scope.admits(key.slice(prefix.length).split('/', 1)[0]!, JSON.parse(value) as KubeObject);
  const visible = (kv: KeyValue) => !inRange(kv.key) || admitted(kv.key, kv.value);

  function list(range: string, options: ListOptions = {}): ListResult {
    if (!overlaps(range)) return inner.list(range, options);
    const limit = options.limit && options.limit > 0 ? options.limit : 0;
    const items: KeyValue[] = [];
    let startAfter = options.startAfter;
    let revision = options.revision;
    for (;;) {
      // No `remaining`: counting what follows would count objects the scope hides.
      const page = inner.list(range, { startAfter, revision, limit: limit ? Math.max(limit - items.length, ROUND) : 0, countRemaining: false });
      revision = page.revision;
      for (let i = 0; i < page.items.length; i++) {
        const kv = page.items[i]!;
        if (!visible(kv)) continue;
        items.push(kv);
        if (limit && items.length >= limit) return { items, revision, more: i < page.items.length - 1 || page.more };
      }
      if (!page.more || !limit || page.items.length === 0) return { items, revision, more: page.more && limit === 0 };
      startAfter = page.items[page.items.length - 1]!.key;
    }
  }

  /** A store event as this scope's watcher sees it (undefined: not at all). */
  function seen(event: StoreEvent): StoreEvent | undefined {
    if (!inRange(event.key)) return event;
    const { type, key, revision, value, prevValue } = event;
    if (type === 'DELETED') return admitted(key, value) ? { type, key, revision, value } : undefined;
    const now = admitted(key, value);
    // Without the previous value (compacted), the object is taken to have been where it is now.
    const before = type === 'MODIFIED' && (prevValue !== undefined ? admitted(key, prevValue) : now);
    if (now && before) return { type, key, revision, value, ...(prevValue !== undefined ? { prevValue } : {}) };
    if (now) return { type: 'ADDED', key, revision, value };
    if (before && prevValue !== undefined) return { type: 'DELETED', key, revision, value: prevValue };
    return undefined;
  }

  function check(op: WriteOp): void {
    if (!inRange(op.key)) return;
    const current = op.type === 'create' ? undefined : inner.get(op.key);
    if (scope.readOnly) throw scope.refusal(op.type === 'delete' ? parsed(current?.value) : JSON.parse(op.value) as KubeObject);
    // An object the scope hides is not there for this request: changing or deleting it finds nothing.
    if (current && !admitted(current.key, current.value)) throw new KeyNotFoundError(`key ${op.key} not found`, op.key);
    if (op.type === 'delete') return;
    for (const value of op.type === 'create' && op.firstValue !== undefined ? [op.firstValue, op.value] : [op.value]) {
      if (!admitted(op.key, value)) throw scope.refusal(JSON.parse(value) as KubeObject);
    }
  }

  const view: Store = {
    name: inner.name,
    currentRevision: () => inner.currentRevision(),
    compactedRevision: () => inner.compactedRevision(),
    get(key) {
      const kv = inner.get(key);
      return kv && visible(kv) ? kv : undefined;
    },
    list,
    count: (range) => (overlaps(range) ? list(range).items.length : inner.count(range)),
    commit(ops) {
      for (const op of ops) check(op);
      return inner.commit(ops);
    },
    watch(range, fromRevision, listener) {
      if (!overlaps(range)) return inner.watch(range, fromRevision, listener);
      return inner.watch(range, fromRevision, (events) => {
        const shown = events.map(seen).filter((e): e is StoreEvent => e !== undefined);
        if (shown.length > 0) listener(shown);
      });
    },
    compact() {
      throw new Error('a scoped view of the store does not compact');
    },
    close() {
      throw new Error('a scoped view of the store is not closed: its store is');
    },
  };
  if (inner.group) view.group = (fn) => inner.group!(fn);
  return view;
}

function parsed(value: string | undefined): KubeObject | undefined {
  return value === undefined ? undefined : (JSON.parse(value) as KubeObject);
}
