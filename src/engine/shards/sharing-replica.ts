/**
 * The sharing objects of the other shards, replicated into this one (kcp's cache server, for the kinds API sharing
 * and tenancy need): every other shard's APIExports, APIResourceSchemas, APIExportEndpointSlices and WorkspaceTypes
 * (a workspace placed here may be of a type defined in a workspace on another shard), list-then-watched across
 * all of its logical clusters (`/clusters/*\/…`) with the front-proxy's reflector, and kept in memory. They are few
 * (providers' objects, not consumers'), so holding them costs nothing per workspace.
 *
 * Paths resolve the way kcp resolves an export reference on a shard that does not host the provider's workspace:
 * from the `kcp.io/path` annotation every APIExport carries, never from the other shards' LogicalClusters.
 */
import { PathCounts } from '../tenancy/path-index.js';
import { deepFreeze } from '../machinery/deep-freeze.js';
import { Reflector, type KubeItem } from './reflector.js';
import { clusterAnnotation } from '../registry/stored-object.js';
import type { KubeObject } from '../registry/types.js';
import type { ShardSpec } from '../tenancy/shard-placement.js';
import { PATH_ANNOTATION, ROOT_CLUSTER, ROOT_SHARD } from '../machinery/kcp-names.js';
import { ShardClient, type ShardCredentials } from './shard-client.js';
import type { ShardDirectory } from '../tenancy/shard-placement.js';

export type ReplicatedKind = 'apiexports' | 'apiresourceschemas' | 'apiexportendpointslices' | 'workspacetypes';

const COLLECTIONS: Record<ReplicatedKind, string> = {
  apiexports: '/clusters/*/apis/apis.kcp.io/v1alpha2/apiexports',
  apiresourceschemas: '/clusters/*/apis/apis.kcp.io/v1alpha1/apiresourceschemas',
  apiexportendpointslices: '/clusters/*/apis/apis.kcp.io/v1alpha1/apiexportendpointslices',
  workspacetypes: '/clusters/*/apis/tenancy.kcp.io/v1alpha1/workspacetypes',
};
/** The kinds whose objects are looked up by their workspace's path (`kcp.io/path`) as well as by cluster. */
type PathKind = 'apiexports' | 'workspacetypes';
const KINDS = Object.keys(COLLECTIONS) as ReplicatedKind[];

/** One replicated object and the shard it lives on. */
export interface Replicated {
  shard: string;
  cluster: string;
  name: string;
  object: KubeObject;
}

/** `kind` changed on another shard: the object as it is now (undefined: deleted). */
export type ReplicaListener = (kind: ReplicatedKind, cluster: string, name: string, now: Replicated | undefined) => void;

interface ShardFeed {
  baseURL: string;
  client: ShardClient;
  reflectors: Reflector[];
  /** The kinds listed from this shard at least once. */
  listed: Set<ReplicatedKind>;
}

/** How long `hasSynced` waits for shards that cannot be listed before it answers yes anyway. */
const SYNC_PATIENCE_MS = 15_000;
/** How often a request waiting on the first sync looks again. */
const SYNC_POLL_MS = 50;

export class SharingReplica {
  /** kind → `<cluster>/<name>` → object */
  private readonly objects = new Map<ReplicatedKind, Map<string, Replicated>>(KINDS.map((k) => [k, new Map()]));
  /** `kcp.io/path` → cluster, from the replicated APIExports and WorkspaceTypes (each carries its cluster's path). */
  private readonly paths: Record<PathKind, PathCounts> = { apiexports: new PathCounts(), workspacetypes: new PathCounts() };
  private readonly feeds = new Map<string, ShardFeed>();
  private readonly listeners: ReplicaListener[] = [];
  private readonly health = new Map<string, string>();
  private startedAt = 0;
  /** SYNC_PATIENCE_MS have passed since start: hasSynced is true for good (asked on every request). */
  private patienceOver = false;
  private syncing?: Promise<void>;

