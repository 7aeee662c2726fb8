/**
 * The etcd backend: etcd is the durable copy, an in-process mirror (the memory store's structures) serves reads.
 *
 * The Store contract is synchronous, the etcd client is not: a worker thread (etcd-worker.ts) owns the etcd3 gRPC
 * client and every call blocks this thread on Atomics (synckit) until etcd answered. Only writes and compaction go
 * to etcd; GET, LIST, past-revision LIST and watch are served from the mirror, which is exact because kcpt is the
 * only writer of its keyspace (one keyspace per server, as kcp has one per shard) — the worker's etcd watch
 * notices any other writer and the store then refuses writes. See README.md (etcd) for the revision mapping.
 */
import { createHash } from 'node:crypto';
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSyncFn } from 'synckit';
import { parseLogRecord, encodeLogRecord, encodeRowValue } from './etcd-values.js';
import {
  COUNTER_KEY,
  logKey,
  type EtcdConnection,
  type LoadedKeyspace,
  type Reachability,
  type CompactionOutcome,
  type CounterState,
  type TxnOutcome,
  type TxnPlan,
  type WorkerReply,
  type WorkerRequest,
} from './etcd-protocol.js';
import type { LoggedEvent } from './history.js';
import { createMirrorStore, type MirrorStore, type PreparedCommit } from './memory-store.js';
import {
  KeyExistsError,
  KeyNotFoundError,
  RevisionConflictError,
  StorageUnavailableError,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type Store,
  type WatchHandle,
  type WatchListener,
  type WriteOp,
  type WriteResult,
} from './store.js';
import type { ListenerErrorHandler } from './watch-hub.js';

export interface EtcdStoreOptions extends Partial<Omit<EtcdConnection, 'endpoints'>> {
  endpoints: string[];
  onListenerError?: ListenerErrorHandler;
  /** Compaction never drops the newest this-many revisions. Default 1000 (kine's figure). */
  keepNewestRevisions?: number;
}

export interface EtcdStore extends Store {
  readonly endpoints: readonly string[];
  readonly prefix: string;
  /** Newest revision logged strictly before `timestampMs`: feeds the compactor. */
  latestRevisionBefore(timestampMs: number): number;
  /** The etcd revision of the transaction that wrote kcpt revision `revision` (undefined once compacted away). */
  etcdRevisionOf(revision: number): number | undefined;
}

/**
 * Default time one etcd request may take before a commit fails. The server waits for it (the Store is synchronous),
 * so it is kube-apiserver's request timeout for etcd (5 s) rather than anything longer.
 */
export const DEFAULT_ETCD_TIMEOUT_MS = 5_000;

type Call = <T>(request: WorkerRequest) => WorkerReply<T>;
let callWorker: Call | undefined;
let nextStoreId = 1;

/**
 * The worker module next to this one: compiled JS in dist (also reached from the engine bundle's directory). Under
 * the tests the source is TypeScript, and Node 20 applies no `--import tsx` hooks to a worker's entry module, so a
 * one-line shim in the temp directory registers tsx in the worker first.
 */
function workerCall(): Call {
  if (callWorker) return callWorker;
  const candidates = ['./etcd-worker.js', '../src/engine/storage/etcd-worker.js', '../../src/engine/storage/etcd-worker.js'];
  for (const candidate of candidates) {
    const path = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(path)) return (callWorker = createSyncFn(path) as Call);
  }
  const source = new URL('./etcd-worker.ts', import.meta.url);
  if (!existsSync(source)) throw new Error(`the etcd worker module is missing next to ${fileURLToPath(import.meta.url)}`);
  const tsx = import.meta.resolve('tsx/esm/api');
  const text = `import { register } from ${JSON.stringify(tsx)};\nregister();\nawait import(${JSON.stringify(source.href)});\n`;
  // Named by its content: every test process reuses the one file instead of leaving its own behind.
  const shim = join(tmpdir(), `kcpt-etcd-worker-${createHash('sha256').update(text).digest('hex').slice(0, 16)}.mjs`);
  if (!existsSync(shim)) {
    const partial = `${shim}.${process.pid}`;
    writeFileSync(partial, text);
    renameSync(partial, shim);
  }
  return (callWorker = createSyncFn(shim) as Call);
}

