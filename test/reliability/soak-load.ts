/**
 * The soak's load: paced writers creating, updating and deleting ConfigMaps and Widgets (a CRD kind) in several
 * workspaces, a loop creating and deleting Workspaces, an overload burst, and a sampler reading the server's RSS and
 * database size from outside. Every acknowledged write goes to the ledger with its revision; every answer's status
 * is counted (a 5xx anywhere fails the soak); a 429 is retried after its Retry-After, as client-go does.
 */
import { statSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KeepAliveClient, RawAnswer, RawRequest } from './keep-alive-client.js';
import type { Ledger, ObjectResource } from './soak-ledger.js';

export const json = { 'content-type': 'application/json' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface LoadStats {
  /** [completion time (ms since start), latency ms] of every acknowledged object write (the accepted attempt). */
  latencies: Array<[number, number]>;
  writes: number;
  workspaceCreates: number;
  workspaceDeletes: number;
  tooMany: number;
  serverErrors: number;
  failures: string[];
}

export function newStats(): LoadStats {
  return { latencies: [], writes: 0, workspaceCreates: 0, workspaceDeletes: 0, tooMany: 0, serverErrors: 0, failures: [] };
}

/** Maximum 429 retries of one request before the soak calls it unbounded queueing. */
const maxAttempts = 20;

/** Sends, retrying 429s after Retry-After; returns the final answer, its attempt count and the accepted attempt's latency. */
export async function sendRetrying(client: KeepAliveClient, req: RawRequest, stats: LoadStats): Promise<{ res: RawAnswer; attempts: number; ms: number }> {
  for (let attempt = 1; ; attempt++) {
    const t0 = performance.now();
    const res = await client.send(req, 30_000);
    const ms = performance.now() - t0;
    if (res.status >= 500) stats.serverErrors++;
    if (res.status !== 429 || attempt >= maxAttempts) return { res, attempts: attempt, ms };
    stats.tooMany++;
    const retryAfter = Number(res.headers['retry-after']);
    if (!(retryAfter >= 1)) stats.failures.push(`429 without a usable Retry-After (${String(res.headers['retry-after'])}) on ${req.method} ${req.path}`);
    await sleep(Math.max(1, retryAfter || 1) * 1000);
  }
}

export interface SoakWorkspace {
  path: string;
  cluster: string;
}

export const namespaces = ['soak', 'aux'];

function collection(ws: SoakWorkspace, resource: ObjectResource, namespace: string): string {
  return resource === 'configmaps'
    ? `/clusters/${ws.path}/api/v1/namespaces/${namespace}/configmaps`
    : `/clusters/${ws.path}/apis/soak.example.com/v1/namespaces/${namespace}/widgets`;
}

export function objectBody(resource: ObjectResource, name: string, namespace: string, tier: string, value: string, rv?: number): string {
  const metadata = { name, namespace, labels: { app: 'soak', tier }, ...(rv ? { resourceVersion: String(rv) } : {}) };
  return JSON.stringify(
    resource === 'configmaps'
      ? { apiVersion: 'v1', kind: 'ConfigMap', metadata, data: { v: value } }
      : { apiVersion: 'soak.example.com/v1', kind: 'Widget', metadata, spec: { v: value } },
  );
}

interface Live {
  name: string;
  namespace: string;
  tier: string;
  rv: number;
}

export interface WriterOptions {
  id: string;
  ws: SoakWorkspace;
  resource: ObjectResource;
  /** Pause between writes (ms). */
  paceMs: number;
  /** Objects this writer keeps alive at most (deletes win once it has this many): the data set stays bounded. */
  maxLive: number;
  random: () => number;
  started: number;
  stopped: () => boolean;
}

/** One writer's loop: create / update (with a resourceVersion precondition) / delete its own objects. */
export async function writer(client: KeepAliveClient, ledger: Ledger, stats: LoadStats, o: WriterOptions): Promise<void> {
  const live: Live[] = [];
  let n = 0;
  while (!o.stopped()) {
    const pick = o.random();
    const key = (l: { name: string; namespace: string }) => `${o.resource}/${o.ws.cluster}/${l.namespace}/${l.name}`;
    try {
      if (live.length < 3 || (live.length < o.maxLive && pick < 0.4)) {
        const obj = { name: `${o.id}-${n++}`, namespace: namespaces[Math.floor(o.random() * namespaces.length)]!, tier: o.random() < 0.5 ? 'gold' : 'silver' };
        const { res, ms } = await sendRetrying(client, { method: 'POST', path: collection(o.ws, o.resource, obj.namespace), headers: json, body: objectBody(o.resource, obj.name, obj.namespace, obj.tier, 'v0') }, stats);
        if (res.status !== 201) throw new Error(`create ${key(obj)}: ${res.status} ${res.body.slice(0, 300)}`);
        const rv = Number(JSON.parse(res.body).metadata.resourceVersion);
        ledger.record({ key: key(obj), resource: o.resource, cluster: o.ws.cluster, namespace: obj.namespace, tier: obj.tier, type: 'ADDED', rv });
        live.push({ ...obj, rv });
        stats.latencies.push([Date.now() - o.started, ms]);
      } else {
        const i = Math.floor(o.random() * live.length);
        const obj = live[i]!;
        const path = `${collection(o.ws, o.resource, obj.namespace)}/${obj.name}`;
        if (pick < 0.8 && live.length < o.maxLive) {
          const { res, ms } = await sendRetrying(client, { method: 'PUT', path, headers: json, body: objectBody(o.resource, obj.name, obj.namespace, obj.tier, `v${n++}`, obj.rv) }, stats);
          if (res.status !== 200) throw new Error(`update ${key(obj)}: ${res.status} ${res.body.slice(0, 300)}`);
          obj.rv = Number(JSON.parse(res.body).metadata.resourceVersion);
          ledger.record({ key: key(obj), resource: o.resource, cluster: o.ws.cluster, namespace: obj.namespace, tier: obj.tier, type: 'MODIFIED', rv: obj.rv });
          stats.latencies.push([Date.now() - o.started, ms]);
        } else {
          const { res, ms } = await sendRetrying(client, { method: 'DELETE', path }, stats);
          if (res.status !== 200) throw new Error(`delete ${key(obj)}: ${res.status} ${res.body.slice(0, 300)}`);
          ledger.record({ key: key(obj), resource: o.resource, cluster: o.ws.cluster, namespace: obj.namespace, tier: obj.tier, type: 'DELETED' });
          live.splice(i, 1);
          stats.latencies.push([Date.now() - o.started, ms]);
        }
      }
      stats.writes++;
    } catch (err) {
      // An unanswered write would leave the ledger unsure; the soak fails on any failure, so stop this writer.
      stats.failures.push(`${o.id}: ${(err as Error).message}`);
      return;
    }
    await sleep(o.paceMs);
  }
}

const workspaces = '/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces';

/** Creates a Workspace every `paceMs` and deletes the oldest once `keep` exist. */
export async function workspaceChurn(client: KeepAliveClient, stats: LoadStats, paceMs: number, keep: number, stopped: () => boolean): Promise<void> {
  const alive: string[] = [];
  for (let n = 0; !stopped(); n++) {
    try {
      const name = `churn-${n}`;
      const body = JSON.stringify({ apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name } });
      const { res } = await sendRetrying(client, { method: 'POST', path: workspaces, headers: json, body }, stats);
      if (res.status !== 201) throw new Error(`workspace ${name}: ${res.status} ${res.body.slice(0, 300)}`);
      stats.workspaceCreates++;
      alive.push(name);
      if (alive.length > keep) {
        const old = alive.shift()!;
        const del = await sendRetrying(client, { method: 'DELETE', path: `${workspaces}/${old}` }, stats);
        if (del.res.status !== 200 && del.res.status !== 202) throw new Error(`delete workspace ${old}: ${del.res.status} ${del.res.body.slice(0, 300)}`);
        stats.workspaceDeletes++;
      }
    } catch (err) {
      stats.failures.push(`workspace churn: ${(err as Error).message}`);
      return;
    }
    await sleep(paceMs);
  }
}

