/**
 * The names kcp gives things: labels and annotations on Workspaces and LogicalClusters, logical cluster names, and
 * the workspace path grammar (`root:org:team`). Naming rules only, no state: admission, snapshots and every layer
 * from tenancy up read them.
 */
import { createHash, randomBytes } from 'node:crypto';

export const TENANCY_GROUP = 'tenancy.kcp.io';
export const CORE_KCP_GROUP = 'core.kcp.io';
export const ROOT_CLUSTER = 'root';
export const ROOT_SHARD = 'root';

/** Label kept equal to a Workspace's status.phase. */
export const PHASE_LABEL = 'tenancy.kcp.io/phase';
/** JSON authentication/v1 UserInfo of the creator (set for non-privileged creators). */
export const OWNER_ANNOTATION = 'experimental.tenancy.kcp.io/owner';
export const SHARD_ANNOTATION = 'core.kcp.io/shard';
/** Deprecated short shard hash kcp still writes. */
export const SHARD_HASH_ANNOTATION = 'internal.tenancy.kcp.io/shard';
/** The cluster name chosen for a Workspace (phase one of kcp's two-phase scheduling). */
export const CLUSTER_ANNOTATION = 'internal.tenancy.kcp.io/cluster';
/** On a LogicalCluster: `<type path>:<type name>` of its workspace type. */
export const TYPE_ANNOTATION = 'internal.tenancy.kcp.io/type';
/** Canonical path of a logical cluster (on its LogicalCluster), or of the workspace an object lives in. */
export const PATH_ANNOTATION = 'kcp.io/path';
export const REQUIRED_GROUPS_ANNOTATION = 'authorization.kcp.io/required-groups';
/** Prefix of the labels marking a LogicalCluster as waiting on an initializer (what its virtual workspace selects). */
export const INITIALIZER_LABEL_PREFIX = 'initializer.internal.kcp.io/';
/** Finalizer a Workspace carries until its LogicalCluster is gone. */
export const LOGICAL_CLUSTER_FINALIZER = 'core.kcp.io/logicalcluster';
/**
 * kcpt's record of the API groups a logical cluster serves beyond every cluster's built-ins (kcp gets the same
 * effect from the default APIBindings of the `universal` type).
 */
export const APIS_ANNOTATION = 'internal.kcpt.dev/apis';

const segment = '[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?';
const pathRe = new RegExp(`^${segment}(:${segment})*$`);
/** kcp's Workspace/WorkspaceType name pattern (a DNS-1123 label). */
export const NAME_PATTERN = '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$';
/** kcp's WorkspaceTypeReference.name pattern. */
export const TYPE_NAME_PATTERN = '^[a-z]([a-z0-9-]{0,61}[a-z0-9])?';
/** kcp's WorkspaceTypeReference.path / APIExportReference.path pattern. */
export const PATH_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(:[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';

/** True for `root`, `root:org:team`, `2x8k1q0v9m3fgh7a:child`. */
export function isValidPath(path: string): boolean {
  return pathRe.test(path);
}

export function joinPath(parent: string, name: string): string {
  return parent ? `${parent}:${name}` : name;
}

/** `root:org:team` → [`root:org`, `team`]; a single segment has no parent. */
export function splitPath(path: string): { parent: string | undefined; name: string } {
  const at = path.lastIndexOf(':');
  return at < 0 ? { parent: undefined, name: path } : { parent: path.slice(0, at), name: path.slice(at + 1) };
}

/** Base 36 of a big-endian byte string, one leading `0` per leading zero byte (kcp's encoding). */
function base36(bytes: Buffer): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  const value = BigInt(`0x${bytes.toString('hex') || '0'}`);
  return '0'.repeat(zeros) + (value === 0n ? '' : value.toString(36));
}

/** Random bytes drawn 4 KiB at a time: one getrandom call per 819 names instead of one per name. */
let pool = Buffer.alloc(0);
let poolAt = 0;
function random5(): Buffer {
  if (poolAt + 5 > pool.length) {
    pool = randomBytes(4095);
    poolAt = 0;
  }
  poolAt += 5;
  return pool.subarray(poolAt - 5, poolAt);
}

/** 36^8 ms is ~89 years: the time part keeps 8 characters (it wraps, harmlessly, in 2059). */
const TIME_SPAN_MS = 36 ** 8;

/**
 * A fresh logical cluster name in kcp's format (16 base-36 characters): the creation time in milliseconds (8
 * characters) then 40 random bits (8 characters). kcp's names are all random; names that grow keep a new cluster's
 * rows at the end of each resource's key range instead of anywhere in it, so SQLite's commits rewrite the same few
 * index pages and its checkpoints copy far fewer (docs/benchmarks.md, "Cluster names that grow").
 */
export function newClusterName(): string {
  const time = (Date.now() % TIME_SPAN_MS).toString(36).padStart(8, '0');
  const random = random5().readUIntBE(0, 5).toString(36).padStart(8, '0');
  return time + random;
}

/** The deprecated `internal.tenancy.kcp.io/shard` value: 8 chars of base36(sha224(shard name)). */
export function shardHash(shard: string): string {
  return base36(createHash('sha224').update(shard).digest()).slice(0, 8).padStart(8, '0');
}

/** `internal.tenancy.kcp.io/shard` of the root shard as kcp writes it. */
export const ROOT_SHARD_HASH = '1pfxsevk';

/**
 * kcp's label for "waits on this initializer": the key is the prefix plus as much of hex(sha224(name)) as fits a
 * 63-character name part, the value the full hash (so the pair is hard to forge).
 */
export function initializerLabel(initializer: string): [key: string, value: string] {
  const hash = createHash('sha224').update(initializer).digest('hex');
  return [INITIALIZER_LABEL_PREFIX + hash.slice(0, 63 - INITIALIZER_LABEL_PREFIX.length), hash];
}

/**
 * The labels kcp's LogicalCluster controller keeps: the phase (`Deleting` once deletion started) and one
 * initializer label per entry of status.initializers, stale ones dropped; other labels are kept.
 */
export function logicalClusterLabels(
  labels: Record<string, string> | undefined,
  phase: string,
  initializers: readonly string[],
  deleting = false,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels ?? {})) if (!k.startsWith(INITIALIZER_LABEL_PREFIX)) out[k] = v;
  out[PHASE_LABEL] = deleting ? 'Deleting' : phase;
  for (const initializer of initializers) {
    const [k, v] = initializerLabel(initializer);
    out[k] = v;
  }
  return out;
}
