/**
 * `kcpt start`'s flags, defined once (its command spec, src/cli/start/spec.ts, carries them), and turned into the
 * engine's ServerOptions here.
 */
import { resolve } from 'node:path';
import { BatteriesError, parseBatteries } from '../../engine/server/batteries.js';
import type { ServerOptions } from '../../engine/server/index.js';
import type { FlagSpec } from '../common/command-spec.js';
import { dataOutputs, parseOutput } from '../common/output.js';

/** Where `kcpt start`, `stop`, `status`, `logs` and `snapshot` find their server when --root-directory is not given. */
export const ROOT_DIRECTORY_ENV = 'KCPT_ROOT_DIRECTORY';

export const startFlagSpecs: FlagSpec[] = [
  {
    name: 'root-directory',
    kind: 'string',
    default: '.kcp',
    env: ROOT_DIRECTORY_ENV,
    description: `Directory for the database, certificates and admin.kubeconfig (default: $${ROOT_DIRECTORY_ENV}, else .kcp).`,
  },
  { name: 'secure-port', kind: 'integer', default: 6443, min: 0, max: 65535, description: 'HTTPS port to serve on (0 picks a free port).' },
  { name: 'bind-address', kind: 'string', default: '127.0.0.1', description: 'Address to listen on; admin.kubeconfig points at it.' },
  {
    name: 'storage',
    kind: 'string',
    default: '',
    description: 'Where objects are stored: a SQLite file in the root directory by default, `memory://` for a throwaway run, or `sqlite:///path/to/file.db`.',
  },
  {
    name: 'etcd-servers',
    kind: 'string',
    description:
      'Store everything in this etcd cluster instead of SQLite: comma-separated client URLs, e.g. http://127.0.0.1:2379,http://127.0.0.1:22379 (kube-apiserver\'s flag). kcpt must be the only writer of its keyspace.',
  },
  { name: 'etcd-prefix', kind: 'string', default: '', description: 'Prepended to every etcd key (kcpt\'s keys already start with /registry/); one prefix per server sharing an etcd.' },
  { name: 'etcd-cafile', kind: 'string', description: 'PEM CA bundle to verify the etcd servers (https).' },
  { name: 'etcd-certfile', kind: 'string', description: 'PEM client certificate for etcd (with --etcd-keyfile).' },
  { name: 'etcd-keyfile', kind: 'string', description: 'PEM private key of --etcd-certfile.' },
  { name: 'token-auth-file', kind: 'string', description: 'Static bearer tokens in kube-apiserver CSV format: token,user,uid,"group1,group2".' },
  {
    name: 'batteries-included',
    kind: 'string',
    default: 'admin,workspace-types',
    description:
      'Optional pieces to install: admin, workspace-types, user (a non-admin "user" context in admin.kubeconfig; needs admin), metrics-viewer (service account default/metrics in root with a token Secret and a ClusterRoleBinding to read /metrics). A full list, or +x,-y to add to or remove from the default.',
  },
  { name: 'v', char: 'v', kind: 'integer', default: 0, min: 0, description: 'Log verbosity (0 quiet, 1 logs every request).' },
  {
    name: 'min-request-timeout',
    kind: 'integer',
    default: 1800,
    min: 1,
    description: 'Watches that set no timeoutSeconds end after a random time between this many seconds and twice that, as in kube-apiserver.',
  },
  { name: 'home-workspaces-root-prefix', kind: 'string', default: 'root:users', description: 'Workspace path under which home workspaces are created.' },
  { name: 'home-workspaces-bucket-levels', kind: 'integer', default: 2, min: 1, max: 5, description: 'Levels of bucket workspaces between the prefix and a home.' },
  {
    name: 'home-workspaces-home-creator-groups',
    kind: 'string',
    default: 'system:authenticated',
    description: 'Comma-separated groups whose members get a home workspace created the first time they ask for ~ (empty: nobody).',
  },
  { name: 'home-workspaces-bucket-size', kind: 'integer', default: 2, min: 1, max: 4, description: 'Letters in each bucket workspace name.' },
  {
    name: 'logical-cluster-total-object-limit',
    kind: 'integer',
    default: 0,
    min: 0,
    description:
      'Most objects one logical cluster may hold (events not counted); root and system:* clusters are exempt, and the core.kcp.io/max-total-objects annotation on a LogicalCluster overrides it. 0 = no limit.',
  },
  {
    name: 'request-timeout',
    kind: 'string',
    default: '60s',
    description:
      'A request that is not a watch is answered 504 Timeout after this long (e.g. 60s, 2m), as with kube-apiserver; a client still sending its body then is disconnected. 0s = no limit.',
  },
  {
    name: 'max-requests-inflight',
    kind: 'integer',
    default: 400,
    min: 0,
    description:
      'Most read requests served at once; more are answered 429 with Retry-After: 1 (watches not counted), as in kube-apiserver. 0 = no limit.',
  },
  {
    name: 'max-mutating-requests-inflight',
    kind: 'integer',
    default: 200,
    min: 0,
    description: 'Most write requests (create, update, patch, delete) served at once; more are answered 429 with Retry-After: 1. 0 = no limit.',
  },
  {
    name: 'max-watches-per-user',
    kind: 'integer',
    default: 500,
    min: 0,
    description:
      'Most watches one user holds open at once (kcpt-specific: kube exempts watches from its in-flight limits); more are answered 429 with Retry-After: 1. system:masters is exempt. 0 = no limit.',
  },
  { name: 'shard-name', kind: 'string', description: 'Run as the shard of this name (default: the root shard, `root`). A non-root shard needs --root-shard-kubeconfig.' },
  {
    name: 'root-shard-kubeconfig',
    kind: 'string',
    description: 'Kubeconfig reaching the root shard (its current context, with a bearer token): a non-root shard registers its Shard there and reviews tokens it does not know there.',
  },
  { name: 'shard-base-url', kind: 'string', description: 'URL other shards and the front-proxy reach this shard at (default https://<bind-address>:<port>).' },
  { name: 'shard-external-url', kind: 'string', description: 'URL workspace URLs point at, e.g. the front-proxy (default: the base URL).' },
  { name: 'shard-virtual-workspace-url', kind: 'string', description: "URL of this shard's virtual workspaces (default: the base URL)." },
  {
    name: 'proxy-socket',
    kind: 'string',
    description:
      'Also serve plaintext HTTP on this unix socket (mode 0600, inside --root-directory; relative paths are taken from there) for a front-proxy on the same machine: `kcpt front-proxy --shard-socket NAME=PATH` forwards over it without TLS. Bearer tokens are authenticated as on HTTPS.',
  },
  {
    name: 'shards',
    kind: 'integer',
    min: 1,
    max: 16,
    description:
      'Run a sharded development cluster: the root shard and N-1 more (child processes, one store each) behind a front-proxy on --secure-port, shards on the ports after it, all under --root-directory with one CA; admin.kubeconfig points at the proxy.',
  },
  {
    name: 'shard-etcd-servers',
    kind: 'string',
    description:
      'With --shards: the named shards store in etcd instead, e.g. shard-2=http://127.0.0.1:2379 or shard-1=http://a:2379,http://b:2379,shard-2=http://c:2379 (each shard gets the etcd prefix /<shard name>); the others keep their storage. --etcd-cafile/--etcd-certfile/--etcd-keyfile apply to them.',
  },
  {
    name: 'detach',
    kind: 'boolean',
    description:
      'Run the server in the background (logs to kcpt.log in the root directory); returns once it answers /readyz. Stop it with `kcpt stop`.',
  },
  { name: 'output', char: 'o', kind: 'string', description: 'With --detach: print where the server runs as json, yaml or jsonpath=TEMPLATE.' },
  { name: 'watch-history-retention', kind: 'string', default: '5m', hidden: true, description: 'Keep watch history at least this long (e.g. 5m, 0s).' },
  { name: 'watch-history-compaction-interval', kind: 'string', default: '60s', hidden: true, description: 'How often to compact watch history (e.g. 60s, 100ms).' },
  { name: 'watch-history-min-revisions', kind: 'integer', default: 1000, min: 0, hidden: true, description: 'Never compact the newest N revisions.' },
];

