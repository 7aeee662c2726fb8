// Creating many workspaces the way a user would, and seeing them turn Ready: POST
// /clusters/<parent path>/apis/tenancy.kcp.io/v1alpha1/workspaces, and a watch on the workspaces of each parent
// (opened, before the parent's first child is posted, from the resourceVersion of a one-item LIST of the parent's
// workspaces, so nothing is missed). A closed loop keeps `concurrency` workspaces in flight (posted, not yet seen
// Ready); a child is posted only once its parent is Ready (its path resolves from then on).
import http2 from 'node:http2';
import https from 'node:https';
import tls from 'node:tls';
import { client } from './kcpt.js';
import { sleep } from './util.js';

/**
 * One TLS context for every watch connection, as a real client keeps one TLS configuration (client-go's transport
 * cache, kcpt/testing's agents). Without it Node builds a context per new connection (~1-1.5 ms of the bench's CPU
 * each, on the cores the server shares): a tree opens one watch per parent, a flat run one in all.
 */
let sharedSecureContext;
const secureContext = () => (sharedSecureContext ??= tls.createSecureContext());

export const WS_API = '/apis/tenancy.kcp.io/v1alpha1/workspaces';

/**
 * A watch on one API collection. onEvent(event, arrivalMs) gets every parsed event whose line `wanted(line)` accepts
 * (default: all; skipping the JSON.parse of uninteresting events keeps the bench's CPU off the server's cores).
 * onLine(line) sees every line. Returns {close()}; errors before close() go to onError.
 */
export function openWatch({ url, token, agent, session }, path, onEvent, onError, { wanted, onLine } = {}) {
  if (session) return openHttp2Watch(session, token, path, onEvent, onError, { wanted, onLine });
  const u = new URL(url);
  let closed = false;
  const req = https.request(
    {
      host: u.hostname,
      port: u.port,
      method: 'GET',
      path,
      agent,
      rejectUnauthorized: false,
      secureContext: secureContext(),
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
    },
    (res) => {
      res.setEncoding('utf8');
      if (res.statusCode !== 200) {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => !closed && onError(new Error(`watch ${path}: HTTP ${res.statusCode} ${body.slice(0, 300)}`)));
        return;
      }
      res.on('data', eventLines(path, () => closed, onEvent, onError, { wanted, onLine }));
      res.on('end', () => !closed && onError(new Error(`watch ${path} ended by the server`)));
      res.on('error', (err) => !closed && onError(err));
    },
  );
  req.on('error', (err) => !closed && onError(err));
  req.end();
  return {
    close() {
      closed = true;
      req.destroy();
    },
  };
}

/** A 'data' listener splitting a watch's stream into events (see openWatch). */
function eventLines(path, isClosed, onEvent, onError, { wanted, onLine }) {
  let buf = '';
  return (chunk) => {
    if (isClosed()) return;
    const now = performance.now();
    buf += chunk;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (!line.trim()) continue;
      onLine?.(line);
      if (line.startsWith('{"type":"ERROR"')) return onError(new Error(`watch ${path}: ${line.slice(0, 300)}`));
      if (wanted && !wanted(line)) continue;
      onEvent(JSON.parse(line), now);
    }
  };
}

/** openWatch as a stream of an HTTP/2 session: no connection (and no TLS handshake) of its own. */
function openHttp2Watch(session, token, path, onEvent, onError, options) {
  let closed = false;
  const stream = session.request({ ':method': 'GET', ':path': path, authorization: `Bearer ${token}`, accept: 'application/json' });
  stream.setEncoding('utf8');
  stream.on('response', (headers) => {
    const status = headers[':status'];
    if (status === 200) {
      stream.on('data', eventLines(path, () => closed, onEvent, onError, options));
      stream.on('end', () => !closed && onError(new Error(`watch ${path} ended by the server`)));
      return;
    }
    let body = '';
    stream.on('data', (d) => (body += d));
    stream.on('end', () => !closed && onError(new Error(`watch ${path}: HTTP ${status} ${body.slice(0, 300)}`)));
  });
  stream.on('error', (err) => !closed && onError(err));
  stream.end();
  return {
    close() {
      closed = true;
      stream.close(http2.constants.NGHTTP2_CANCEL);
    },
  };
}

/**
 * A watch that resumes where it was when the server ends it (kcpt drops a watcher that falls 16 MiB behind, as
 * informers expect: they re-watch from their last resourceVersion). `path` has no resourceVersion; ERRORs (410
 * Gone) are final.
 */
