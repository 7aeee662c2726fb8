/**
 * Workspace paths of this shard's APIExports (their `kcp.io/path` annotation → cluster), for the path lookups a
 * shard cannot do through workspaces: a non-root shard hosts logical clusters whose Workspace objects (and the path
 * above them) live on other shards, so `root:provider` leads nowhere there even when the export is its own. kcp
 * resolves an export reference by an index of exports by path; this is that index for the local exports, built on
 * the first lookup that needs it (one scan of the exports, which are few) and kept by a watch of them.
 */
import type { Store, WatchHandle } from '../storage/store.js';
import { PATH_ANNOTATION } from '../tenancy/names.js';
import { EXPORTS_PREFIX } from './names.js';
import type { APIExport } from './types.js';

/** path → the clusters whose exports carry it, counted (several exports of one cluster carry the same path). */
export class ExportPathCounts {
  private readonly byPath = new Map<string, Map<string, number>>();

  add(path: string, cluster: string, delta: 1 | -1): void {
    let clusters = this.byPath.get(path);
    if (!clusters) this.byPath.set(path, (clusters = new Map()));
    const n = (clusters.get(cluster) ?? 0) + delta;
    if (n > 0) clusters.set(cluster, n);
    else clusters.delete(cluster);
    if (clusters.size === 0) this.byPath.delete(path);
  }

  clusterOf(path: string): string | undefined {
    const clusters = this.byPath.get(path);
    return clusters ? clusters.keys().next().value : undefined;
  }
}

export class LocalExportPaths {
  private counts?: ExportPathCounts;
  /** export key → its path, to undo on change */
  private readonly pathOfKey = new Map<string, string>();
  private watch?: WatchHandle;

  constructor(private readonly store: Store) {}

  clusterOfPath(path: string): string | undefined {
    return this.index().clusterOf(path);
  }

  stop(): void {
    this.watch?.cancel();
  }

  private index(): ExportPathCounts {
    if (this.counts) return this.counts;
    this.counts = new ExportPathCounts();
    for (const kv of this.store.list(EXPORTS_PREFIX).items) this.file(kv.key, kv.value);
    this.watch = this.store.watch(EXPORTS_PREFIX, this.store.currentRevision(), (events) => {
      for (const e of events) this.file(e.key, e.type === 'DELETED' ? undefined : e.value);
    });
    return this.counts;
  }

  private file(key: string, value: string | undefined): void {
    const cluster = key.slice(EXPORTS_PREFIX.length).split('/')[0]!;
    const before = this.pathOfKey.get(key);
    if (before !== undefined) {
      this.counts!.add(before, cluster, -1);
      this.pathOfKey.delete(key);
    }
    const path = value ? (JSON.parse(value) as APIExport).metadata?.annotations?.[PATH_ANNOTATION] : undefined;
    if (!path) return;
    this.counts!.add(path, cluster, 1);
    this.pathOfKey.set(key, path);
  }
}
