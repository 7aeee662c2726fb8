/**
 * What the etcd store (main thread) and its worker (etcd-worker.ts, which owns the gRPC client) say to each other.
 * Plain data only: every request crosses a MessagePort by structured clone while the caller is blocked on it.
 */

export interface EtcdConnection {
  /** `http(s)://host:port` URLs of the cluster members. */
  endpoints: string[];
  /** Prepended to every key (kube-apiserver's --etcd-prefix); '' keeps kcpt's `/registry/…` keys as they are. */
  prefix: string;
  /** PEM file paths for TLS to etcd (kube-apiserver's --etcd-cafile/--etcd-certfile/--etcd-keyfile). */
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  /** How long one etcd request may take before the commit fails (ms). */
  timeoutMs: number;
}

/** One current key as stored in etcd, already split into kcpt's revisions and the value. */
export interface LoadedRow {
  key: string;
  value: string;
  revision: number;
  createRevision: number;
  /** etcd's mod_revision of the key: what the next commit compares against. */
  modRevision: number;
}

/** One log record (one commit's logged events) with the etcd revision it was written at. */
export interface LoadedLogRecord {
  text: string;
  modRevision: number;
}

export interface LoadedKeyspace {
  rows: LoadedRow[];
  records: LoadedLogRecord[];
  /** kcpt revision held by the counter key (0 when the keyspace is new). */
  revision: number;
  /** etcd mod_revision of the counter key (0 when absent). */
  counterModRevision: number;
  compacted: number;
  /** etcd's revision the whole keyspace was read at. */
  etcdRevision: number;
}

/** One commit as one etcd transaction: all compares must hold, then the puts and deletes apply at one etcd revision. */
export interface TxnPlan {
  /** key → the etcd mod_revision it must still have (0: must not exist). */
  compares: Array<[string, number]>;
  puts: Array<[string, string]>;
  deletes: string[];
  /** The counter value this commit writes (its last kcpt revision); read back to settle an unknown outcome. */
  counterValue: string;
}

/** Dropping log records is a write like any other: guarded by, and rewriting, the counter key. */
export interface CompactionPlan {
  counterModRevision: number;
  counterValue: string;
  /** Log record keys below this one go. */
  deleteLogUpTo: string;
  compactedValue: string;
  /** etcd's own history below this revision goes too (0: leave it). */
  etcdRevision: number;
}

/** The compaction txn's etcd revision, or undefined when the counter had moved (another writer). */
export interface CompactionOutcome {
  etcdRevision?: number;
}

export type TxnOutcome =
  | { applied: true; etcdRevision: number }
  /** A compare failed: the keys whose mod_revision differed, with what etcd holds now (0: absent). */
  | { applied: false; mismatched: Array<[string, number]> }
  /** No answer (timeout, connection lost, no quorum) and the counter could not be read back either. */
  | { applied: 'unknown'; reason: string };

/** What the background probe last learned: etcd answered a linearizable read, or why not. */
export interface Reachability {
  reachable: boolean;
  reason?: string;
}

/** The revision counter key as etcd holds it now (undefined: absent). */
export interface CounterState {
  value: string;
  modRevision: number;
}

export type WorkerRequest =
  | { op: 'open'; id: number; connection: EtcdConnection }
  | { op: 'txn'; id: number; plan: TxnPlan }
  | { op: 'compact'; id: number; plan: CompactionPlan }
  | { op: 'counter'; id: number }
  /** Answered at once from the worker's background probe (started by the first ask after a failure). */
  | { op: 'reachable'; id: number }
  | { op: 'close'; id: number };

/** Every reply also carries what the worker's watch noticed since the last call. */
export interface WorkerReply<T> {
  result: T;
  /** Writes to the keyspace that did not come from this store (another writer): human-readable lines. */
  foreignWrites: string[];
}

/** Keys the store keeps beside the data, under `<prefix>/kcpt-store/`. */
export const META_DIRECTORY = '/kcpt-store/';
export const COUNTER_KEY = `${META_DIRECTORY}revision`;
export const COMPACTED_KEY = `${META_DIRECTORY}compacted`;
export const LOG_DIRECTORY = `${META_DIRECTORY}log/`;

/** Log record keys sort by revision: zero-padded to the 16 digits of any safe integer. */
export function logKey(revision: number): string {
  return `${LOG_DIRECTORY}${String(revision).padStart(16, '0')}`;
}