export function resumingWatch(ctx, path, rv, onEvent, onError, options = {}) {
  let current;
  let stopped = false;
  let resumes = 0;
  let lastLine;
  const open = () => {
    current = openWatch(
      ctx,
      `${path}${path.includes('?') ? '&' : '?'}watch=true&resourceVersion=${rv}`,
      onEvent,
      (err) => {
        if (stopped) return;
        // The object's resourceVersion comes first in its metadata (kcpt splices it there).
        if (lastLine) rv = /"resourceVersion":"(\d+)"/.exec(lastLine)?.[1] ?? rv;
        if (/ended by the server/.test(err.message) && resumes++ < 100) return setImmediate(open);
        onError(err);
      },
      { ...options, onLine: (line) => (lastLine = line) },
    );
  };
  open();
  return {
    close() {
      stopped = true;
      current.close();
    },
    get resumes() {
      return resumes;
    },
  };
}

/** Flat: every workspace directly under the base parent. */
export function flatPlan(n) {
  return { n, parentOf: () => -1, childrenOf: (p) => (p === -1 ? n : 0) };
}

/** A tree of fan-out f under the base parent, breadth first: node j's children are f(j+1) … f(j+1)+f-1. */
export function treePlan(n, f) {
  return {
    n,
    parentOf: (j) => (j < f ? -1 : Math.floor(j / f) - 1),
    childrenOf: (p) => Math.max(0, Math.min(n, f * (p + 2)) - f * (p + 1)),
  };
}

/** One top workspace (node 0) with a tree of fan-out f below it: node j ≥ 1 hangs under node ⌊(j-1)/f⌋. */
export function singleTopPlan(n, f) {
  return {
    n,
    parentOf: (j) => (j === 0 ? -1 : Math.floor((j - 1) / f)),
    childrenOf: (p) => (p === -1 ? 1 : Math.max(0, Math.min(n, f * p + f + 1) - (f * p + 1))),
  };
}

/**
 * Creates plan.n workspaces named `${prefix}${j}` under basePath (of `type` when given, else the parent's default
 * child type) and waits until each is seen Ready.
 * Ready is seen by one watch per parent (a LIST for its resourceVersion, then a watch on a connection of its own, as
 * a client-go client does over HTTP/1.1), or with `wildcardWatch` by a single watch of every workspace
 * (`/clusters/*`, a privileged client's view; one connection, as client-go multiplexes its watches over HTTP/2).
 * Returns {n, seconds, rate, latencies (ms, create sent → Ready event arrived), paths}.
 */