export function openEtcdStore(options: EtcdStoreOptions): EtcdStore {
  if (options.endpoints.length === 0) throw new Error('etcd storage needs at least one endpoint (e.g. http://127.0.0.1:2379)');
  const prefix = (options.prefix ?? '').replace(/\/+$/, '');
  if (prefix !== '' && !prefix.startsWith('/')) throw new Error(`etcd prefix "${options.prefix}" must start with "/"`);
  const connection: EtcdConnection = {
    endpoints: options.endpoints,
    prefix,
    caFile: options.caFile,
    certFile: options.certFile,
    keyFile: options.keyFile,
    timeoutMs: options.timeoutMs ?? DEFAULT_ETCD_TIMEOUT_MS,
  };
  return new EtcdStoreImpl(connection, options);
}

/** One commit's etcd transaction, as the mirror saw the keys before it. */
interface CommitMapping {
  /** Last kcpt revision the commit took. */
  revision: number;
  etcdRevision: number;
}

class EtcdStoreImpl implements EtcdStore {
  readonly name = 'etcd';
  readonly endpoints: readonly string[];
  readonly prefix: string;
  private readonly id = nextStoreId++;
  private readonly call: Call;
  private readonly mirror: MirrorStore;
  /** etcd mod_revision of every current key: the compare each commit makes (a key absent here must be absent). */
  private readonly modRevisions = new Map<string, number>();
  private counterModRevision: number;
  /** etcd revision per commit still in the log, oldest first: kcpt revision → etcd revision. */
  private mappings: CommitMapping[] = [];
  /** A write etcd may or may not have applied (its answer was lost); settled before the next write. */
  private unsettled?: { prepared: PreparedCommit; counterValue: string };
  /** Transactions made: part of the counter value, so each one is recognisable (settling an unknown outcome). */
  private writes = 0;
  /** Set once another writer touched the keyspace: the mirror may be stale, so writes are refused until a restart. */
  private broken?: string;
  /**
   * Set when etcd did not answer a write (no quorum, unreachable): until the worker's background probe reads etcd
   * again, writes are refused at once with a 503 instead of each blocking the server for a full timeout.
   */
  private unavailable?: string;
  private closed = false;

  constructor(connection: EtcdConnection, options: EtcdStoreOptions) {
    this.endpoints = connection.endpoints;
    this.prefix = connection.prefix;
    this.call = workerCall();
    this.mirror = createMirrorStore({ onListenerError: options.onListenerError, keepNewestRevisions: options.keepNewestRevisions });
    const loaded = this.request<LoadedKeyspace>({ op: 'open', id: this.id, connection });
    this.counterModRevision = loaded.counterModRevision;
    this.restore(loaded);
  }

  private restore(loaded: LoadedKeyspace): void {
    const rows: KeyValue[] = [];
    for (const { modRevision, ...row } of loaded.rows) {
      rows.push(row);
      this.modRevisions.set(row.key, modRevision);
    }
    const log: LoggedEvent[] = [];
    for (const record of loaded.records) {
      const events = parseLogRecord(record.text);
      if (events.length === 0) continue;
      log.push(...events);
      this.mappings.push({ revision: events[events.length - 1]!.event.revision, etcdRevision: record.modRevision });
    }
    this.mirror.restore({ rows, log, revision: loaded.revision, compacted: loaded.compacted });
  }

  private request<T>(request: WorkerRequest): T {
    let reply: WorkerReply<T>;
    try {
      reply = this.call<T>(request);
    } catch (error) {
      // Say which etcd, in words a person can act on; the client's own message follows.
      const detail = String((error as Error).message ?? error);
      throw new Error(`etcd at ${this.endpoints.join(',')} is unavailable (${request.op}): ${detail}`);
    }
    if (reply.foreignWrites.length > 0) {
      this.broken ??= reply.foreignWrites[0];
      for (const line of reply.foreignWrites) process.emitWarning(line, 'EtcdForeignWriteWarning');
    }
    return reply.result;
  }

