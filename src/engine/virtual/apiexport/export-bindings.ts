/**
 * Which workspaces bind which APIExport, read from apis-core's bindings-by-export index (rows written in each
 * binding's own commit): what the APIExport virtual workspace asks per request and per watched object (a claim in
 * force in that consumer?), and what the endpoint slices publish (an export with a bound consumer has an endpoint).
 *
 * An export's consumers are read the first time someone asks about that export (one prefix scan of its rows) and
 * then followed through a watch of that prefix, whose listener runs inside the commit: a binding that turns Bound is
 * known to the next request and to running watches. Exports nobody asks about cost nothing. One more watch over the
 * whole index (keys only, nothing kept) tells listeners which export's consumers changed.
 */
import { LRUCache } from 'lru-cache';
import { BINDING_INDEX_PREFIX, bindingIndexPrefix, parseRow, type IndexedBinding } from '../../apis/binding-index.js';
import type { KubeObject } from '../../registry/types.js';
import type { Store, WatchHandle } from '../../storage/store.js';

/** `<export cluster>|<export name>` */
export type ExportKey = string;

export const exportKey = (cluster: string, name: string): ExportKey => `${cluster}|${name}`;

/** A consumer's Bound binding to an export, as the virtual workspace needs it. */
export interface ConsumerBinding extends IndexedBinding {
  /** The binding's accepted claims in the shape of an APIBinding (what claim evaluation reads). */
  claims: KubeObject;
}

export interface ExportBindingsReader {
  /** Consumers with a Bound binding to the export: cluster → binding. */
  boundConsumers(exportCluster: string, exportName: string): ReadonlyMap<string, ConsumerBinding>;
  /** The consumer's Bound binding to the export (a map lookup: asked per object of a watch). */
  boundBinding(exportCluster: string, exportName: string, consumer: string): ConsumerBinding | undefined;
  /** Whether any workspace has a Bound binding to the export. */
  hasBindings(exportCluster: string, exportName: string): boolean;
  /** Called (inside the storage commit; only queue work) with the export whose consumers changed. */
  onChange(listener: (exportCluster: string, exportName: string) => void): void;
}

interface Followed {
  /** consumer cluster → binding name → binding */
  consumers: Map<string, Map<string, ConsumerBinding>>;
  watch: WatchHandle;
}

/** Exports whose consumers stay followed in memory. */
const FOLLOWED_EXPORTS = 1024;

export class ExportBindings implements ExportBindingsReader {
  private readonly followed = new LRUCache<ExportKey, Followed>({
    max: FOLLOWED_EXPORTS,
    dispose: (entry) => entry.watch.cancel(),
  });
  private readonly listeners: Array<(cluster: string, name: string) => void> = [];
  private changes?: WatchHandle;

  constructor(private readonly store: Store) {}

  /** Tells onChange listeners about every export whose consumers change from now on. */
  start(): void {
    this.changes ??= this.store.watch(BINDING_INDEX_PREFIX, this.store.currentRevision(), (events) => {
      for (const e of events) {
        const [cluster, encoded] = e.key.slice(BINDING_INDEX_PREFIX.length).split('/') as [string, string];
        const name = decodeURIComponent(encoded);
        for (const listener of this.listeners) listener(cluster, name);
      }
    });
  }

  stop(): void {
    this.changes?.cancel();
    this.changes = undefined;
    this.followed.clear();
  }

  onChange(listener: (exportCluster: string, exportName: string) => void): void {
    this.listeners.push(listener);
  }

  boundConsumers(exportCluster: string, exportName: string): ReadonlyMap<string, ConsumerBinding> {
    const found = new Map<string, ConsumerBinding>();
    for (const [cluster, bindings] of this.follow(exportCluster, exportName).consumers) found.set(cluster, firstOf(bindings));
    return found;
  }

  boundBinding(exportCluster: string, exportName: string, consumer: string): ConsumerBinding | undefined {
    const bindings = this.follow(exportCluster, exportName).consumers.get(consumer);
    return bindings ? firstOf(bindings) : undefined;
  }

  hasBindings(exportCluster: string, exportName: string): boolean {
    return this.follow(exportCluster, exportName).consumers.size > 0;
  }

  private follow(exportCluster: string, exportName: string): Followed {
    const key = exportKey(exportCluster, exportName);
    let entry = this.followed.get(key);
    if (entry) return entry;
    const prefix = bindingIndexPrefix(exportCluster, exportName);
    const page = this.store.list(prefix);
    const consumers = new Map<string, Map<string, ConsumerBinding>>();
    const add = (row: IndexedBinding) => {
      let bindings = consumers.get(row.cluster);
      if (!bindings) consumers.set(row.cluster, (bindings = new Map()));
      bindings.set(row.binding, withClaims(row));
    };
    const remove = (row: IndexedBinding) => {
      const bindings = consumers.get(row.cluster);
      bindings?.delete(row.binding);
      if (bindings?.size === 0) consumers.delete(row.cluster);
    };
    for (const kv of page.items) add(parseRow(prefix, kv.key, kv.value));
    const watch = this.store.watch(prefix, page.revision, (events) => {
      for (const e of events) (e.type === 'DELETED' ? remove : add)(parseRow(prefix, e.key, e.value));
    });
    entry = { consumers, watch };
    this.followed.set(key, entry);
    return entry;
  }
}

/** Several bindings of one consumer to one export: the first by name is the one that counts. */
function firstOf(bindings: ReadonlyMap<string, ConsumerBinding>): ConsumerBinding {
  let first: ConsumerBinding | undefined;
  for (const b of bindings.values()) if (!first || b.binding < first.binding) first = b;
  return first!;
}

function withClaims(row: IndexedBinding): ConsumerBinding {
  return { ...row, claims: { spec: { permissionClaims: row.acceptedClaims } } };
}