export type StartFlagValues = Record<string, string | number | boolean | undefined>;

/** Flags that shape how `kcpt start` runs, not the server itself: the detached child does not get them. */
export const launchOnlyFlags = new Set(['detach', 'output']);

/**
 * The server flags of `values` as argv (`--name value`), for the detached child to parse the same way. Flags at their
 * default are left out (the child applies the same defaults), so `ps` shows what was asked for.
 */
export function serverArgv(values: StartFlagValues): string[] {
  return startFlagSpecs.flatMap((spec) => {
    const value = values[spec.name];
    if (launchOnlyFlags.has(spec.name) || value === undefined || value === false || value === spec.default) return [];
    return value === true ? [`--${spec.name}`] : [`--${spec.name}`, String(value)];
  });
}

export class StartUsageError extends Error {}

/** `100ms`, `30s`, `5m`, `1h` → milliseconds. */
export function parseDuration(text: string, flag: string): number {
  const match = /^(\d+)(ms|s|m|h)$/.exec(text.trim());
  if (!match) throw new StartUsageError(`--${flag}: "${text}" is not a duration like 100ms, 30s, 5m or 1h`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match[2] as 'ms' | 's' | 'm' | 'h'];
  return Number(match[1]) * unit;
}

const homePrefixRe = /^root(:[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

function batteriesFlag(value: string): string[] {
  try {
    return [...parseBatteries(value.split(',').map((b) => b.trim()).filter(Boolean))].sort();
  } catch (err) {
    if (err instanceof BatteriesError) throw new StartUsageError(err.message);
    throw err;
  }
}

/** Parsed flag values (defaults applied) → what the engine takes. */
export function toServerOptions(values: StartFlagValues): ServerOptions {
  const str = (name: string) => values[name] as string | undefined;
  const int = (name: string) => values[name] as number;
  if (values.output !== undefined && !values.detach) {
    throw new StartUsageError('-o/--output prints where a detached server runs: use it with --detach');
  }
  if (values.output !== undefined) {
    try {
      parseOutput(String(values.output), dataOutputs);
    } catch (err) {
      throw new StartUsageError((err as Error).message);
    }
  }
  const homePrefix = str('home-workspaces-root-prefix');
  if (homePrefix !== undefined && !homePrefixRe.test(homePrefix)) {
    throw new StartUsageError(`--home-workspaces-root-prefix: "${homePrefix}" must be a workspace path starting with root, like root:users`);
  }
  const shardName = str('shard-name');
  if (values.shards !== undefined && (shardName !== undefined || str('root-shard-kubeconfig') !== undefined)) {
    throw new StartUsageError('--shards starts a whole cluster, root shard included: it cannot be combined with --shard-name or --root-shard-kubeconfig');
  }
  if (values.shards !== undefined && String(values.storage ?? '').startsWith('sqlite://')) {
    throw new StartUsageError('--storage sqlite://… names one database file: with --shards each shard keeps its own in its directory (leave --storage out)');
  }
  if (values['shard-etcd-servers'] !== undefined) {
    if (values.shards === undefined) throw new StartUsageError('--shard-etcd-servers names shards of a --shards cluster: use it with --shards');
    shardEtcdServers(String(values['shard-etcd-servers']), values.shards as number);
  }
  if (shardName !== undefined && !/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(shardName)) {
    throw new StartUsageError(`--shard-name: "${shardName}" must be a lower-case DNS label like shard-1`);
  }
  if (shardName !== undefined && shardName !== 'root' && str('root-shard-kubeconfig') === undefined) {
    throw new StartUsageError(`--shard-name ${shardName}: a non-root shard needs --root-shard-kubeconfig to reach the root shard`);
  }
  if (str('root-shard-kubeconfig') !== undefined && (shardName === undefined || shardName === 'root')) {
    throw new StartUsageError('--root-shard-kubeconfig is for a non-root shard: give it a --shard-name other than root');
  }
  for (const flag of ['shard-base-url', 'shard-external-url']) {
    const url = str(flag);
    if (url !== undefined && !/^https:\/\/[^/\s]+\/?$/.test(url)) throw new StartUsageError(`--${flag}: "${url}" is not a URL like https://127.0.0.1:6444`);
  }
  // Virtual workspace URLs may carry a path: behind a front-proxy, `<proxy>/shards/<name>` reaches one shard's.
  const vwUrl = str('shard-virtual-workspace-url');
  if (vwUrl !== undefined && !/^https:\/\/[^/\s?#]+(\/[^\s?#]*)?$/.test(vwUrl)) {
    throw new StartUsageError(`--shard-virtual-workspace-url: "${vwUrl}" is not a URL like https://127.0.0.1:6444 or https://proxy:6443/shards/shard-1`);
  }
  const kubeconfig = str('root-shard-kubeconfig');
  return {
    shardName,
    rootShardKubeconfig: kubeconfig === undefined ? undefined : resolve(kubeconfig),
    shardBaseUrl: str('shard-base-url'),
    shardExternalUrl: str('shard-external-url'),
    shardVirtualWorkspaceUrl: str('shard-virtual-workspace-url'),
    proxySocket: str('proxy-socket'),
    rootDirectory: str('root-directory')!,
    securePort: int('secure-port'),
    bindAddress: str('bind-address')!,
    storage: storageUrl(values),
    tokenAuthFile: str('token-auth-file'),
    batteries: batteriesFlag(str('batteries-included') ?? ''),
    verbosity: int('v'),
    watchHistoryRetentionMs: parseDuration(str('watch-history-retention')!, 'watch-history-retention'),
    watchHistoryCompactionIntervalMs: parseDuration(str('watch-history-compaction-interval')!, 'watch-history-compaction-interval'),
    watchHistoryMinRevisions: int('watch-history-min-revisions'),
    minRequestTimeoutSeconds: int('min-request-timeout'),
    homeWorkspacesRootPrefix: str('home-workspaces-root-prefix'),
    homeWorkspacesBucketLevels: int('home-workspaces-bucket-levels'),
    homeWorkspacesBucketSize: int('home-workspaces-bucket-size'),
    homeWorkspacesHomeCreatorGroups: (str('home-workspaces-home-creator-groups') ?? 'system:authenticated')
      .split(',')
      .map((g) => g.trim())
      .filter(Boolean),
    logicalClusterTotalObjectLimit: int('logical-cluster-total-object-limit'),
    requestTimeoutMs: parseDuration(str('request-timeout')!, 'request-timeout'),
    maxRequestsInflight: int('max-requests-inflight'),
    maxMutatingRequestsInflight: int('max-mutating-requests-inflight'),
    maxWatchesPerUser: int('max-watches-per-user'),
  };
}

const shardNameRe = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** The shards of a `--shards N` cluster: root, shard-1 … shard-(N-1). */
export function clusterShardNames(count: number): string[] {
  return ['root', ...Array.from({ length: count - 1 }, (_, i) => `shard-${i + 1}`)];
}

/**
 * `--shard-etcd-servers` → shard name → its etcd client URLs (comma-separated, as --etcd-servers takes them). A list
 * item `NAME=URL` starts a shard's entry; the items after it without `NAME=` are more URLs of the same shard.
 */
export function shardEtcdServers(value: string, shardCount: number): Map<string, string> {
  const known = clusterShardNames(shardCount);
  const servers = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const item of value.split(',').map((s) => s.trim()).filter(Boolean)) {
    const named = /^([^=:/]+)=(.*)$/.exec(item);
    if (named) {
      const [, name, url] = named as unknown as [string, string, string];
      if (!shardNameRe.test(name) || !known.includes(name)) {
        throw new StartUsageError(`--shard-etcd-servers: "${name}" is not a shard of this cluster (--shards ${shardCount}: ${known.join(', ')})`);
      }
      if (servers.has(name)) throw new StartUsageError(`--shard-etcd-servers: ${name} is named twice`);
      current = [url];
      servers.set(name, current);
    } else if (current === undefined) {
      throw new StartUsageError(`--shard-etcd-servers: "${item}" names no shard: write NAME=URL, e.g. shard-2=http://127.0.0.1:2379`);
    } else {
      current.push(item);
    }
  }
  if (servers.size === 0) throw new StartUsageError('--shard-etcd-servers: name at least one shard, e.g. shard-2=http://127.0.0.1:2379');
  const result = new Map<string, string>();
  for (const [name, urls] of servers) {
    const joined = urls.join(',');
    // The same checks --etcd-servers gets, with this shard's name in the message.
    try {
      storageUrl({ 'etcd-servers': joined });
    } catch (err) {
      if (err instanceof StartUsageError) throw new StartUsageError(`--shard-etcd-servers ${name}: ${err.message.replace(/^--etcd-servers: /, '')}`);
      throw err;
    }
    result.set(name, joined);
  }
  return result;
}

/** `--storage`, or the `etcd://` storage URL the --etcd-* flags describe (they cannot be combined). */
function storageUrl(values: StartFlagValues): string {
  const storage = (values.storage as string | undefined) ?? '';
  const servers = values['etcd-servers'] as string | undefined;
  const etcdOnly = ['etcd-cafile', 'etcd-certfile', 'etcd-keyfile'].filter((name) => values[name] !== undefined);
  if (servers === undefined) {
    // --shard-etcd-servers' shards take the TLS flags (src/cli/start/dev-cluster.ts).
    if (etcdOnly.length > 0 && values['shard-etcd-servers'] === undefined) throw new StartUsageError(`--${etcdOnly[0]} needs --etcd-servers`);
    return storage;
  }
  if (storage !== '') throw new StartUsageError('--storage and --etcd-servers both say where objects go: use one of them');
  if ((values['etcd-certfile'] === undefined) !== (values['etcd-keyfile'] === undefined)) {
    throw new StartUsageError('--etcd-certfile and --etcd-keyfile go together');
  }
  const hosts: string[] = [];
  const schemes = new Set<string>();
  for (const server of servers.split(',').map((s) => s.trim()).filter(Boolean)) {
    const match = /^(https?):\/\/([^/\s]+?)\/?$/.exec(server);
    if (!match) throw new StartUsageError(`--etcd-servers: "${server}" is not a client URL like http://127.0.0.1:2379`);
    schemes.add(match[1]!);
    hosts.push(match[2]!.includes(':') ? match[2]! : `${match[2]}:${match[1] === 'https' ? 443 : 80}`);
  }
  if (hosts.length === 0) throw new StartUsageError('--etcd-servers: name at least one server, e.g. http://127.0.0.1:2379');
  if (schemes.size > 1) throw new StartUsageError('--etcd-servers: use http:// or https:// for all servers, not both');
  const prefix = ((values['etcd-prefix'] as string | undefined) ?? '').trim();
  if (prefix !== '' && !prefix.startsWith('/')) throw new StartUsageError(`--etcd-prefix: "${prefix}" must start with /`);
  const query = new URLSearchParams();
  if (schemes.has('https')) query.set('tls', 'true');
  for (const [flag, param] of [['etcd-cafile', 'cafile'], ['etcd-certfile', 'certfile'], ['etcd-keyfile', 'keyfile']] as const) {
    const file = values[flag] as string | undefined;
    if (file !== undefined) query.set(param, resolve(file));
  }
  const search = query.toString();
  return `etcd://${hosts.join(',')}${prefix.replace(/\/+$/, '')}${search ? `?${search}` : ''}`;
}
