#!/usr/bin/env node
// CPU of the watch fan-out's own JavaScript: --watchers watches served by each tree's streamWatch (the HTTP handler's
// entry: predicate, serveWatch, the negotiated writer, WatchResponse) on one SQLite store, each response a real
// node ServerResponse whose socket is an in-memory stream that takes every write at once (no TLS, no syscalls: those
// cost both trees the same). A write is one GenericStore.create of the bench's ~1 KB ConfigMap, then one event-loop
// turn for the streams' flush. This source tree against another's in ONE process, alternating every --batch writes
// (bench/lib/pipeline-pairs.js), so both see the same moment of a shared box's load. Run it through tsx:
//
//   npx tsx bench/watch-pipeline-pairs.js --other /path/to/other/checkout [--watchers 1000] [--pairs 20] [--batch 10]
//        [--selector app=kcpt-bench]   every watcher with this label selector (kube's per-watcher filtering)
//        [--selectors N]               ... and N different selectors among the watchers (app=kcpt-bench,x!=0 … x!=N-1)
//
// Prints µs per write of each side (divide by --watchers for a delivery), the median per-pair ratio (this / other)
// and in how many pairs this side was cheaper; also checks every watcher of both sides got every event, same bytes.
import { Duplex } from 'node:stream';
import { ServerResponse } from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { comparePairs, loadTree } from './lib/pipeline-pairs.js';
import { repoDir } from './lib/util.js';

const { values } = parseArgs({
  options: {
    other: { type: 'string' },
    pairs: { type: 'string' },
    batch: { type: 'string' },
    watchers: { type: 'string' },
    selector: { type: 'string' },
    selectors: { type: 'string' },
  },
});
if (!values.other) throw new Error('--other DIR (a checkout to compare with) is required');
const pairs = Number(values.pairs ?? 20);
const batch = Number(values.batch ?? 10);
const watchers = Number(values.watchers ?? 1000);
const selectorCount = Number(values.selectors ?? 1);
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** A connection that takes every write at once and counts the bytes (what a fast reader's socket looks like to JS). */
function memorySocket() {
  const socket = new Duplex({
    write(chunk, _encoding, callback) {
      socket.bytesTaken += chunk.length;
      callback();
    },
    read() {},
  });
  socket.bytesTaken = 0;
  return socket;
}

async function side(dir) {
  const tree = await loadTree(dir, ['registry/generic-store.ts', 'builtin/core/resources.ts', 'admission/write-authority.ts', 'endpoints/watch-handler.ts']);
  const [{ GenericStore }, { configMaps, namespaces }, { WriteAuthority }, { streamWatch }] = tree.modules;
  const generic = new GenericStore(tree.store, namespaces, { authority: new WriteAuthority() });
  generic.create({ rt: namespaces, cluster: 'c1', namespace: '' }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } });
  const svc = { store: tree.store, watches: new Set(), minRequestTimeoutSeconds: 1800 };
  const rv = String(tree.store.currentRevision());
  const sockets = [];
  const open = (i) => {
    const socket = memorySocket();
    const res = new ServerResponse({ method: 'GET', httpVersionMajor: 1, httpVersionMinor: 1, headers: {} });
    res.assignSocket(socket);
    const reply = { hijack() {}, raw: res };
    const labelSelector = values.selector ? (i % selectorCount === 0 ? values.selector : `${values.selector},x!=${i % selectorCount}`) : undefined;
    const req = { cluster: 'c1', accept: 'application/json', query: new URLSearchParams() };
    const options = { watch: true, allowWatchBookmarks: false, resourceVersion: rv, labelSelector };
    void streamWatch(svc, req, configMaps, { namespace: 'bench' }, reply, options);
    sockets.push(socket);
  };
  const ctx = { rt: configMaps, cluster: 'c1', namespace: 'bench' };
  let n = 0;
  const write = async () => {
    generic.create(
      ctx,
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `cm-${n++}`, namespace: 'bench', labels: { app: 'kcpt-bench', tier: 'backend' } },
        data: { 'config.yaml': 'x'.repeat(560), ts: String(1_700_000_000_000 + n) },
      },
      { ownsInput: true },
    );
    await turn();
  };
  return {
    open,
    write,
    writes: () => n,
    bytes: () => sockets.map((s) => s.bytesTaken),
    close: () => {
      for (const end of [...svc.watches]) end();
      tree.close();
    },
  };
}

const self = await side(repoDir);
const other = await side(path.resolve(values.other));
// The two sides' watchers opened in turn: objects made first were measurably dearer to write through later (1.6x in
// an A/A run when one side's thousand came first).
for (let i = 0; i < watchers; i++) (self.open(i), other.open(i));
await turn();
try {
  await comparePairs({ self, other, run: (s) => s.write(), pairs, batch, label: 'Write' });
  // Both trees must have delivered every write to every watcher, as the same bytes (the uid and timestamps aside,
  // which are the same length).
  const [a, b] = [self.bytes(), other.bytes()];
  const spread = (xs) => `${Math.min(...xs)}–${Math.max(...xs)}`;
  console.log(JSON.stringify({ writes: [self.writes(), other.writes()], bytesPerWatcher: { this: spread(a), other: spread(b) } }));
} finally {
  self.close();
  other.close();
}
