/**
 * The etcd store's worker thread: owns the etcd3 (gRPC) clients, one per open store, and answers the synchronous
 * calls etcd-store.ts makes through synckit (the main thread is blocked on Atomics until the reply is posted).
 * It also keeps one etcd watch per store to notice writes that did not come from that store.
 */
import { readFileSync, writeSync } from 'node:fs';
import { Etcd3, type IKeyValue, type IRequestOp, type Watcher } from 'etcd3';
import { runAsWorker } from 'synckit';
import {
  COMPACTED_KEY,
  COUNTER_KEY,
  LOG_DIRECTORY,
  type CompactionOutcome,
  type CompactionPlan,
  type CounterState,
  type EtcdConnection,
  type LoadedKeyspace,
  type LoadedRow,
  type Reachability,
  type TxnOutcome,
  type TxnPlan,
  type WorkerReply,
  type WorkerRequest,
} from './etcd-protocol.js';
import { parseRowValue } from './etcd-values.js';

/** Keys per range read while loading: bounded replies, however big the keyspace. */
const LOAD_PAGE = 1000;

interface Session {
  client: Etcd3;
  connection: EtcdConnection;
  watcher?: Watcher;
  foreign: string[];
  /** Set while the store believes etcd is down: the background probe's latest finding. */
  probe?: { ok: boolean; reason: string; running: boolean };
  closed?: boolean;
}

/** How often the background probe asks etcd again, and how long each ask may take. */
const PROBE_INTERVAL_MS = 500;
const PROBE_TIMEOUT_MS = 1000;

const sessions = new Map<number, Session>();

runAsWorker(async (request: WorkerRequest): Promise<WorkerReply<unknown>> => {
  if (request.op === 'open') return reply(await open(request.id, request.connection), request.id);
  const session = sessions.get(request.id);
  if (!session) throw new Error(`etcd store ${request.id} is not open`);
  switch (request.op) {
    case 'txn':
      return reply(await commit(session, request.plan), request.id);
    case 'compact':
      return reply(await compact(session, request.plan), request.id);
    case 'counter':
      return reply(await readCounter(session), request.id);
    case 'reachable':
      return reply(reachability(session), request.id);
    case 'close':
      sessions.delete(request.id);
      session.closed = true;
      await session.watcher?.cancel().catch(() => undefined);
      session.client.close();
      return { result: null, foreignWrites: session.foreign.splice(0) };
  }
});

function reply<T>(result: T, id: number): WorkerReply<T> {
  return { result, foreignWrites: sessions.get(id)?.foreign.splice(0) ?? [] };
}

