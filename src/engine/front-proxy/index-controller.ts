/**
 * Keeps the ShardIndex current, as kcp's front-proxy index controller does: it watches the Shards in root, and for
 * every Shard watches all Workspaces and LogicalClusters on that shard (`/clusters/*`, the proxy's privileged
 * identity). A Shard that disappears from root takes its entries with it; a shard that stops answering keeps
 * them (its workspaces answer 503, not 403) until it is listed again.
 */
import { ShardIndex, type IndexedWorkspace } from './shard-index.js';
import { Reflector, type KubeItem } from '../shards/reflector.js';
import { ShardClient, type ShardCredentials } from '../shards/shard-client.js';

const SHARDS_PATH = '/clusters/root/apis/core.kcp.io/v1alpha1/shards';
const WORKSPACES_PATH = '/clusters/*/apis/tenancy.kcp.io/v1alpha1/workspaces';
const LOGICAL_CLUSTERS_PATH = '/clusters/*/apis/core.kcp.io/v1alpha1/logicalclusters';
const CLUSTER_ANNOTATION = 'kcp.io/cluster';
const SHARD_ANNOTATION = 'core.kcp.io/shard';

interface WatchedShard {
  baseURL: string;
  client: ShardClient;
  reflectors: Reflector[];
  /** Both collections listed since the last failure. */
  synced: Set<string>;
}

export interface IndexControllerOptions {
  credentials: ShardCredentials;
  /** The CA shards other than root serve with, when it differs from the root kubeconfig's. */
  shardsCaPem?: string;
  log(line: string): void;
}

export class IndexController {
  readonly index: ShardIndex;
  private readonly rootClient: ShardClient;
  private readonly shards = new Map<string, WatchedShard>();
  private readonly rootReflector: Reflector;
  private rootSynced = false;
  /** Shards whose last list or watch failed (their workspaces are unreachable). */
  private readonly down = new Set<string>();

  constructor(
    private readonly options: IndexControllerOptions,
    index = new ShardIndex(),
  ) {
    this.index = index;
    this.rootClient = new ShardClient(options.credentials);
    this.rootReflector = new Reflector(this.rootClient, SHARDS_PATH, {
      replace: (items) => {
        const seen = new Set<string>();
        for (const shard of items) seen.add(this.upsertShard(shard));
        for (const name of [...this.shards.keys()]) if (!seen.has(name)) this.removeShard(name);
        this.rootSynced = true;
      },
      upsert: (shard) => void this.upsertShard(shard),
      remove: (shard) => this.removeShard(shard.metadata?.name ?? ''),
      health: (ok, err) => {
        if (!ok) options.log(`front-proxy: cannot watch Shards in root (${options.credentials.rootUrl}): ${err?.message}`);
      },
    });
  }

  start(): void {
    this.rootReflector.start();
  }

  async stop(): Promise<void> {
    await this.rootReflector.stop();
    await Promise.all([...this.shards.keys()].map((name) => this.removeShard(name)));
    this.rootClient.close();
  }

  /** The Shards in root were listed, and every one of them was listed once (or failed trying). */
  isSynced(): boolean {
    if (!this.rootSynced) return false;
    for (const [name, shard] of this.shards) if (shard.synced.size < 2 && !this.down.has(name)) return false;
    return true;
  }

  isDown(shard: string): boolean {
    return this.down.has(shard);
  }

  private upsertShard(shard: KubeItem): string {
    const name = shard.metadata?.name ?? '';
    const baseURL = String((shard.spec as { baseURL?: string } | undefined)?.baseURL ?? '').replace(/\/+$/, '');
    const known = this.shards.get(name);
    if (known?.baseURL === baseURL) return name;
    if (known) void this.removeShard(name);
    if (!baseURL) return name;
    this.index.upsertShard(name, baseURL);
    const client = new ShardClient({ ...this.options.credentials, caPem: this.options.shardsCaPem ?? this.options.credentials.caPem }, baseURL);
    const watched: WatchedShard = { baseURL, client, reflectors: [], synced: new Set() };
    const health = (what: string) => (ok: boolean, err?: Error) => {
      if (ok) {
        watched.synced.add(what);
        if (this.down.delete(name)) this.options.log(`front-proxy: shard ${name} (${baseURL}) is back`);
      } else {
        watched.synced.delete(what);
        if (!this.down.has(name)) this.options.log(`front-proxy: shard ${name} (${baseURL}) unreachable: ${err?.message}`);
        this.down.add(name);
      }
    };
    watched.reflectors.push(
      new Reflector(client, WORKSPACES_PATH, {
        replace: (items) => this.index.replaceWorkspaces(name, items.flatMap((ws) => workspaceEntry(ws) ?? [])),
        upsert: (ws) => {
          const entry = workspaceEntry(ws);
          if (entry) this.index.upsertWorkspace(name, entry.parent, entry.name, entry.ws);
        },
        remove: (ws) => {
          const entry = workspaceEntry(ws);
          if (entry) this.index.deleteWorkspace(name, entry.parent, entry.name);
        },
        health: health('workspaces'),
      }),
      new Reflector(client, LOGICAL_CLUSTERS_PATH, {
        replace: (items) => this.index.replaceClusters(name, items.flatMap((lc) => clusterOf(lc) ?? [])),
        upsert: (lc) => {
          const cluster = clusterOf(lc);
          if (cluster) this.index.upsertCluster(name, cluster);
        },
        remove: (lc) => {
          const cluster = clusterOf(lc);
          if (cluster) this.index.deleteCluster(name, cluster);
        },
        health: health('logicalclusters'),
      }),
    );
    this.shards.set(name, watched);
    for (const r of watched.reflectors) r.start();
    return name;
  }

  private async removeShard(name: string): Promise<void> {
    const watched = this.shards.get(name);
    this.shards.delete(name);
    this.down.delete(name);
    this.index.deleteShard(name);
    if (!watched) return;
    await Promise.all(watched.reflectors.map((r) => r.stop()));
    watched.client.close();
  }
}

function clusterOf(item: KubeItem): string | undefined {
  return item.metadata?.annotations?.[CLUSTER_ANNOTATION];
}

function workspaceEntry(item: KubeItem): { parent: string; name: string; ws: IndexedWorkspace } | undefined {
  const parent = clusterOf(item);
  const name = item.metadata?.name;
  if (!parent || !name) return undefined;
  const spec = (item.spec ?? {}) as { cluster?: string };
  const status = (item.status ?? {}) as { phase?: string };
  const shard = item.metadata?.annotations?.[SHARD_ANNOTATION];
  return { parent, name, ws: { cluster: spec.cluster ?? '', phase: status.phase ?? '', ...(shard ? { shard } : {}) } };
}
