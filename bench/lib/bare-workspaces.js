// The bare workspace server's routes (bench/raw-server.js with a workspace sample): the least a server must do to
// create and delete kcpt's workspaces on the wire, the floor of bench/workspaces.js's workspace rows. Driven by the
// same client code (bench/lib/workspace-driver.js):
//   POST   /clusters/<path>/apis/tenancy.kcp.io/v1alpha1/workspaces         the bearer token checked against a
//          static one before the body is read, the JSON body parsed and its name checked, the parent path resolved
//          (an in-memory map), the rows of bench/lib/workspace-sample.js's workspace (its 8 objects and 8 log events,
//          kcpt's stored values with the name, cluster name and uids of this one) inserted in ONE IMMEDIATE
//          transaction into a file with kcpt's schema and pragmas (bench/lib/kcpt-schema.js), then 201 with the
//          Workspace as kcpt answers it and, after the commit, its ADDED and Ready MODIFIED lines to the watches
//   GET    …/workspaces?limit=1, …/workspaces?watch=true&resourceVersion=N  a LIST's resourceVersion (one key read;
//          no items: the driver reads only the resourceVersion), a watch of a parent's workspaces (or of every one,
//          `/clusters/*`) replaying what it missed after N from a bounded in-memory log (410 Gone when too old)
//   GET    /clusters/*/apis/core.kcp.io/v1alpha1/logicalclusters[?watch=true…]  the same for LogicalClusters
//   DELETE …/workspaces/<name>                                                 answered at once; then the subtree,
//          children before parents, one transaction per workspace deleting its 8 objects and logging their DELETED
//          events, and after each commit the Workspace's and LogicalCluster's DELETED lines
// Every line a watcher gets in one event-loop turn goes out as one write, as kcpt's watches do.
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { openKcptSchema } from './kcpt-schema.js';

const WS = '/apis/tenancy.kcp.io/v1alpha1/workspaces';
const LC = '/apis/core.kcp.io/v1alpha1/logicalclusters';
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
/** Events a watch can resume from (kcpt keeps its whole log; a bare server keeps enough for the driver). */
const LOG_ENTRIES = 1 << 16;
const ADDED = 0;
const DELETED = 2;

/**
 * `text` cut at every occurrence of the strings `tokens` (longest first): fill(values) puts values[i] where
 * tokens[i] was. The templated rows are filled per workspace this way.
 */
function template(text, tokens) {
  const order = tokens.map((t, i) => [t, i]).sort((a, b) => b[0].length - a[0].length);
  const re = new RegExp(order.map(([t]) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
  const index = new Map(order);
  const parts = [];
  const slots = [];
  let last = 0;
  for (const m of text.matchAll(re)) {
    parts.push(text.slice(last, m.index));
    slots.push(index.get(m[0]));
    last = m.index + m[0].length;
  }
  parts.push(text.slice(last));
  if (slots.length === 0) return () => text;
  return (values) => {
    let out = parts[0];
    for (let i = 0; i < slots.length; i++) out += values[slots[i]] + parts[i + 1];
    return out;
  };
}

const status = (reply, code, reason, message) =>
  reply.code(code).type('application/json').send(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code }));

