/**
 * The front-proxy's map of the deployment, as kcp's index keeps it: which shard hosts which
 * logical cluster (from the LogicalClusters on every shard), which workspace of which parent cluster leads to which
 * child cluster (from the Workspaces on every shard), and each shard's base URL (from the Shards in root).
 * `lookup` walks a `/clusters/<path>` segment by segment through those edges. Everything is plain maps fed by the
 * shard watches; a lookup is a few map reads, so it runs on every proxied request.
 */
import { homePath, type HomeOptions, defaultHomeOptions } from '../tenancy/home-workspaces.js';

export interface IndexedWorkspace {
  /** spec.cluster: the logical cluster the workspace leads to ('' while it has none). */
  cluster: string;
  /** status.phase */
  phase: string;
  /** `core.kcp.io/shard`: where its logical cluster was placed (known before that shard's LogicalClusters are). */
  shard?: string;
}

export type Lookup =
  | { kind: 'found'; shard: string; cluster: string; baseURL: string }
  /** The workspace exists but cannot be served now (phase Unavailable, or its shard is unknown or down). */
  | { kind: 'unavailable' }
  /** No such workspace, or one still being scheduled: kcp's 403 "workspace access not permitted". */
  | { kind: 'unknown' };

const ROOT_SHARD = 'root';

export class ShardIndex {
  private readonly baseURLs = new Map<string, string>();
  /** logical cluster → shard holding its LogicalCluster */
  private readonly clusterShards = new Map<string, string>();
  /** `<parent cluster>/<workspace name>` → the workspace, as the shard holding it last said */
  private readonly edges = new Map<string, IndexedWorkspace>();
  /** What each shard contributed, so a relist or a departed shard replaces exactly its own entries. */
  private readonly clustersBy = new Map<string, Set<string>>();
  private readonly edgesBy = new Map<string, Set<string>>();

  constructor(private readonly homes: HomeOptions = defaultHomeOptions) {}

  upsertShard(name: string, baseURL: string): void {
    this.baseURLs.set(name, baseURL.replace(/\/+$/, ''));
  }

  deleteShard(name: string): void {
    this.baseURLs.delete(name);
    this.replaceClusters(name, []);
    this.replaceWorkspaces(name, []);
  }

  shardNames(): string[] {
    return [...this.baseURLs.keys()];
  }

  baseURLOf(shard: string): string | undefined {
    return this.baseURLs.get(shard);
  }

  upsertCluster(shard: string, cluster: string): void {
    this.clusterShards.set(cluster, shard);
    owned(this.clustersBy, shard).add(cluster);
  }

  deleteCluster(shard: string, cluster: string): void {
    if (this.clusterShards.get(cluster) === shard) this.clusterShards.delete(cluster);
    this.clustersBy.get(shard)?.delete(cluster);
  }

  /** A full list from one shard: its clusters are exactly these. */
  replaceClusters(shard: string, clusters: Iterable<string>): void {
    for (const cluster of this.clustersBy.get(shard) ?? []) {
      if (this.clusterShards.get(cluster) === shard) this.clusterShards.delete(cluster);
    }
    this.clustersBy.delete(shard);
    for (const cluster of clusters) this.upsertCluster(shard, cluster);
  }

  upsertWorkspace(shard: string, parent: string, name: string, ws: IndexedWorkspace): void {
    const key = `${parent}/${name}`;
    this.edges.set(key, ws);
    owned(this.edgesBy, shard).add(key);
  }

  deleteWorkspace(shard: string, parent: string, name: string): void {
    const key = `${parent}/${name}`;
    this.edges.delete(key);
    this.edgesBy.get(shard)?.delete(key);
  }

  replaceWorkspaces(shard: string, workspaces: Iterable<{ parent: string; name: string; ws: IndexedWorkspace }>): void {
    for (const key of this.edgesBy.get(shard) ?? []) this.edges.delete(key);
    this.edgesBy.delete(shard);
    for (const w of workspaces) this.upsertWorkspace(shard, w.parent, w.name, w.ws);
  }

  /** The shard of a cluster name (as its LogicalCluster says), if known. */
  shardOf(cluster: string): string | undefined {
    if (cluster.startsWith('system:')) return this.baseURLs.has(ROOT_SHARD) ? ROOT_SHARD : undefined;
    return this.clusterShards.get(cluster);
  }

  /**
   * Where `/clusters/<path>` goes. The first segment is a cluster name (`user:<name>` is that user's home path);
   * every further one follows a Workspace. `system:` names are single shard-local clusters: the root shard's.
   */
  lookup(path: string): Lookup {
    let segments = path.startsWith('system:') ? [path] : path.split(':');
    if (segments[0] === 'user' && segments.length > 1) {
      segments = [...homePath(segments[1]!, this.homes).split(':'), ...segments.slice(2)];
    }
    let cluster = segments[0]!;
    let shard = this.shardOf(cluster);
    if (shard === undefined) return { kind: 'unknown' };
    for (let i = 1; i < segments.length; i++) {
      const ws = this.edges.get(`${cluster}/${segments[i]}`);
      // kcp does not index workspaces still being scheduled: they do not exist for the proxy yet.
      if (!ws || !ws.cluster || ws.phase === 'Scheduling' || ws.phase === '') return { kind: 'unknown' };
      if (ws.phase === 'Unavailable') return { kind: 'unavailable' };
      cluster = ws.cluster;
      shard = this.clusterShards.get(cluster) ?? ws.shard;
      if (shard === undefined) return { kind: 'unavailable' };
    }
    const baseURL = this.baseURLs.get(shard);
    if (baseURL === undefined) return { kind: 'unavailable' };
    return { kind: 'found', shard, cluster, baseURL };
  }
}

function owned(map: Map<string, Set<string>>, shard: string): Set<string> {
  let set = map.get(shard);
  if (!set) map.set(shard, (set = new Set()));
  return set;
}