export interface BurstResult {
  size: number;
  refusedFirstTime: number;
  maxAttempts: number;
  landed: number;
  ms: number;
}

/** `size` creates at once on separate connections; refused ones come back after Retry-After until all have landed. */
export async function overloadBurst(client: KeepAliveClient, ledger: Ledger, stats: LoadStats, ws: SoakWorkspace, size: number): Promise<BurstResult> {
  const t0 = performance.now();
  const results = await Promise.all(
    Array.from({ length: size }, async (_, i) => {
      const name = `burst-${i}`;
      const { res, attempts } = await sendRetrying(client, { method: 'POST', path: collection(ws, 'configmaps', 'soak'), headers: json, body: objectBody('configmaps', name, 'soak', 'gold', 'burst') }, stats);
      if (res.status === 201) {
        const rv = Number(JSON.parse(res.body).metadata.resourceVersion);
        ledger.record({ key: `configmaps/${ws.cluster}/soak/${name}`, resource: 'configmaps', cluster: ws.cluster, namespace: 'soak', tier: 'gold', type: 'ADDED', rv });
      } else stats.failures.push(`burst ${name}: ${res.status} after ${attempts} attempts: ${res.body.slice(0, 300)}`);
      return { landed: res.status === 201, attempts };
    }),
  );
  return {
    size,
    refusedFirstTime: results.filter((r) => r.attempts > 1).length,
    maxAttempts: Math.max(...results.map((r) => r.attempts)),
    landed: results.filter((r) => r.landed).length,
    ms: performance.now() - t0,
  };
}

export interface Sample {
  /** Seconds since the load started. */
  t: number;
  rssMiB: number;
  /** kcpt.db + its WAL, MiB. */
  dbMiB: number;
  /** Server CPU (user+sys) so far, seconds. */
  cpuS: number;
  writes: number;
  events: number;
}

function fileMiB(path: string): number {
  try {
    return statSync(path).size / 2 ** 20;
  } catch {
    return 0;
  }
}

/** Reads the server's VmRSS, CPU time and database size from /proc and the root directory. */
export function sampleServer(pid: number, rootDir: string): { rssMiB: number; dbMiB: number; cpuS: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  // utime and stime are fields 14 and 15 of /proc/<pid>/stat, after the parenthesised command name.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const cpuS = (Number(fields[11]) + Number(fields[12])) / 100;
  const db = join(rootDir, 'kcpt.db');
  return { rssMiB: rssKiB / 1024, dbMiB: fileMiB(db) + fileMiB(`${db}-wal`), cpuS };
}