export function registerWorkspaceFloor(app, { sampleFile, token, dbFile }) {
  const sample = JSON.parse(readFileSync(sampleFile, 'utf8'));
  const { db, insertObject, insertEvent } = openKcptSchema(dbFile);
  const removeObject = db.prepare('DELETE FROM objects WHERE key = ? RETURNING revision, create_revision, value');
  const firstKeyAfter = db.prepare('SELECT key FROM objects WHERE key > ? LIMIT 1').pluck();

  // values[0] the parent's cluster (in the Workspace's key), [1] the cluster name, [2] the name, [3…] the uids
  const tokens = [`root/${sample.name}`, sample.cluster, sample.name, ...sample.uids];
  const rows = sample.objects.map((o) => ({ ...o, key: template(o.key, tokens), value: template(o.value, tokens) }));
  const events = sample.events.map((e) => ({ ...e, key: template(e.key, tokens), value: template(e.value, tokens), prevValue: e.prevValue === null ? null : template(e.prevValue, tokens) }));
  const lcKey = sample.objects.find((o) => o.key.includes('/logicalclusters/')).key;
  const lcEvent = sample.events.findIndex((e) => e.key === lcKey);
  const valuesOf = (parentCluster, cluster, name, uids) => [`${parentCluster}/${name}`, cluster, name, ...uids];
  const wsUid = sample.uids.indexOf(sample.answer.metadata.uid);
  const lcUid = Math.max(0, sample.uids.indexOf(sample.logicalCluster.metadata.uid));
  const urlBase = sample.ready.spec.URL.slice(0, sample.ready.spec.URL.indexOf('/clusters/'));

  // One workspace's rows, one transaction; throws SQLITE_CONSTRAINT_PRIMARYKEY when the name is taken.
  const commitCreate = db.transaction((values, first, ts) => {
    for (const r of rows) insertObject.run(r.key(values), first + r.revision, first + r.createRevision, r.value(values));
    for (const e of events) {
      const rel = (x) => (x < 0 ? 0 : first + x);
      insertEvent.run(first + e.revision, e.key(values), e.type, e.value(values), e.prevValue && e.prevValue(values), rel(e.prevRevision), rel(e.createRevision), ts);
    }
  });
  const commitDelete = db.transaction((values, first, ts) => {
    let rev = first;
    for (const r of rows) {
      const key = r.key(values);
      const old = removeObject.get(key);
      if (old) insertEvent.run(rev++, key, DELETED, old.value, null, old.revision, old.create_revision, ts);
    }
    return rev - 1;
  });

  let revision = 0;
  // path -> {cluster, parentPath, name, values}; root is there from the start
  const workspaces = new Map([['root', { cluster: 'root', children: new Set() }]]);

  // ---- watches: `${kind} ${path}` -> watchers; a bounded log of [revision, kind, path, line()] for resumes ----
  const watchers = new Map();
  const log = [];
  let logStart = 0;
  let dirty = new Set();
  const flush = () => {
    const ws = dirty;
    dirty = new Set();
    for (const w of ws) {
      // A watch the client closed since its lines were queued gets nothing.
      if (!w.res.destroyed && !w.res.writableEnded) w.res.write(w.pending.length === 1 ? w.pending[0] : w.pending.join(''));
      w.pending = [];
    }
  };
  const send = (w, line) => {
    if (dirty.size === 0) setImmediate(flush);
    dirty.add(w);
    w.pending.push(line);
  };
  /** line() builds the line when a watcher (now or resuming) needs it, once. Revisions only grow from call to call. */
  const publish = (rev, kind, path, line) => {
    let text;
    const get = () => (text ??= line());
    log.push([rev, kind, path, get]);
    if (log.length > LOG_ENTRIES) {
      log.splice(0, LOG_ENTRIES >> 2);
      logStart = log[0][0];
    }
    for (const key of [`${kind} ${path}`, `${kind} *`]) {
      const set = watchers.get(key);
      if (set) for (const w of set) send(w, get());
    }
  };
  const watch = (req, reply, kind, path) => {
    const rv = Number(req.query.resourceVersion ?? revision);
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, req.raw.httpVersionMajor >= 2 ? { 'content-type': 'application/json' } : { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    res.flushHeaders?.();
    const w = { res, pending: [] };
    if (rv < logStart) {
      res.end(`{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: ${rv}","reason":"Expired","code":410}}\n`);
      return;
    }
    // The log is in revision order: replay from the first entry after rv (a binary search, not a walk of the log).
    let lo = 0;
    for (let hi = log.length; lo < hi; ) {
      const mid = (lo + hi) >> 1;
      if (log[mid][0] <= rv) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < log.length; i++) {
      const [, k, p, line] = log[i];
      if (k === kind && (path === '*' || p === path)) send(w, line());
    }
    const key = `${kind} ${path}`;
    if (!watchers.has(key)) watchers.set(key, new Set());
    watchers.get(key).add(w);
    req.raw.on('close', () => watchers.get(key)?.delete(w));
  };
  const list = (reply, kind, prefix) => {
    // One key read, as a one-item LIST costs at least; the driver reads only the resourceVersion.
    firstKeyAfter.get(prefix);
    reply.type('application/json').send(`{"kind":"${kind}List","apiVersion":"${kind === 'Workspace' ? 'tenancy' : 'core'}.kcp.io/v1alpha1","metadata":{"resourceVersion":"${revision}"},"items":[]}`);
  };

  // Nothing is read before the token is checked (onRequest runs before the body is parsed).
  const expected = `Bearer ${token}`;
  app.addHook('onRequest', (req, reply, done) => {
    if (req.url.startsWith('/clusters/') && req.headers.authorization !== expected) return status(reply, 401, 'Unauthorized', 'Unauthorized');
    done();
  });

  app.get(`/clusters/:path${WS}`, (req, reply) => {
    const { path } = req.params;
    if (path !== '*' && !workspaces.has(path)) return status(reply, 404, 'NotFound', `workspace ${path} not found`);
    if (req.query.watch === 'true' || req.query.watch === '1') return watch(req, reply, 'ws', path);
    return list(reply, 'Workspace', '/registry/tenancy.kcp.io/workspaces/');
  });
  app.get(`/clusters/:path${LC}`, (req, reply) => {
    if (req.params.path !== '*') return status(reply, 404, 'NotFound', 'the bare server serves LogicalClusters only across all clusters');
    if (req.query.watch === 'true' || req.query.watch === '1') return watch(req, reply, 'lc', '*');
    return list(reply, 'LogicalCluster', '/registry/core.kcp.io/logicalclusters/');
  });

  const wsObject = (base, ws, path, rv, extra) => ({
    ...base,
    metadata: { ...base.metadata, name: ws.name, uid: ws.values[3 + wsUid], creationTimestamp: ws.created, resourceVersion: String(rv), ...extra },
    ...(base.spec.cluster ? { spec: { ...base.spec, URL: `${urlBase}/clusters/${path}`, cluster: ws.cluster } } : {}),
  });
  const lcObject = (ws, path, rv, extra) => {
    const lc = sample.logicalCluster;
    return {
      ...lc,
      metadata: { ...lc.metadata, uid: ws.values[3 + lcUid], creationTimestamp: ws.created, resourceVersion: String(rv), annotations: { ...lc.metadata.annotations, 'kcp.io/cluster': ws.cluster }, ...extra },
      spec: { ...lc.spec, owner: { ...lc.spec.owner, name: ws.name, uid: ws.values[3 + wsUid], cluster: ws.parentCluster } },
    };
  };

  app.post(`/clusters/:path${WS}`, (req, reply) => {
    const parentPath = req.params.path;
    const parent = workspaces.get(parentPath);
    if (!parent) return status(reply, 404, 'NotFound', `workspace ${parentPath} not found`);
    const body = req.body;
    const name = body?.metadata?.name;
    if (body?.kind !== 'Workspace' || typeof name !== 'string' || !DNS_LABEL.test(name)) {
      return status(reply, 422, 'Invalid', 'a Workspace with metadata.name a DNS label is required');
    }
    const cluster = (Date.now().toString(36) + randomBytes(8).toString('hex')).slice(0, sample.cluster.length);
    const uids = sample.uids.map(() => randomUUID());
    const values = valuesOf(parent.cluster, cluster, name, uids);
    const first = revision + 1;
    const ts = Date.now();
    try {
      commitCreate.immediate(values, first, ts);
    } catch (err) {
      if (err.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return status(reply, 409, 'AlreadyExists', `workspaces.tenancy.kcp.io "${name}" already exists`);
      throw err;
    }
    revision = first + events.length - 1;
    const path = `${parentPath}:${name}`;
    const ws = { name, cluster, parentCluster: parent.cluster, parentPath, values, created: new Date(ts).toISOString().replace(/\.\d+Z$/, 'Z'), children: new Set() };
    workspaces.set(path, ws);
    parent.children.add(path);
    const answer = JSON.stringify(wsObject(sample.answer, ws, path, first));
    publish(first, 'ws', parentPath, () => `{"type":"ADDED","object":${answer}}\n`);
    const ready = JSON.stringify(wsObject(sample.ready, ws, path, first + 1));
    publish(first + 1, 'ws', parentPath, () => `{"type":"MODIFIED","object":${ready}}\n`);
    publish(first + lcEvent, 'lc', '*', () => `{"type":"ADDED","object":${JSON.stringify(lcObject(ws, path, first))}}\n`);
    reply.code(201).type('application/json').send(answer);
  });

  app.delete(`/clusters/:path${WS}/:name`, async (req, reply) => {
    const path = `${req.params.path}:${req.params.name}`;
    const top = workspaces.get(path);
    if (!top || top.deleting) return status(reply, 404, 'NotFound', `workspaces.tenancy.kcp.io "${req.params.name}" not found`);
    top.deleting = true;
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    reply.code(202).type('application/json').send(JSON.stringify(wsObject(sample.ready, top, path, revision, { deletionTimestamp: now })));
    // Children before parents: the subtree in breadth-first order, deleted from its end.
    const order = [path];
    for (let i = 0; i < order.length; i++) order.push(...workspaces.get(order[i]).children);
    for (let i = order.length - 1; i >= 0; i--) {
      const p = order[i];
      const ws = workspaces.get(p);
      const first = revision + 1;
      const rev = (revision = commitDelete.immediate(ws.values, first, Date.now()));
      workspaces.delete(p);
      workspaces.get(ws.parentPath)?.children.delete(p);
      publish(rev, 'ws', ws.parentPath, () => `{"type":"DELETED","object":${JSON.stringify(wsObject(sample.ready, ws, p, rev, { deletionTimestamp: now }))}}\n`);
      publish(rev, 'lc', '*', () => `{"type":"DELETED","object":${JSON.stringify(lcObject(ws, p, rev, { deletionTimestamp: now }))}}\n`);
      // Let requests and watch writes in between workspaces, as a server must not stall for a whole tree.
      if (i % 16 === 0) await nextTurn();
    }
  });

  return { close: () => db.close() };
}