  currentRevision(): number {
    return this.mirror.currentRevision();
  }

  compactedRevision(): number {
    return this.mirror.compactedRevision();
  }

  get(key: string): KeyValue | undefined {
    this.assertOpen();
    return this.mirror.get(key);
  }

  list(prefix: string, options?: ListOptions): ListResult {
    this.assertOpen();
    return this.mirror.list(prefix, options);
  }

  count(prefix: string): number {
    this.assertOpen();
    return this.mirror.count(prefix);
  }

  watch(prefix: string, fromRevision: number, listener: WatchListener): WatchHandle {
    this.assertOpen();
    return this.mirror.watch(prefix, fromRevision, listener);
  }

  latestRevisionBefore(timestampMs: number): number {
    return this.mirror.latestRevisionBefore(timestampMs);
  }

  etcdRevisionOf(revision: number): number | undefined {
    if (revision <= this.compactedRevision() || revision > this.currentRevision()) return undefined;
    return this.mappings.find((mapping) => mapping.revision >= revision)?.etcdRevision;
  }

  commit(ops: WriteOp[]): WriteResult[] {
    this.assertOpen();
    if (this.broken) throw new Error(`etcd storage refuses writes: ${this.broken}`);
    this.assertReachable();
    if (this.unsettled) this.guard(() => this.settle());
    const prepared = this.mirror.prepare(ops);
    if (prepared.staged.size === 0) return prepared.results;
    const plan = this.plan(prepared);
    const outcome = this.request<TxnOutcome>({ op: 'txn', id: this.id, plan });
    if (outcome.applied === 'unknown') {
      this.unsettled = { prepared, counterValue: plan.counterValue };
      this.unavailable = outcome.reason;
      throw new StorageUnavailableError(`etcd at ${this.endpoints.join(',')} did not acknowledge the write: ${outcome.reason}`);
    }
    if (!outcome.applied) {
      // The counter moved: either a write whose answer we lost landed after all (settle, then try again), or
      // someone else writes this keyspace.
      if (this.unsettled && this.settle()) return this.commit(ops);
      throw this.mismatchError(ops, outcome.mismatched);
    }
    this.unsettled = undefined;
    this.applyAcknowledged(prepared, outcome.etcdRevision);
    return prepared.results;
  }

  /** Only once etcd acknowledged a commit may readers and watchers see it. */
  private applyAcknowledged(prepared: PreparedCommit, etcdRevision: number): void {
    for (const [key, row] of prepared.staged) {
      if (row) this.modRevisions.set(key, etcdRevision);
      else this.modRevisions.delete(key);
    }
    this.counterModRevision = etcdRevision;
    if (prepared.logged.length > 0) this.mappings.push({ revision: prepared.revision, etcdRevision });
    this.mirror.applyPrepared(prepared);
  }

  /** Refuses a write at once while etcd is known to be unreachable (see `unavailable`). */
  private assertReachable(): void {
    if (this.unavailable === undefined) return;
    const now = this.request<Reachability>({ op: 'reachable', id: this.id });
    if (now.reachable) {
      this.unavailable = undefined;
      return;
    }
    this.unavailable = now.reason ?? this.unavailable;
    throw new StorageUnavailableError(
      `etcd at ${this.endpoints.join(',')} is unavailable (${this.unavailable}); kcpt refuses writes until it answers again and checks twice a second`,
    );
  }

  /** Runs an etcd call whose failure means etcd is unreachable: remembered, and said as a 503. */
  private guard<T>(call: () => T): T {
    try {
      return call();
    } catch (error) {
      if (error instanceof StorageUnavailableError) throw error;
      this.unavailable = String((error as Error).message ?? error);
      throw new StorageUnavailableError(this.unavailable);
    }
  }

  /**
   * Learns whether the write whose answer was lost applied (the counter holds its unique value) and if so applies
   * it now. Throws while etcd cannot be read: no write may go out before this is known.
   */
  private settle(): boolean {
    const { prepared, counterValue } = this.unsettled!;
    const counter = this.request<CounterState | undefined>({ op: 'counter', id: this.id });
    if (counter?.value !== counterValue) return false;
    this.unsettled = undefined;
    this.applyAcknowledged(prepared, counter.modRevision);
    return true;
  }

