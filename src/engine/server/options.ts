/**
 * What `kcpt start` and the programmatic API may set (ServerOptions), and its completion (ServerConfig): defaults
 * filled in, flags checked against each other, and what derives from them (the serving certificate's host names,
 * the URLs once the port is known). Pure: no file, socket or clock is touched here.
 */
import { DEFAULT_BATTERIES } from './batteries.js';
import { DEFAULT_INFLIGHT_LIMITS, type InflightLimits } from '../endpoints/inflight-limit.js';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../endpoints/request-deadline.js';
import { defaultHomeOptions, type HomeOptions } from '../tenancy/home-workspaces.js';
import { ROOT_SHARD } from '../machinery/kcp-names.js';

export interface ServerOptions {
  rootDirectory: string;
  securePort: number;
  bindAddress: string;
  /** '' = SQLite file in the root directory; `memory://`; `sqlite:///path`. */
  storage: string;
  tokenAuthFile?: string;
  batteries?: string[];
  /** 0 = quiet, higher = chattier request logs on stderr. */
  verbosity?: number;
  /** Keep watch history at least this long (default 5 minutes). */
  watchHistoryRetentionMs?: number;
  /** How often old watch history is compacted (default 60 s). */
  watchHistoryCompactionIntervalMs?: number;
  /** Never compact the newest this-many revisions (default 1000). */
  watchHistoryMinRevisions?: number;
  /** kube-apiserver's --min-request-timeout: watches without timeoutSeconds end after [this, 2·this) s (default 1800). */
  minRequestTimeoutSeconds?: number;
  /** kcp's --logical-cluster-total-object-limit: objects per logical cluster, root and system:* exempt (0 = off). */
  logicalClusterTotalObjectLimit?: number;
  /** kube's --max-requests-inflight: reads served at once before 429 (default 400; 0 = unlimited). */
  maxRequestsInflight?: number;
  /** kube's --max-mutating-requests-inflight: writes served at once before 429 (default 200; 0 = unlimited). */
  maxMutatingRequestsInflight?: number;
  /** Watches one user may hold open at once before 429 (default 500; 0 = unlimited; system:masters exempt). */
  maxWatchesPerUser?: number;
  /** kube's --request-timeout: a request other than a watch is answered 504 after this long (default 60 s; 0 = none). */
  requestTimeoutMs?: number;
  /** Where messages go (default stderr). */
  log?: (line: string) => void;
  /** Home workspaces: where the buckets start (`root:users`), how many levels (1–5) and letters per bucket (1–4). */
  homeWorkspacesRootPrefix?: string;
  homeWorkspacesBucketLevels?: number;
  homeWorkspacesBucketSize?: number;
  /** Groups whose members get a home workspace created on their first `~` (default `system:authenticated`). */
  homeWorkspacesHomeCreatorGroups?: string[];
  /** This server's Shard name (default `root`: the root shard). Another name makes a non-root shard. */
  shardName?: string;
  /** A non-root shard's way to root: kubeconfig whose current context reaches the root shard with a bearer token. */
  rootShardKubeconfig?: string;
  /** Where other shards and the front-proxy reach this shard (default `https://<bind-address>:<port>`). */
  shardBaseUrl?: string;
  /** What workspace URLs point at (the front-proxy in a sharded deployment; default: the base URL). */
  shardExternalUrl?: string;
  /** Where this shard's virtual workspaces are reached (default: the base URL). */
  shardVirtualWorkspaceUrl?: string;
  /**
   * Also serve plaintext HTTP on this unix socket (relative: inside the root directory; mode 0600), for a
   * front-proxy on the same machine (`kcpt front-proxy --shard-socket NAME=PATH`).
   */
  proxySocket?: string;
}

/** The options completed: what the rest of the server reads. */
export interface ServerConfig {
  rootDirectory: string;
  securePort: number;
  bindAddress: string;
  storage: string;
  tokenAuthFile?: string;
  batteries: ReadonlySet<string>;
  verbosity: number;
  log(line: string): void;
  /** Logs only at verbosity 1 and above (controllers' retries, the shard-to-shard replica's news). */
  debug(line: string): void;
  watchHistory: { retentionMs?: number; compactionIntervalMs?: number; minRevisions?: number };
  minRequestTimeoutSeconds?: number;
  logicalClusterTotalObjectLimit: number;
  inflight: InflightLimits;
  requestTimeoutMs: number;
  homes: HomeOptions;
  homeCreatorGroups: string[];
  shard: {
    name: string;
    /** Shard `root`: its own store holds root and the Shards. */
    isRoot: boolean;
    /** A non-root shard's kubeconfig for root. */
    rootShardKubeconfig?: string;
    baseUrl?: string;
    externalUrl?: string;
    virtualWorkspaceUrl?: string;
  };
  proxySocket?: string;
  /** Host names the serving certificate must name: the bind address and every URL this shard is reached at. */
  certificateHosts: string[];
}