const buf = (text: string) => Buffer.from(text, 'utf8');
/** The first key after every key starting with `prefix` (etcd's range_end for a prefix). */
function rangeEnd(prefix: string): Buffer {
  const end = Buffer.from(buf(prefix));
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i]! < 0xff) {
      end[i]!++;
      return end.subarray(0, i + 1);
    }
  }
  return Buffer.from([0]);
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`etcd did not answer ${what} within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function open(id: number, connection: EtcdConnection): Promise<LoadedKeyspace> {
  const read = (file: string | undefined) => (file ? readFileSync(file) : undefined);
  // https endpoints without a CA or client certificate use the system roots (etcd3 builds that itself).
  const ownTls = connection.caFile !== undefined || connection.certFile !== undefined;
  const client = new Etcd3({
    hosts: connection.endpoints,
    dialTimeout: connection.timeoutMs,
    ...(ownTls
      ? { credentials: { rootCertificate: read(connection.caFile)!, privateKey: read(connection.keyFile), certChain: read(connection.certFile) } }
      : {}),
  });
  const session: Session = { client, connection, foreign: [] };
  try {
    const loaded = await withTimeout(load(session), Math.max(connection.timeoutMs, 30_000), 'the start-up load');
    sessions.set(id, session);
    watchForeignWrites(session, loaded.etcdRevision);
    return loaded;
  } catch (error) {
    client.close();
    throw new Error(`cannot load the etcd keyspace "${connection.prefix || '/'}" from ${connection.endpoints.join(',')}: ${String((error as Error).message ?? error)}`);
  }
}

/** Every key under the prefix, in pages, all read at one etcd revision so the picture is consistent. */
async function load(session: Session): Promise<LoadedKeyspace> {
  const { prefix } = session.connection;
  const end = rangeEnd(prefix === '' ? '/' : prefix);
  const rows: LoadedRow[] = [];
  const records: LoadedKeyspace['records'] = [];
  let revision = 0;
  let counterModRevision = 0;
  let compacted = 0;
  let etcdRevision = 0;
  let from = buf(prefix === '' ? '/' : prefix);
  for (;;) {
    const page = await session.client.kv.range({ key: from, range_end: end, limit: LOAD_PAGE, revision: etcdRevision || undefined });
    if (etcdRevision === 0) etcdRevision = Number(page.header.revision);
    for (const kv of page.kvs) {
      const key = kv.key.toString('utf8').slice(prefix.length);
      const value = kv.value.toString('utf8');
      if (key === COUNTER_KEY) {
        revision = Number.parseInt(value, 10);
        counterModRevision = Number(kv.mod_revision);
      } else if (key === COMPACTED_KEY) compacted = Number.parseInt(value, 10);
      else if (key.startsWith(LOG_DIRECTORY)) records.push({ text: value, modRevision: Number(kv.mod_revision) });
      else rows.push({ key, ...parseRowValue(key, value), modRevision: Number(kv.mod_revision) });
    }
    if (!page.more || page.kvs.length === 0) break;
    from = Buffer.concat([page.kvs[page.kvs.length - 1]!.key, Buffer.from([0])]);
  }
  return { rows, records, revision, counterModRevision, compacted, etcdRevision };
}

async function commit(session: Session, plan: TxnPlan): Promise<TxnOutcome> {
  const { prefix, timeoutMs } = session.connection;
  const full = (key: string) => buf(prefix + key);
  const success: IRequestOp[] = [
    ...plan.puts.map(([key, value]): IRequestOp => ({ request_put: { key: full(key), value: buf(value) } })),
    ...plan.deletes.map((key): IRequestOp => ({ request_delete_range: { key: full(key) } })),
  ];
  // On failure read back the compared keys, so the caller can say which one moved and to what; the counter with its
  // value, which tells whether it moved because of this very transaction (see below).
  const failure = plan.compares.map(([key]): IRequestOp => ({ request_range: { key: full(key), keys_only: key !== COUNTER_KEY } }));
  try {
    const response = await withTimeout(
      session.client.kv.txn({
        compare: plan.compares.map(([key, modRevision]) => ({ key: full(key), target: 'Mod', result: 'Equal', mod_revision: modRevision })),
        success,
        failure,
      }),
      timeoutMs,
      'a commit',
    );
    if (response.succeeded) return { applied: true, etcdRevision: Number(response.header.revision) };
    // The client sends a request again on another member when the connection to one breaks (a member stopping, a
    // leader change); if the first attempt had applied, the retry's compares fail against its own writes. The counter
    // holds a value unique to this transaction only in that case: it applied, once.
    const counterAt = plan.compares.findIndex(([key]) => key === COUNTER_KEY);
    const counter = response.responses[counterAt]?.response_range?.kvs[0];
    if (counter && counter.value.toString('utf8') === plan.counterValue) return { applied: true, etcdRevision: Number(counter.mod_revision) };
    const mismatched: Array<[string, number]> = [];
    plan.compares.forEach(([key, expected], i) => {
      const now = response.responses[i]?.response_range?.kvs[0];
      const actual = now ? Number(now.mod_revision) : 0;
      if (actual !== expected) mismatched.push([key, actual]);
    });
    return { applied: false, mismatched };
  } catch (error) {
    // Timed out or the connection broke: the transaction may or may not have applied. The counter key says which:
    // it holds this commit's unique value only if it did.
    // Briefly: when etcd is gone the request has already waited its full timeout, with the server blocked on it.
    const counter = await readCounter(session, Math.min(timeoutMs, 1000)).catch(() => null);
    if (counter?.value === plan.counterValue) return { applied: true, etcdRevision: counter.modRevision };
    // Not (yet) applied, as far as anyone can tell: a client retry may still land, until our next transaction moves
    // the counter it compares against. The store settles it before its next write.
    return { applied: 'unknown', reason: String((error as Error).message ?? error) };
  }
}

/**
 * Never waits for etcd: the store asks this while etcd is believed down, so that writes are refused at once instead
 * of each one blocking the server for a full timeout. The first ask starts a probe loop in this thread (a
 * linearizable read every PROBE_INTERVAL_MS); once a read succeeds the next ask says so and the probe ends.
 */
function reachability(session: Session): Reachability {
  const probe = (session.probe ??= { ok: false, reason: '', running: false });
  if (probe.ok) {
    session.probe = undefined;
    return { reachable: true };
  }
  if (!probe.running) {
    probe.running = true;
    void (async () => {
      while (!session.closed) {
        try {
          await readCounter(session, PROBE_TIMEOUT_MS);
          probe.ok = true;
          break;
        } catch (error) {
          probe.reason = String((error as Error).message ?? error);
          await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS));
        }
      }
      probe.running = false;
    })();
  }
  return { reachable: false, reason: probe.reason || undefined };
}

/** A linearizable read of the counter: what settles a commit whose answer was lost. */
async function readCounter(session: Session, timeoutMs = session.connection.timeoutMs): Promise<CounterState | undefined> {
  const { prefix } = session.connection;
  const counter = await withTimeout(session.client.kv.range({ key: buf(prefix + COUNTER_KEY) }), timeoutMs, 'a read of the revision counter');
  const kv = counter.kvs[0];
  return kv ? { value: kv.value.toString('utf8'), modRevision: Number(kv.mod_revision) } : undefined;
}

async function compact(session: Session, plan: CompactionPlan): Promise<CompactionOutcome> {
  const { prefix, timeoutMs } = session.connection;
  const response = await withTimeout(
    session.client.kv.txn({
      compare: [{ key: buf(prefix + COUNTER_KEY), target: 'Mod', result: 'Equal', mod_revision: plan.counterModRevision }],
      success: [
        { request_delete_range: { key: buf(prefix + LOG_DIRECTORY), range_end: buf(prefix + plan.deleteLogUpTo) } },
        { request_put: { key: buf(prefix + COMPACTED_KEY), value: buf(plan.compactedValue) } },
        { request_put: { key: buf(prefix + COUNTER_KEY), value: buf(plan.counterValue) } },
      ],
    }),
    timeoutMs,
    'a log compaction',
  );
  if (!response.succeeded) return {};
  if (plan.etcdRevision > 0) {
    // etcd's own history below the oldest revision a kcpt watch may resume from is never read again.
    await withTimeout(session.client.kv.compact({ revision: plan.etcdRevision }), timeoutMs, 'a compaction').catch((error: Error) => {
      if (!/required revision has been compacted/.test(error.message)) throw error;
    });
  }
  return { etcdRevision: Number(response.header.revision) };
}

/**
 * Every transaction this store makes writes the counter key; an etcd revision under the prefix without it came
 * from someone else, and the mirror no longer reflects etcd. Said loudly right away (stderr, synchronously) and
 * handed to the store with its next reply, which then refuses further writes.
 */
function watchForeignWrites(session: Session, fromRevision: number): void {
  const { prefix } = session.connection;
  const counterKey = prefix + COUNTER_KEY;
  const seen = new Map<string, { counter: boolean; keys: string[] }>();
  const note = (kv: IKeyValue) => {
    const revision = kv.mod_revision;
    let entry = seen.get(revision);
    if (!entry) seen.set(revision, (entry = { counter: false, keys: [] }));
    const key = kv.key.toString('utf8');
    if (key === counterKey) entry.counter = true;
    else if (entry.keys.length < 5) entry.keys.push(key);
  };
  session.client
    .watch()
    .prefix(prefix === '' ? '/' : prefix)
    .startRevision(String(fromRevision + 1))
    .create()
    .then((watcher) => {
      session.watcher = watcher;
      watcher.on('put', note);
      watcher.on('delete', note);
      // A watch response carries whole revisions: judge them once the response is through.
      watcher.on('data', () => {
        for (const [revision, entry] of seen) {
          if (!entry.counter) {
            const line = `kcpt etcd store: etcd revision ${revision} changed ${entry.keys.join(', ')} under "${prefix || '/'}" without kcpt: another writer shares this keyspace; kcpt refuses further writes (restart it to reload)`;
            session.foreign.push(line);
            writeSync(2, `${line}\n`);
          }
        }
        seen.clear();
      });
      watcher.on('error', () => undefined);
    })
    .catch(() => undefined);
}