  constructor(
    private readonly deps: {
      /** This shard's name: never replicated from. */
      self: string;
      directory: ShardDirectory;
      credentials(): ShardCredentials;
      log(line: string): void;
    },
  ) {}

  start(): void {
    this.startedAt = Date.now();
    this.deps.directory.onChange(() => this.sync());
    this.sync();
  }

  /**
   * Whether the replica holds what the other shards held when it began following them, as an informer's HasSynced:
   * before, a missing export may just not have arrived yet. A shard that cannot be listed is waited for a while only.
   */
  hasSynced(): boolean {
    if (this.patienceOver) return true;
    if (this.startedAt === 0) return false;
    if (Date.now() - this.startedAt > SYNC_PATIENCE_MS) return (this.patienceOver = true);
    if (this.deps.directory.shards().length === 0) return false;
    for (const feed of this.feeds.values()) if (feed.listed.size < KINDS.length) return false;
    return true;
  }

  /**
   * Undefined once synced; before, a promise of it (at most SYNC_PATIENCE_MS after start, as hasSynced). Requests
   * that would otherwise answer "not found" or "denied" for another shard's export right after a restart wait on it.
   */
  untilSynced(): Promise<void> | undefined {
    if (this.hasSynced()) return undefined;
    return (this.syncing ??= new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (!this.hasSynced()) return;
        clearInterval(check);
        this.syncing = undefined;
        resolve();
      }, SYNC_POLL_MS);
      check.unref();
    }));
  }

  async stop(): Promise<void> {
    const feeds = [...this.feeds.values()];
    this.feeds.clear();
    await Promise.all(feeds.map((f) => this.close(f)));
  }

  onChange(listener: ReplicaListener): void {
    this.listeners.push(listener);
  }

  /** Calls `listener` after a WorkspaceType of another shard changed. */
  onTypeChange(listener: () => void): void {
    this.onChange((kind) => {
      if (kind === 'workspacetypes') listener();
    });
  }

  get(kind: ReplicatedKind, cluster: string, name: string): Replicated | undefined {
    return this.objects.get(kind)!.get(`${cluster}/${name}`);
  }

  all(kind: ReplicatedKind): IterableIterator<Replicated> {
    return this.objects.get(kind)!.values();
  }

  /** Whether no other shard exports anything (a single shard): nothing to ask elsewhere. */
  isEmpty(): boolean {
    return this.objects.get('apiexports')!.size === 0;
  }

  /** The logical cluster an APIExport of another shard names as its `kcp.io/path`. */
  clusterOfPath(path: string): string | undefined {
    return this.paths.apiexports.clusterOf(path);
  }

  /** The WorkspaceType `name` of another shard in the workspace at `path` (a canonical path or a cluster name). */
  workspaceType(path: string, name: string): KubeObject | undefined {
    const cluster = this.paths.workspacetypes.clusterOf(path) ?? path;
    return this.get('workspacetypes', cluster, name)?.object;
  }

  /** The base URL of a shard this replica follows. */
  baseURLOf(shard: string): string | undefined {
    return this.feeds.get(shard)?.baseURL;
  }

  /** Follows every other Shard with a base URL; drops feeds of Shards gone or moved. */
  private sync(): void {
    const wanted = new Map<string, string>();
    for (const s of this.deps.directory.shards()) {
      const name = s.metadata?.name;
      const base = (s.spec as ShardSpec | undefined)?.baseURL;
      if (name && base && name !== this.deps.self) wanted.set(name, base.replace(/\/+$/, ''));
    }
    for (const [name, feed] of this.feeds) {
      if (wanted.get(name) === feed.baseURL) continue;
      this.feeds.delete(name);
      void this.close(feed);
      // A shard gone takes its objects along; a moved one lists them again.
      for (const kind of KINDS) this.replace(kind, name, []);
    }
    for (const [name, baseURL] of wanted) {
      if (this.feeds.has(name)) continue;
      const client = new ShardClient(this.deps.credentials(), baseURL);
      const listed = new Set<ReplicatedKind>();
      const reflectors = KINDS.map(
        (kind) =>
          new Reflector(client, COLLECTIONS[kind], {
            replace: (items) => {
              this.replace(kind, name, items);
              listed.add(kind);
            },
            upsert: (item) => this.upsert(kind, name, item),
            remove: (item) => this.remove(kind, item),
            health: (ok, err) => this.noteHealth(name, ok, err),
          }),
      );
      this.feeds.set(name, { baseURL, client, reflectors, listed });
      for (const r of reflectors) r.start();
    }
  }

  private async close(feed: ShardFeed): Promise<void> {
    await Promise.all(feed.reflectors.map((r) => r.stop()));
    feed.client.close();
  }

  /** Logged once per change of a shard's state, not per retry. */
  private noteHealth(shard: string, ok: boolean, err?: Error): void {
    const state = ok ? 'ok' : (err?.message ?? 'unreachable');
    if (this.health.get(shard) === state) return;
    const before = this.health.get(shard);
    this.health.set(shard, state);
    if (!ok) this.deps.log(`replicating API sharing objects from shard ${shard}: ${state}`);
    else if (before !== undefined) this.deps.log(`replicating API sharing objects from shard ${shard}: following again`);
  }

  private keyOf(item: KubeItem): { cluster: string; name: string } | undefined {
    const cluster = item.metadata?.annotations?.[clusterAnnotation];
    const name = item.metadata?.name;
    return cluster && name ? { cluster, name } : undefined;
  }

  private replace(kind: ReplicatedKind, shard: string, items: KubeItem[]): void {
    const fresh = new Set<string>();
    for (const item of items) {
      const key = this.keyOf(item);
      if (key) fresh.add(`${key.cluster}/${key.name}`);
      this.upsert(kind, shard, item);
    }
    for (const [key, entry] of this.objects.get(kind)!) {
      if (entry.shard === shard && !fresh.has(key)) this.remove(kind, entry.object as KubeItem);
    }
  }

  private upsert(kind: ReplicatedKind, shard: string, item: KubeItem): void {
    const key = this.keyOf(item);
    if (!key) return;
    // Every shard keeps its own copy of root's built-in types (tenancy/bootstrap.ts): root's are the ones.
    if (kind === 'workspacetypes' && key.cluster === ROOT_CLUSTER && shard !== ROOT_SHARD) return;
    const map = this.objects.get(kind)!;
    const before = map.get(`${key.cluster}/${key.name}`);
    if (before && before.object.metadata?.resourceVersion === item.metadata?.resourceVersion && before.shard === shard) return;
    // Types are shared with the tenancy layer, which caches what it derives from them by object: frozen through.
    const object = (kind === 'workspacetypes' ? deepFreeze(item) : Object.freeze(item)) as KubeObject;
    const entry: Replicated = { shard, ...key, object };
    map.set(`${key.cluster}/${key.name}`, entry);
    if (kind === 'apiexports' || kind === 'workspacetypes') {
      this.countPath(kind, before, -1);
      this.countPath(kind, entry, 1);
    }
    for (const l of this.listeners) l(kind, key.cluster, key.name, entry);
  }

  private remove(kind: ReplicatedKind, item: KubeItem): void {
    const key = this.keyOf(item);
    if (!key) return;
    const map = this.objects.get(kind)!;
    const before = map.get(`${key.cluster}/${key.name}`);
    if (!before) return;
    map.delete(`${key.cluster}/${key.name}`);
    if (kind === 'apiexports' || kind === 'workspacetypes') this.countPath(kind, before, -1);
    for (const l of this.listeners) l(kind, key.cluster, key.name, undefined);
  }

  private countPath(kind: PathKind, entry: Replicated | undefined, delta: 1 | -1): void {
    const path = entry?.object.metadata?.annotations?.[PATH_ANNOTATION];
    if (entry && path) this.paths[kind].add(path, entry.cluster, delta);
  }
}
