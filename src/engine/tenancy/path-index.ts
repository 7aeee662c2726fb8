/**
 * Workspace paths of objects stored on this shard, from the `kcp.io/path` annotation they carry (APIExports,
 * WorkspaceTypes), for the path lookups a shard cannot do through workspaces: a non-root shard hosts logical clusters
 * whose Workspace objects (and the path above them) live on other shards, so `root:provider` leads nowhere there even
 * when the object is its own. kcp resolves such references by an index by path; this is that index for one kind, built
 * on the first lookup that needs it (one scan of the kind, whose objects are few) and kept by a watch of it.
 */
import type { Store, WatchHandle } from '../storage/store.js';
import { PATH_ANNOTATION } from '../machinery/kcp-names.js';

/** path → the clusters whose objects carry it, counted (several objects of one cluster carry the same path). */
export class PathCounts {
  private readonly byPath = new Map<string, Map<string, number>>();

  add(path: string, cluster: string, delta: 1 | -1): void {
    let clusters = this.byPath.get(path);
    if (!clusters) this.byPath.set(path, (clusters = new Map()));
    const n = (clusters.get(cluster) ?? 0) + delta;
    if (n > 0) clusters.set(cluster, n);
    else clusters.delete(cluster);
    if (clusters.size === 0) this.byPath.delete(path);
  }

  /**
   * The one cluster whose objects carry `path`. Two clusters claiming one path is a forgery or a workspace deleted and
   * made again that still holds objects: neither is taken for the other, the lookup fails until one is gone.
   */
  clusterOf(path: string): string | undefined {
    const clusters = this.byPath.get(path);
    return clusters?.size === 1 ? clusters.keys().next().value : undefined;
  }
}

/** The paths of the objects stored under `prefix` (`<prefix><cluster>/<name>`). */
export class LocalPathIndex {
  private counts?: PathCounts;
  /** object key → its path, to undo on change */
  private readonly pathOfKey = new Map<string, string>();
  private watch?: WatchHandle;

  constructor(
    private readonly store: Store,
    private readonly prefix: string,
    /**
     * The canonical path of a cluster hosted here (its LogicalCluster's `kcp.io/path`, which only the system writes):
     * an object's annotation counts only where it agrees.
     */
    private readonly pathOfCluster: (cluster: string) => string | undefined,
  ) {}

  clusterOfPath(path: string): string | undefined {
    const cluster = this.index().clusterOf(path);
    return cluster !== undefined && this.pathOfCluster(cluster) === path ? cluster : undefined;
  }

  stop(): void {
    this.watch?.cancel();
    this.watch = undefined;
    this.counts = undefined;
    this.pathOfKey.clear();
  }

  private index(): PathCounts {
    if (this.counts) return this.counts;
    this.counts = new PathCounts();
    for (const kv of this.store.list(this.prefix).items) this.file(kv.key, kv.value);
    this.watch = this.store.watch(this.prefix, this.store.currentRevision(), (events) => {
      for (const e of events) this.file(e.key, e.type === 'DELETED' ? undefined : e.value);
    });
    return this.counts;
  }

  private file(key: string, value: string | undefined): void {
    const cluster = key.slice(this.prefix.length).split('/')[0]!;
    const before = this.pathOfKey.get(key);
    if (before !== undefined) {
      this.counts!.add(before, cluster, -1);
      this.pathOfKey.delete(key);
    }
    const path = value ? (JSON.parse(value) as { metadata?: { annotations?: Record<string, string> } }).metadata?.annotations?.[PATH_ANNOTATION] : undefined;
    if (!path) return;
    this.counts!.add(path, cluster, 1);
    this.pathOfKey.set(key, path);
  }
}
