/**
 * Workspace paths ↔ logical cluster names. `root:org:team` is resolved segment by segment: the first segment is a
 * cluster name (`root`, or any cluster's name), each further one follows that cluster's Workspace of that name to
 * its `spec.cluster`. The reverse, a cluster's canonical path, is its LogicalCluster's `kcp.io/path` annotation;
 * the other LogicalCluster annotations admission and the API sets read come with it (`facts`), so a workspace
 * create does not parse its parent's LogicalCluster several times. Nothing is held per workspace except what
 * recent requests used: both directions are bounded LRUs, kept right by one storage watch on Workspaces and
 * LogicalClusters.
 */
import { LRUCache } from 'lru-cache';
import type { KubeObject } from '../registry/types.js';
import type { Store, WatchHandle } from '../storage/store.js';
import { APIS_ANNOTATION, PATH_ANNOTATION, REQUIRED_GROUPS_ANNOTATION, ROOT_CLUSTER, TYPE_ANNOTATION } from '../machinery/kcp-names.js';

export const workspacesPrefix = '/registry/tenancy.kcp.io/workspaces/';
export const logicalClustersPrefix = '/registry/core.kcp.io/logicalclusters/';

export function workspaceKey(cluster: string, name: string): string {
  return `${workspacesPrefix}${cluster}/${name}`;
}

export function logicalClusterKey(cluster: string): string {
  return `${logicalClustersPrefix}${cluster}/cluster`;
}

const CACHED = 16_384;

/** What the tenancy layer reads from a cluster's LogicalCluster. */
export interface ClusterFacts {
  /** Canonical path (`root` for root). */
  path: string;
  /** `internal.tenancy.kcp.io/type`: `<type path>:<type name>`. */
  type?: string;
  /** `authorization.kcp.io/required-groups`. */
  requiredGroups?: string;
  /** `internal.kcpt.dev/apis`: the built-in API groups it serves beyond every cluster's. */
  apis?: string;
  /** status.phase (authorization lets requests in only in some phases). */
  phase?: string;
  /** status.initializers / status.terminators: whom the lifecycle groups of authorization admit. */
  initializers?: readonly string[];
  terminators?: readonly string[];
  /** The LogicalCluster has a deletionTimestamp. */
  deleting?: boolean;
}

/** Cached for clusters without a LogicalCluster. */
const NO_CLUSTER: ClusterFacts = Object.freeze({ path: '' });

export class ClusterPaths {
  /** `<parent cluster>/<workspace name>` → child cluster name ('' when the workspace has none yet) */
  private readonly edges = new LRUCache<string, string>({ max: CACHED });
  /** cluster → its LogicalCluster's facts (NO_CLUSTER when it has none) */
  private readonly clusterFacts = new LRUCache<string, ClusterFacts>({ max: CACHED });
  private watches: WatchHandle[] = [];

  constructor(
    private readonly store: Store,
    /** `user:<name>` → the canonical path of that user's home (home workspaces). */
    private readonly homePath: (user: string) => string | undefined = () => undefined,
  ) {}

  start(): void {
    const from = this.store.currentRevision();
    this.watches.push(
      this.store.watch(workspacesPrefix, from, (events) => {
        for (const e of events) this.edges.delete(e.key.slice(workspacesPrefix.length));
      }),
      this.store.watch(logicalClustersPrefix, from, (events) => {
        for (const e of events) this.clusterFacts.delete(e.key.slice(logicalClustersPrefix.length).split('/')[0]!);
      }),
    );
  }

  stop(): void {
    for (const w of this.watches) w.cancel();
    this.watches = [];
  }

  /**
   * The cluster a path names, or undefined when some segment does not exist (or is still Scheduling, which kcp
   * does not index either). `user:<name>[:…]` starts at that user's home.
   */
  resolve(path: string): string | undefined {
    const found = this.locate(path);
    return 'cluster' in found ? found.cluster : undefined;
  }

  /**
   * `resolve`, telling apart why a path leads nowhere here: `missing` when a workspace along it is absent from a
   * cluster this server hosts (the tree here is complete, so the path names nothing), `elsewhere` when the walk reaches
   * a cluster another shard hosts (whose workspaces live there). Only then may a path be looked up by the `kcp.io/path`
   * objects carry: never to overrule the tree.
   */
  locate(path: string): { cluster: string } | { missing: true } | { elsewhere: true } {
    const segments = path.split(':');
    let start = 1;
    let cluster = segments[0]!;
    if (cluster === 'user' && segments.length > 1) {
      const home = this.homePath(segments[1]!);
      if (!home) return { elsewhere: true };
      const found = home.includes(':') ? this.locate(home) : { cluster: home };
      if (!('cluster' in found)) return found;
      cluster = found.cluster;
      start = 2;
    }
    for (let i = start; i < segments.length; i++) {
      const child = this.child(cluster, segments[i]!);
      if (!child) return this.logicalCluster(cluster) ? { missing: true } : { elsewhere: true };
      cluster = child;
    }
    return { cluster };
  }

  /** The cluster of workspace `name` in `parent`, if it has one. */
  child(parent: string, name: string): string | undefined {
    const edge = `${parent}/${name}`;
    let child = this.edges.get(edge);
    if (child === undefined) {
      const kv = this.store.get(`${workspacesPrefix}${edge}`);
      const ws = kv ? (JSON.parse(kv.value) as KubeObject) : undefined;
      const spec = ws?.spec as { cluster?: string } | undefined;
      child = spec?.cluster ?? '';
      this.edges.set(edge, child);
    }
    return child || undefined;
  }

  /** Canonical path of a cluster (`root` for root), or undefined when it has no LogicalCluster. */
  pathOf(cluster: string): string | undefined {
    return this.logicalCluster(cluster)?.path || undefined;
  }

  /** The LogicalCluster annotations of a cluster (frozen, shared), or undefined when it has no LogicalCluster. */
  logicalCluster(cluster: string): ClusterFacts | undefined {
    let facts = this.clusterFacts.get(cluster);
    if (facts === undefined) {
      const kv = this.store.get(logicalClusterKey(cluster));
      if (!kv) facts = NO_CLUSTER;
      else {
        const lc = JSON.parse(kv.value) as KubeObject;
        const annotations = lc.metadata?.annotations ?? {};
        const status = (lc.status ?? {}) as { phase?: string; initializers?: string[]; terminators?: string[] };
        facts = Object.freeze({
          path: annotations[PATH_ANNOTATION] ?? (cluster === ROOT_CLUSTER ? ROOT_CLUSTER : cluster),
          type: annotations[TYPE_ANNOTATION],
          requiredGroups: annotations[REQUIRED_GROUPS_ANNOTATION],
          apis: annotations[APIS_ANNOTATION],
          phase: status.phase,
          initializers: status.initializers,
          terminators: status.terminators,
          deleting: Boolean(lc.metadata?.deletionTimestamp),
        });
      }
      this.clusterFacts.set(cluster, facts);
    }
    return facts === NO_CLUSTER ? undefined : facts;
  }
}
