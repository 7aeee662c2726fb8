/**
 * Which workspaces bind which APIExport: what the APIExport virtual workspace serves (consumers with a Bound binding)
 * and what the endpoint slices publish (an export with at least one binding has an endpoint).
 *
 * Kept in memory from the APIBindings themselves: read once, the first time anyone asks (nothing at start-up), then
 * followed through one storage watch, whose listener runs inside the commit, so a binding that turns Bound is served
 * by the next request and a watch across consumers sees the objects created after it. (apis-core's binding index
 * can replace the one read when it lands: the reader interface is what the virtual workspace and slices use.) A binding names its export by
 * path; once bound its status carries the export's cluster name, before that the path is resolved here.
 */
import type { KubeObject } from '../../registry/types.js';
import type { Store, StoreEvent, WatchHandle } from '../../storage/store.js';

import { bindingExportReference } from '../../apis/export-reference.js';
import { BINDINGS_PREFIX as API_BINDINGS_PREFIX } from '../../apis/names.js';

/** `<export cluster>|<export name>` */
export type ExportKey = string;

export const exportKey = (cluster: string, name: string): ExportKey => `${cluster}|${name}`;

export interface ExportBindingsReader {
  /** Consumers whose binding to the export is Bound: cluster → binding. */
  boundConsumers(exportCluster: string, exportName: string): ReadonlyMap<string, KubeObject>;
  /** The consumer's Bound binding to the export (one map lookup: asked per object of a watch). */
  boundBinding(exportCluster: string, exportName: string, consumer: string): KubeObject | undefined;
  /** Every APIBinding (in any phase) that references the export. */
  bindingsOf(exportCluster: string, exportName: string): Array<{ cluster: string; name: string }>;
  /** Whether any APIBinding (in any phase) references the export. */
  hasBindings(exportCluster: string, exportName: string): boolean;
  /** Called (inside the storage commit; only queue work) with the export whose bindings changed. */
  onChange(listener: (exportCluster: string, exportName: string) => void): void;
}

interface Reference {
  key: ExportKey;
  cluster: string;
  name: string;
}

export class ExportBindings implements ExportBindingsReader {
  /** export → consumer cluster → binding name → binding */
  private readonly byExport = new Map<ExportKey, Map<string, Map<string, KubeObject>>>();
  /** binding storage key → the export it was filed under */
  private readonly filed = new Map<string, Reference>();
  private readonly listeners: Array<(cluster: string, name: string) => void> = [];
  private watch?: WatchHandle;
  private loaded = false;

  constructor(
    private readonly store: Store,
    /** Resolves a workspace path (`root:provider`) to its cluster name. */
    private readonly resolvePath: (path: string) => string | undefined,
  ) {}

  /**
   * Follows binding changes from now on, to tell onChange listeners (a controller). The bindings themselves are
   * only read when first asked about.
   */
  start(): void {
    this.follow(this.store.currentRevision());
  }

  stop(): void {
    this.watch?.cancel();
    this.watch = undefined;
    this.loaded = false;
  }

  onChange(listener: (exportCluster: string, exportName: string) => void): void {
    this.listeners.push(listener);
  }

  boundConsumers(exportCluster: string, exportName: string): ReadonlyMap<string, KubeObject> {
    this.ensureLoaded();
    const consumers = new Map<string, KubeObject>();
    for (const [cluster, bindings] of this.byExport.get(exportKey(exportCluster, exportName)) ?? []) {
      const bound = firstBound(bindings);
      if (bound) consumers.set(cluster, bound);
    }
    return consumers;
  }

  boundBinding(exportCluster: string, exportName: string, consumer: string): KubeObject | undefined {
    this.ensureLoaded();
    const bindings = this.byExport.get(exportKey(exportCluster, exportName))?.get(consumer);
    return bindings ? firstBound(bindings) : undefined;
  }

  bindingsOf(exportCluster: string, exportName: string): Array<{ cluster: string; name: string }> {
    this.ensureLoaded();
    const found: Array<{ cluster: string; name: string }> = [];
    for (const [cluster, bindings] of this.byExport.get(exportKey(exportCluster, exportName)) ?? []) {
      for (const name of bindings.keys()) found.push({ cluster, name });
    }
    return found;
  }

  hasBindings(exportCluster: string, exportName: string): boolean {
    this.ensureLoaded();
    return (this.byExport.get(exportKey(exportCluster, exportName))?.size ?? 0) > 0;
  }

  /** One read of every binding, the first time one is asked about; the watch keeps it current afterwards. */
  private ensureLoaded(): void {
    if (this.loaded) return;
    const page = this.store.list(API_BINDINGS_PREFIX);
    for (const kv of page.items) this.file(kv.key, JSON.parse(kv.value) as KubeObject);
    this.loaded = true;
    if (!this.watch) this.follow(page.revision);
  }

  private follow(fromRevision: number): void {
    this.watch ??= this.store.watch(API_BINDINGS_PREFIX, fromRevision, (events) => {
      for (const e of events) this.apply(e);
    });
  }

  private apply(e: StoreEvent): void {
    const consumer = e.key.slice(API_BINDINGS_PREFIX.length).split('/')[0]!;
    const touched = new Map<ExportKey, Reference>();
    for (const value of [e.prevValue, e.value]) {
      const reference = value ? this.referenceOf(consumer, JSON.parse(value) as KubeObject) : undefined;
      if (reference) touched.set(reference.key, reference);
    }
    if (this.loaded) {
      if (e.type === 'DELETED') this.unfile(e.key);
      else this.file(e.key, JSON.parse(e.value) as KubeObject);
    }
    for (const reference of touched.values()) for (const listener of this.listeners) listener(reference.cluster, reference.name);
  }

  private file(key: string, binding: KubeObject): void {
    const [consumer, name] = key.slice(API_BINDINGS_PREFIX.length).split('/') as [string, string];
    const reference = this.referenceOf(consumer, binding);
    const before = this.filed.get(key);
    if (before && before.key !== reference?.key) this.unfile(key);
    if (!reference) return;
    let consumers = this.byExport.get(reference.key);
    if (!consumers) this.byExport.set(reference.key, (consumers = new Map()));
    let bindings = consumers.get(consumer);
    if (!bindings) consumers.set(consumer, (bindings = new Map()));
    bindings.set(name, binding);
    this.filed.set(key, reference);
  }

  private unfile(key: string): void {
    const reference = this.filed.get(key);
    if (!reference) return;
    this.filed.delete(key);
    const [consumer, name] = key.slice(API_BINDINGS_PREFIX.length).split('/') as [string, string];
    const consumers = this.byExport.get(reference.key);
    const bindings = consumers?.get(consumer);
    bindings?.delete(name);
    if (bindings?.size === 0) consumers!.delete(consumer);
    if (consumers?.size === 0) this.byExport.delete(reference.key);
  }

  private referenceOf(consumer: string, binding: KubeObject): Reference | undefined {
    const ref = bindingExportReference(consumer, binding, this.resolvePath);
    return ref ? { key: exportKey(ref.cluster, ref.name), ...ref } : undefined;
  }
}

function firstBound(bindings: ReadonlyMap<string, KubeObject>): KubeObject | undefined {
  for (const binding of bindings.values()) if (isBound(binding)) return binding;
  return undefined;
}

/**
 * A binding being deleted stays Bound until its objects are gone, so watches across consumers see those deletions
 * instead of keeping the objects forever.
 */
export function isBound(binding: KubeObject): boolean {
  return (binding.status as { phase?: string } | undefined)?.phase === 'Bound';
}