export function completeOptions(options: ServerOptions): ServerConfig {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const verbosity = options.verbosity ?? 0;
  const shardName = options.shardName ?? ROOT_SHARD;
  const isRoot = shardName === ROOT_SHARD;
  if (!isRoot && !options.rootShardKubeconfig) {
    throw new Error(`shard ${shardName} is not the root shard: it needs --root-shard-kubeconfig to reach root`);
  }
  return {
    rootDirectory: options.rootDirectory,
    securePort: options.securePort,
    bindAddress: options.bindAddress,
    storage: options.storage,
    tokenAuthFile: options.tokenAuthFile,
    batteries: new Set(options.batteries ?? DEFAULT_BATTERIES),
    verbosity,
    log,
    debug: (line) => {
      if (verbosity > 0) log(line);
    },
    watchHistory: {
      retentionMs: options.watchHistoryRetentionMs,
      compactionIntervalMs: options.watchHistoryCompactionIntervalMs,
      minRevisions: options.watchHistoryMinRevisions,
    },
    minRequestTimeoutSeconds: options.minRequestTimeoutSeconds,
    logicalClusterTotalObjectLimit: options.logicalClusterTotalObjectLimit ?? 0,
    inflight: {
      readOnly: options.maxRequestsInflight ?? DEFAULT_INFLIGHT_LIMITS.readOnly,
      mutating: options.maxMutatingRequestsInflight ?? DEFAULT_INFLIGHT_LIMITS.mutating,
      watchesPerUser: options.maxWatchesPerUser ?? DEFAULT_INFLIGHT_LIMITS.watchesPerUser,
    },
    requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    homes: {
      prefix: options.homeWorkspacesRootPrefix ?? defaultHomeOptions.prefix,
      levels: options.homeWorkspacesBucketLevels ?? defaultHomeOptions.levels,
      size: options.homeWorkspacesBucketSize ?? defaultHomeOptions.size,
    },
    homeCreatorGroups: options.homeWorkspacesHomeCreatorGroups ?? ['system:authenticated'],
    shard: {
      name: shardName,
      isRoot,
      // Only a non-root shard reaches root through a kubeconfig; root talks to itself.
      rootShardKubeconfig: isRoot ? undefined : options.rootShardKubeconfig,
      baseUrl: trimSlash(options.shardBaseUrl),
      externalUrl: trimSlash(options.shardExternalUrl),
      virtualWorkspaceUrl: trimSlash(options.shardVirtualWorkspaceUrl),
    },
    proxySocket: options.proxySocket,
    certificateHosts: [options.bindAddress, ...urlHosts(options.shardBaseUrl, options.shardExternalUrl, options.shardVirtualWorkspaceUrl)],
  };
}

/** Where this server is reached, once it listens on `port`. */
export interface ServerUrls {
  /** The port listened on (`--secure-port`, or the one picked for 0). */
  port: number;
  /** `https://<bind address>:<port>`: what admin.kubeconfig points at. */
  listenUrl: string;
  /** Where other shards and the front-proxy reach this shard (the Shard's spec.baseURL). */
  baseUrl: string;
  /** What workspace URLs point at (spec.externalURL). */
  externalUrl: string;
  /** Where this shard's virtual workspaces are reached (spec.virtualWorkspaceURL). */
  virtualWorkspaceUrl: string;
  /** `host:port`, advertised in legacy /api discovery. */
  serverAddress: string;
}

export function serverUrls(config: Pick<ServerConfig, 'bindAddress' | 'shard'>, port: number): ServerUrls {
  const host = config.bindAddress.includes(':') ? `[${config.bindAddress}]` : config.bindAddress;
  const listenUrl = `https://${host}:${port}`;
  const baseUrl = config.shard.baseUrl ?? listenUrl;
  return {
    port,
    listenUrl,
    baseUrl,
    externalUrl: config.shard.externalUrl ?? baseUrl,
    virtualWorkspaceUrl: config.shard.virtualWorkspaceUrl ?? baseUrl,
    serverAddress: `${host}:${port}`,
  };
}

export function trimSlash(url: string | undefined): string | undefined {
  return url ? url.replace(/\/+$/, '') : undefined;
}

/** Host names of the URLs a shard is reached at: its serving certificate must name them. */
function urlHosts(...urls: Array<string | undefined>): string[] {
  return urls.flatMap((u) => (u ? [new URL(u).hostname.replace(/^\[|\]$/g, '')] : []));
}
