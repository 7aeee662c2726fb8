// The raw HTTPS floor (baseline B.2 in docs/benchmarks.md, but over TLS with kcpt's own serving certificate):
//   GET  /obj    -> the same ~1 KB ConfigMap JSON kcpt returns (fastify serialises the object, like B.2)
//   GET  /watch  -> a chunked stream of JSON lines, like a kube watch (one write per watcher per event-loop turn)
//   POST /write  -> inserts the body into a better-sqlite3 WAL table (synchronous=NORMAL, one txn per write) and
//                   queues {"type":"ADDED","object":<body>} for every open /watch stream (with no watcher open
//                   this is the "HTTPS POST + SQLite insert" floor of the CREATE benchmark)
//   POST /fill?n=1000&pad=P -> fills namespace bench-list with n ~1 KB rows (B.1 values); with a JSON body
//                   {items: [...]} (kcpt's own LIST answer), stores exactly those items instead: the same rows
//   GET  /list   -> range scan of namespace bench-list (.pluck() of the stored JSON) spliced into a ConfigMapList,
//                   no parse/stringify: the "HTTPS + splice the stored JSON" floor of the LIST benchmark
// It serves HTTP/2 and HTTP/1.1 on one TLS port (ALPN), configured as kcpt's listener is, so either protocol's
// figure has a floor of its own.
// With a workspace sample and a token (bench/lib/workspace-sample.js), it also serves the bare workspace routes of
// bench/lib/bare-workspaces.js (the floor of the workspace rows), in a second database file with kcpt's schema.
// Usage: node bench/raw-server.js <certDir> <objJsonFile> [port [workspaceSampleFile token]]. Prints
// "listening <port>" when ready.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import Fastify from 'fastify';
import { rawRowValue } from './lib/payload.js';
import { openRawTable } from './lib/raw-table.js';
import { registerWorkspaceFloor } from './lib/bare-workspaces.js';

const [certDir, objFile, portArg, workspaceSample, workspaceToken] = process.argv.slice(2);
const obj = JSON.parse(readFileSync(objFile, 'utf8'));
const app = Fastify({
  logger: false,
  bodyLimit: 3 * 1024 * 1024,
  http2: true,
  // Nagle off on every connection, as kcpt's listener has it (src/engine/server/http-app.ts's httpsOptions).
  https: { key: readFileSync(path.join(certDir, 'apiserver.key')), cert: readFileSync(path.join(certDir, 'apiserver.crt')), allowHTTP1: true, noDelay: true },
});

const dbDir = mkdtempSync(path.join(os.tmpdir(), 'kcpt-bench-raw-'));
const { db, upsert } = openRawTable(path.join(dbDir, 'raw.db'));
let revision = 0;
const watchers = new Set();
const workspaceFloor = workspaceSample && registerWorkspaceFloor(app, { sampleFile: workspaceSample, token: workspaceToken, dbFile: path.join(dbDir, 'workspaces.db') });

app.get('/obj', async () => obj);

const scan = db.prepare('SELECT value FROM objects WHERE cluster = ? AND resource = ? AND namespace = ? ORDER BY name').pluck();
app.post('/fill', async (req) => {
  const n = Number(req.query.n ?? 1000);
  const pad = Number(req.query.pad ?? 700);
  const given = req.body?.items;
  db.transaction(() => {
    if (given) {
      for (const item of given) {
        revision++;
        upsert.run('root', 'configmaps', 'bench-list', item.metadata.name, revision, JSON.stringify(item));
      }
      return;
    }
    for (let i = 0; i < n; i++) {
      revision++;
      const value = rawRowValue(i, pad).replace('"namespace":"default"', '"namespace":"bench-list"');
      upsert.run('root', 'configmaps', 'bench-list', `cm-${String(i).padStart(5, '0')}`, revision, value);
    }
  })();
  return { filled: given ? given.length : n };
});

app.get('/list', (req, reply) => {
  const items = scan.all('root', 'configmaps', 'bench-list');
  reply
    .type('application/json')
    .send(`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"${revision}"},"items":[${items.join(',')}]}`);
});

app.get('/watch', (req, reply) => {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, req.raw.httpVersionMajor >= 2 ? { 'content-type': 'application/json' } : { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
  res.flushHeaders?.();
  watchers.add(res);
  req.raw.on('close', () => watchers.delete(res));
});

// The lines of one event-loop turn go to every watcher as one write (one TLS record), as kcpt's watch streams do:
// the floor is a fan-out done the cheap way, not one write per event per socket.
let pendingLines = [];
function queueLine(line) {
  if (pendingLines.length === 0) setImmediate(flushLines);
  pendingLines.push(line);
}
function flushLines() {
  const chunk = pendingLines.length === 1 ? pendingLines[0] : Buffer.concat(pendingLines);
  pendingLines = [];
  for (const w of watchers) w.write(chunk);
}

app.post('/write', async (req, reply) => {
  const o = req.body;
  revision++;
  o.metadata = { ...o.metadata, resourceVersion: String(revision) };
  const value = JSON.stringify(o);
  upsert.run('root', 'configmaps', o.metadata.namespace ?? 'default', o.metadata.name, revision, value);
  queueLine(Buffer.from(`{"type":"ADDED","object":${value}}\n`));
  reply.code(201);
  return o;
});

await app.listen({ port: Number(portArg ?? 0), host: '127.0.0.1' });
process.stdout.write(`listening ${app.server.address().port}\n`);

const shutdown = async () => {
  for (const w of watchers) w.end();
  await app.close();
  db.close();
  workspaceFloor?.close();
  rmSync(dbDir, { recursive: true, force: true });
  process.exit(0);
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