  /** One transaction: every touched key (and the counter) must be where the mirror believes it is. */
  private plan(prepared: PreparedCommit): TxnPlan {
    const counterValue = this.nextCounterValue(prepared.revision);
    const plan: TxnPlan = { compares: [[COUNTER_KEY, this.counterModRevision]], puts: [], deletes: [], counterValue };
    for (const [key, row] of prepared.staged) {
      const known = this.modRevisions.get(key) ?? 0;
      plan.compares.push([key, known]);
      if (row) plan.puts.push([key, encodeRowValue(row)]);
      else if (known !== 0) plan.deletes.push(key);
    }
    // Every transaction writes the counter, even with no new revision: that is how the worker's watch tells our
    // transactions from anyone else's, and how an unknown outcome is settled (settle()).
    plan.puts.push([COUNTER_KEY, counterValue]);
    if (prepared.logged.length > 0) plan.puts.push([logKey(prepared.revision), encodeLogRecord(prepared.logged)]);
    return plan;
  }

  /** The counter's next value: the current kcpt revision plus a tag no other transaction carries. */
  private nextCounterValue(revision = this.currentRevision()): string {
    return `${revision} ${process.pid}.${this.id}.${++this.writes}`;
  }

  private refuse(reason: string): Error {
    this.broken ??= reason;
    process.emitWarning(reason, 'EtcdForeignWriteWarning');
    return new Error(reason);
  }

  /** A compare failed although the mirror agreed: someone else wrote the keyspace. Name the key, refuse from now on. */
  private mismatchError(ops: WriteOp[], mismatched: Array<[string, number]>): Error {
    const [key, actual] = mismatched.find(([k]) => k !== COUNTER_KEY) ?? mismatched[0] ?? [COUNTER_KEY, 0];
    this.refuse(`etcd key ${this.prefix}${key} changed outside kcpt (another writer shares this keyspace); restart kcpt to reload`);
    const op = ops.find((o) => o.key === key);
    if (op?.type === 'create' && actual !== 0) return new KeyExistsError(`key ${key} already exists (written outside kcpt)`, key);
    if (op && op.type !== 'create' && actual === 0) return new KeyNotFoundError(`key ${key} not found (deleted outside kcpt)`, key);
    return new RevisionConflictError(`key ${key} was changed outside kcpt (etcd mod_revision ${actual})`, key);
  }

  compact(revision: number): number {
    this.assertOpen();
    // A late-landing write would fail the compaction's counter compare and look like another writer.
    this.assertReachable();
    if (this.unsettled) this.guard(() => this.settle());
    const before = this.mirror.compactedRevision();
    const removed = this.mirror.compact(revision);
    const compacted = this.mirror.compactedRevision();
    if (compacted === before) return removed;
    // Log records whose events are all at or below the compacted revision go; so does etcd's history before the
    // transaction that wrote the first revision still resumable (nothing reads etcd's history below it).
    let drop = 0;
    while (drop < this.mappings.length && this.mappings[drop]!.revision <= compacted) drop++;
    const firstKept = this.mappings[drop];
    this.mappings = this.mappings.slice(drop);
    const outcome = this.request<CompactionOutcome>({
      op: 'compact',
      id: this.id,
      plan: {
        counterModRevision: this.counterModRevision,
        counterValue: this.nextCounterValue(),
        deleteLogUpTo: logKey(compacted + 1),
        compactedValue: String(compacted),
        etcdRevision: firstKept ? firstKept.etcdRevision - 1 : 0,
      },
    });
    if (outcome.etcdRevision === undefined) {
      throw this.refuse(`the revision counter ${this.prefix}${COUNTER_KEY} changed outside kcpt (another writer shares this keyspace); restart kcpt to reload`);
    }
    this.counterModRevision = outcome.etcdRevision;
    return removed;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.mirror.close();
    try {
      this.request<null>({ op: 'close', id: this.id });
    } catch {
      // Closing a store whose etcd went away must not fail the shutdown.
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('etcd store is closed');
  }
}
