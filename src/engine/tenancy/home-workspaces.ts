/**
 * Home workspaces as kcp's documentation describes them: a user's home lives at
 * `<prefix>:<bucket>…:<user>`, the buckets derived from sha1(username), and is created on demand the first time
 * its user asks for the Workspace `~` in root. While the chain of bucket workspaces and the home itself come up the
 * answer is 429 with `Retry-After: 1` (client-go retries by itself); once Ready, the home Workspace is returned.
 * The home belongs to its user: the owner annotation, `spec.createdBy` and the `workspace-admin` binding say so.
 */
import { createHash } from 'node:crypto';
import { StatusError, tooManyRequests } from '../machinery/status.js';
import type { GenericStore } from '../registry/generic-store.js';
import { decodeStored } from '../registry/stored-object.js';
import type { KubeObject, ResourceType, StrategyContext } from '../registry/types.js';
import type { Store } from '../storage/store.js';
import { workspaceKey, type ClusterPaths } from './cluster-paths.js';
import { ROOT_CLUSTER, ROOT_SHARD, SHARD_ANNOTATION, TENANCY_GROUP } from '../machinery/kcp-names.js';

export interface HomeOptions {
  /** Where the buckets start, `root:users` by default. */
  prefix: string;
  /** Bucket levels below the prefix (1–5, default 2). */
  levels: number;
  /** Letters per bucket name (1–4, default 2). */
  size: number;
}

export const defaultHomeOptions: HomeOptions = { prefix: 'root:users', levels: 2, size: 2 };

/** The workspace-name form of a user name: `[a-z0-9-]` only, no leading digit or punctuation, no trailing `-`. */
export function sanitizeUsername(username: string): string {
  let name = username.replace(/[^a-z0-9-]/g, '-');
  while (name.length > 0 && name[0]! <= '9') name = name.slice(1);
  return name.replace(/-+$/, '');
}

/** The bucket names of a user: per level, `size` letters from 4 bytes of sha1(username). */
export function homeBuckets(username: string, opts: HomeOptions = defaultHomeOptions): string[] {
  const hash = createHash('sha1').update(username).digest();
  const buckets: string[] = [];
  for (let level = 0; level < opts.levels; level++) {
    let v = hash.readUInt32BE(level);
    let bucket = '';
    for (let i = 0; i < opts.size; i++) {
      bucket += String.fromCharCode(97 + (v % 26));
      v = Math.floor(v / 26);
    }
    buckets.push(bucket);
  }
  return buckets;
}

/** `kcp-admin` → `root:users:zu:yc:kcp-admin`. */
export function homePath(username: string, opts: HomeOptions = defaultHomeOptions): string {
  return [opts.prefix, ...homeBuckets(username, opts), sanitizeUsername(username)].join(':');
}

export interface HomeDeps {
  store: Store;
  generic: GenericStore;
  workspaces: ResourceType;
  paths: ClusterPaths;
  options: HomeOptions;
}

type Requester = NonNullable<StrategyContext['user']>;

/** How long one `~` request waits for the chain to come up before answering 429 (scheduling takes milliseconds). */
const WAIT_MS = 500;

export class HomeWorkspaces {
  constructor(private readonly deps: HomeDeps) {}

  /** Like get, but gives the controller a moment first, so a new user's first `~` usually answers 200 at once. */
  async getWaiting(user: Requester, mayCreate: () => void = () => {}, budgetMs = WAIT_MS): Promise<KubeObject> {
    const deadline = Date.now() + budgetMs;
    for (;;) {
      try {
        return this.get(user, mayCreate);
      } catch (err) {
        if (!(err instanceof StatusError && err.code === 429) || Date.now() >= deadline) throw err;
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    }
  }

  /**
   * GET `~` in root: the user's home Workspace once it is Ready; until then a 429 that tells the client to come
   * back in a second, after making sure every missing piece of the chain is being created. `mayCreate` throws
   * when the user may not have a home created (kcp's home-creator groups); it is asked only when something is
   * missing, so an existing home is always answered.
   */
  get(user: Requester, mayCreate: () => void = () => {}): KubeObject {
    const path = homePath(user.username, this.deps.options);
    const segments = path.split(':');
    if (segments[0] !== ROOT_CLUSTER || !segments.at(-1)) {
      throw new StatusError(400, 'BadRequest', `user name "${user.username}" cannot be turned into a home workspace name`, {});
    }
    let cluster = ROOT_CLUSTER;
    for (let i = 1; i < segments.length; i++) {
      const name = segments[i]!;
      const isHome = i === segments.length - 1;
      const kv = this.deps.store.get(workspaceKey(cluster, name));
      if (!kv) {
        mayCreate();
        this.create(cluster, name, i === 1 ? 'homeroot' : isHome ? 'home' : 'homebucket', isHome ? user : undefined);
        throw creating();
      }
      const ws = decodeStored(kv);
      const spec = ws.spec as { cluster?: string } | undefined;
      const phase = (ws.status as { phase?: string } | undefined)?.phase;
      if (ws.metadata?.deletionTimestamp) throw creating();
      if (isHome) {
        if (phase !== 'Ready') throw creating();
        return ws;
      }
      if (!spec?.cluster || phase !== 'Ready') throw creating();
      cluster = spec.cluster;
    }
    throw creating();
  }

  /**
   * Buckets are the server's own; the home itself is created as its user, who thereby owns it. The whole chain is
   * placed on the root shard (the one serving `~`), which creates each next link inside the one before it: with
   * several shards a bucket scheduled elsewhere would leave the next link nowhere to be created.
   */
  private create(cluster: string, name: string, type: string, owner: Requester | undefined): void {
    try {
      this.deps.generic.create(
        { rt: this.deps.workspaces, cluster, namespace: '', ...(owner ? { user: owner, onBehalfOfUser: true } : {}) },
        {
          apiVersion: `${TENANCY_GROUP}/v1alpha1`,
          kind: 'Workspace',
          // Phase one of kcp's scheduling, decided up front: the shard annotation the scheduler would write.
          metadata: { name, annotations: { [SHARD_ANNOTATION]: ROOT_SHARD } },
          spec: { type: { name: type, path: ROOT_CLUSTER } },
        },
      );
    } catch (err) {
      // Someone else's request created it a moment ago: fine, it is coming up.
      if (!(err instanceof StatusError && err.code === 409)) throw err;
    }
  }
}

function creating(): StatusError {
  return tooManyRequests('Creating the home workspace', 1);
}