export async function createWorkspaces({ server, c, agent, basePath, prefix, plan, concurrency, stallMs = 120_000, onProgress, type, wildcardWatch = false }) {
  const { n } = plan;
  const sentAt = new Float64Array(n);
  const readyAt = new Float64Array(n);
  const paths = new Array(n);
  const waiting = new Map();
  const watches = new Map();
  const childrenLeft = new Map();
  let failure;
  let readyCount = 0;
  let lastProgress = performance.now();
  // Over HTTP/2 (c.session) every watch is a stream of the client's one connection.
  const watchCtx = { url: server.url, token: server.token, agent, session: c.session };
  const fail = (err) => {
    failure ??= err;
    for (const w of waiting.values()) w.resolve();
  };

  const pathOf = (p) => (p === -1 ? basePath : paths[p]);
  const nameIndex = (name) => {
    if (!name.startsWith(prefix)) return -1;
    const j = Number(name.slice(prefix.length));
    return Number.isInteger(j) && j >= 0 && j < n ? j : -1;
  };
  // parent -> promise of its watch being open; awaited before any child of it is posted
  const opening = new Map();
  const ensureWatch = (p) => {
    if (wildcardWatch) p = WILDCARD;
    let ready = opening.get(p);
    if (!ready) opening.set(p, (ready = openParentWatch(p)));
    return ready;
  };
  const markReady = (j, now) => {
    readyAt[j] = now;
    readyCount++;
    lastProgress = now;
    onProgress?.(readyCount);
    waiting.get(j)?.resolve();
    waiting.delete(j);
  };
  const openParentWatch = async (p) => {
    if (p === WILDCARD) return openWildcardWatch();
    const rv = await collectionRv(c, `/clusters/${pathOf(p)}${WS_API}`);
    childrenLeft.set(p, plan.childrenOf(p));
    const onEvent = (ev, now) => {
      const obj = ev.object;
      if ((ev.type !== 'ADDED' && ev.type !== 'MODIFIED') || obj?.status?.phase !== 'Ready') return;
      const j = nameIndex(obj.metadata.name);
      if (j < 0 || readyAt[j] || plan.parentOf(j) !== p) return;
      markReady(j, now);
      const left = childrenLeft.get(p) - 1;
      childrenLeft.set(p, left);
      if (left === 0) {
        watches.get(p)?.close();
        watches.delete(p);
        opening.delete(p);
      }
    };
    watches.set(
      p,
      openWatch(watchCtx, `/clusters/${pathOf(p)}${WS_API}?watch=true&resourceVersion=${rv}`, onEvent, fail, {
        wanted: (line) => line.includes('"phase":"Ready"'),
      }),
    );
  };
  // Every workspace of this run in one watch: an event is ours when its name is and its URL ends in the path posted.
  const openWildcardWatch = async () => {
    // Wildcard requests are for the shard's privileged clients (kcp-admin is refused, as in kcp): shard-admin's token.
    const token = server.shardToken;
    const privileged = client(server.url, { token, maxSockets: 1, http2: Boolean(c.session) });
    const rv = await collectionRv(privileged, `/clusters/*${WS_API}`).finally(() => privileged.close());
    const onEvent = (ev, now) => {
      const obj = ev.object;
      if ((ev.type !== 'ADDED' && ev.type !== 'MODIFIED') || obj?.status?.phase !== 'Ready') return;
      const j = nameIndex(obj.metadata.name);
      if (j < 0 || readyAt[j] || !paths[j] || !obj.spec?.URL?.endsWith(`/clusters/${paths[j]}`)) return;
      markReady(j, now);
    };
    watches.set(
      WILDCARD,
      openWatch({ ...watchCtx, token }, `/clusters/*${WS_API}?watch=true&resourceVersion=${rv}`, onEvent, fail, {
        wanted: (line) => line.includes('"phase":"Ready"'),
      }),
    );
  };
  const untilReady = (j) => {
    if (readyAt[j] || failure) return undefined;
    let w = waiting.get(j);
    if (!w) {
      let resolve;
      const promise = new Promise((r) => (resolve = r));
      waiting.set(j, (w = { promise, resolve }));
    }
    return w.promise;
  };

  let next = 0;
  const worker = () => work().catch(fail);
  const work = async () => {
    while (next < n && !failure) {
      const j = next++;
      const p = plan.parentOf(j);
      if (p >= 0) await untilReady(p);
      if (failure) return;
      await ensureWatch(p);
      if (failure) return;
      const name = `${prefix}${j}`;
      paths[j] = `${pathOf(p)}:${name}`;
      sentAt[j] = performance.now();
      const res = await c.request('POST', `/clusters/${pathOf(p)}${WS_API}`, {
        apiVersion: 'tenancy.kcp.io/v1alpha1',
        kind: 'Workspace',
        metadata: { name },
        ...(type ? { spec: { type } } : {}),
      });
      if (res.status !== 201) return fail(new Error(`create workspace ${paths[j]}: HTTP ${res.status} ${res.body.toString().slice(0, 300)}`));
      await untilReady(j);
    }
  };
  const stall = setInterval(() => {
    if (performance.now() - lastProgress > stallMs) fail(new Error(`no workspace turned Ready for ${stallMs / 1000} s (${readyCount}/${n} Ready)`));
  }, 1000);
  const t0 = performance.now();
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, n)) }, worker));
  } finally {
    clearInterval(stall);
    for (const w of watches.values()) w.close();
  }
  if (failure) throw failure;
  let end = t0;
  for (const r of readyAt) if (r > end) end = r;
  const latencies = Array.from(readyAt, (r, j) => r - sentAt[j]);
  return { n, seconds: (end - t0) / 1000, rate: n / ((end - t0) / 1000), latencies, paths };
}

/** The key of the one watch createWorkspaces opens with wildcardWatch (parents are indices ≥ -1). */
const WILDCARD = -2;

/** The resourceVersion of a collection right now (a one-item LIST). */
export async function collectionRv(c, path) {
  const list = await c.json('GET', `${path}?limit=1`);
  return list.metadata.resourceVersion;
}

/** Total items of a collection (one-item LIST + remainingItemCount). */
export async function collectionCount(c, path) {
  const list = await c.json('GET', `${path}?limit=1`);
  return list.items.length + (list.metadata.remainingItemCount ?? 0);
}

/** Waits until fn() is truthy (polling), or throws after timeoutMs. */
export async function waitFor(fn, { timeoutMs = 60_000, everyMs = 200, what = 'condition' } = {}) {
  const t0 = performance.now();
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (performance.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}
