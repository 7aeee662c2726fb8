// etcd vs SQLite: the same API loads against a kcpt on its default SQLite file and a kcpt on a local single-member
// etcd (`--etcd-servers`), side by side: GET one ConfigMap, LIST 500 of them, CREATE (sequential and 8 connections)
// and WATCH delivery (watchers on a namespace while a writer creates and patches at a steady rate).
// GET, LIST and WATCH are served from the etcd store's in-process mirror, so they should match SQLite; a write waits
// for etcd's acknowledgement (a gRPC round trip from the store's worker thread and etcd's WAL fsync).
// CPU per request counts the kcpt process (its etcd worker thread included) plus, on the etcd side, etcd itself:
// on a shared 2-core box that is far steadier than req/s.
import { startLocalEtcd } from '../dist/src/engine/storage/etcd-launcher.js';
import { client, ensureNamespace, parallel, startKcpt, watchCapArgs } from './lib/kcpt.js';
import { runNodeLoad, runWrk, wrkPostScript } from './lib/load.js';
import { configMap } from './lib/payload.js';
import { log, median, procCpuMs, sleep, tempDir } from './lib/util.js';
import { startWatchers, writeSteadily, writer } from './watch.js';

const NS = 'bench-storage';
const CM_PATH = `/clusters/root/api/v1/namespaces/${NS}/configmaps`;
const LIST_NS = 'bench-storage-list';
const LIST_PATH = `/clusters/root/api/v1/namespaces/${LIST_NS}/configmaps`;
const LIST_OBJECTS = 500;
const WATCH_NS = 'bench-storage-watch';
const WATCH_PATH = `/clusters/root/api/v1/namespaces/${WATCH_NS}/configmaps`;
const WATCH_UPDATED = 20;

/** Runs a load and adds CPU µs per request: all `pids` together, and the second one (etcd) alone. */
async function measure(pids, fn) {
  const before = pids.map(procCpuMs);
  const result = await fn();
  const used = pids.map((pid, i) => ((procCpuMs(pid) - before[i]) * 1000) / result.requests);
  return { ...result, cpuUsPerReq: used.reduce((a, b) => a + b, 0), etcdCpuUsPerReq: used[1] };
}

/** 100 watchers on one namespace while a writer alternates creates and merge patches; latency and CPU per write. */
async function watchRun(ctx, server, pids, runIdx) {
  const rate = ctx.watch.rates[0];
  const { seconds, watchers } = ctx.watch;
  const c = client(server.url, { token: server.token });
  const list = await c.json('GET', WATCH_PATH);
  c.close();
  const w = writer(server.url, server.token);
  const clients = startWatchers({
    url: server.url,
    path: `${WATCH_PATH}?watch=true&resourceVersion=${list.metadata.resourceVersion}`,
    token: server.token,
    watchers,
    timeoutMs: (seconds + 60) * 1000,
  });
  try {
    await clients.ready();
    await sleep(200);
    const before = pids.map(procCpuMs);
    const wr = await writeSteadily({
      rate,
      seconds,
      write: (i, ts) =>
        i % 2 === 0
          ? w.send('POST', WATCH_PATH, configMap(`w-${runIdx}-${i}`, WATCH_NS, ctx.calibration.pad, { ts: String(ts) }))
          : w.send('PATCH', `${WATCH_PATH}/upd-${i % WATCH_UPDATED}`, { data: { ts: String(ts) } }, 'application/merge-patch+json'),
    });
    const res = await clients.stop(wr.n);
    const used = pids.map((pid, i) => ((procCpuMs(pid) - before[i]) * 1000) / wr.n);
    return { ...res, requests: wr.n, non2xx: wr.failures, errors: 0, cpuUsPerReq: used.reduce((a, b) => a + b, 0), etcdCpuUsPerReq: used[1] };
  } finally {
    w.close();
  }
}

/** GET, LIST, CREATE and WATCH figures for one running server; `pids` are the processes whose CPU the storage costs. */
async function loads(ctx, server, pids, label) {
  const c = client(server.url, { token: server.token });
  try {
    for (const ns of [NS, LIST_NS, WATCH_NS]) await ensureNamespace(c, ns);
    const headers = { Authorization: `Bearer ${server.token}`, Accept: 'application/json' };
    const template = JSON.stringify(configMap('%s', NS, ctx.calibration.pad));
    await c.request('POST', CM_PATH, JSON.parse(template.replace('%s', 'target')));
    const names = Array.from({ length: LIST_OBJECTS }, (_, i) => `list-${String(i).padStart(4, '0')}`);
    await parallel(names, 8, (name) => c.request('POST', LIST_PATH, configMap(name, LIST_NS, ctx.calibration.pad)));
    const updated = Array.from({ length: WATCH_UPDATED }, (_, i) => `upd-${i}`);
    await parallel(updated, 8, (name) => c.request('POST', WATCH_PATH, configMap(name, WATCH_NS, ctx.calibration.pad, { ts: '0' })));
    const read = (path) =>
      ctx.useWrk
        ? runWrk({ url: `${server.url}${path}`, connections: 8, durationS: ctx.durationS, headers })
        : runNodeLoad({ url: `${server.url}${path}`, connections: 8, durationS: ctx.durationS, headers });
    const post = (connections, prefix) =>
      ctx.useWrk
        ? runWrk({
            url: `${server.url}${CM_PATH}`,
            connections,
            durationS: ctx.durationS,
            script: wrkPostScript({ path: CM_PATH, bodyTemplate: template, namePrefix: prefix, headers }),
          })
        : runNodeLoad({
            url: `${server.url}${CM_PATH}`,
            connections,
            durationS: ctx.durationS,
            headers,
            makeRequest: (i) => ({ method: 'POST', path: CM_PATH, body: template.replace('%s', `${prefix}${i}`) }),
          });
    await read(`${CM_PATH}/target`);
    await post(8, 'warm-');
    const runs = { get: [], list: [], seq: [], conc: [], watch: [] };
    for (let i = 0; i < ctx.runs; i++) {
      runs.get.push(await measure(pids, () => read(`${CM_PATH}/target`)));
      runs.list.push(await measure(pids, () => read(LIST_PATH)));
      runs.seq.push(await measure(pids, () => post(1, `seq-${i}-`)));
      runs.conc.push(await measure(pids, () => post(8, `c8-${i}-`)));
      runs.watch.push(await watchRun(ctx, server, pids, i));
      const bad = [...runs.seq, ...runs.conc, ...runs.watch].reduce((a, x) => a + x.non2xx + x.errors, 0);
      const last = (key) => `${runs[key].at(-1).rps.toFixed(0)}/s (${runs[key].at(-1).cpuUsPerReq.toFixed(0)} us CPU)`;
      const watch = runs.watch.at(-1);
      log(
        `  ${label} run ${i + 1}: GET x8 ${last('get')}, LIST ${LIST_OBJECTS} x8 ${last('list')}, POST x1 ${last('seq')}, x8 ${last('conc')}, ` +
          `WATCH p50 ${watch.p50.toFixed(1)} / p99 ${watch.p99.toFixed(1)} ms (${watch.events}/${watch.expected} events, ${watch.cpuUsPerReq.toFixed(0)} us CPU/write)` +
          `${bad ? `, ${bad} failed writes` : ''}`,
      );
    }
    return runs;
  } finally {
    c.close();
  }
}

export async function run(ctx) {
  const sqliteServer = await startKcpt({ rootDir: tempDir(), extraArgs: watchCapArgs(ctx.watch.watchers) });
  let sqlite;
  try {
    sqlite = await loads(ctx, sqliteServer, [sqliteServer.child.pid], 'SQLite');
  } finally {
    await sqliteServer.stop();
  }
  const etcd = await startLocalEtcd();
  let onEtcd;
  try {
    const etcdServer = await startKcpt({ rootDir: tempDir(), extraArgs: ['--etcd-servers', etcd.endpoint, ...watchCapArgs(ctx.watch.watchers)] });
    try {
      onEtcd = await loads(ctx, etcdServer, [etcdServer.child.pid, etcd.pid], 'etcd');
    } finally {
      await etcdServer.stop();
    }
  } finally {
    await etcd.stop();
  }
  const cpuNote = (key) => `CPU/req: etcd side ${Math.round(median(onEtcd[key].map((x) => x.cpuUsPerReq)))} us (etcd itself ${Math.round(median(onEtcd[key].map((x) => x.etcdCpuUsPerReq)))}), SQLite ${Math.round(median(sqlite[key].map((x) => x.cpuUsPerReq)))} us`;
  const extra = (key) => ({
    kcptP50: median(onEtcd[key].map((x) => x.p50)),
    kcptP99: median(onEtcd[key].map((x) => x.p99)),
    rawP50: median(sqlite[key].map((x) => x.p50)),
    rawP99: median(sqlite[key].map((x) => x.p99)),
    kcptCpuUs: median(onEtcd[key].map((x) => x.cpuUsPerReq)),
    rawCpuUs: median(sqlite[key].map((x) => x.cpuUsPerReq)),
    rawCpuLabel: 'SQLite',
  });
  const rateRow = (name, key) => ({
    name: `etcd vs SQLite: ${name}`,
    unit: 'rate',
    kcpt: median(onEtcd[key].map((x) => x.rps)),
    baseline: median(sqlite[key].map((x) => x.rps)),
    baselineName: 'same on SQLite',
    target: { kind: 'info-ratio' },
    runs: { kcpt: onEtcd[key].map((x) => x.rps), baseline: sqlite[key].map((x) => x.rps) },
    note: cpuNote(key),
    extra: extra(key),
  });
  const watchRow = (pct) => ({
    name: `etcd vs SQLite: WATCH p${pct}, ${ctx.watch.watchers} watchers, ${ctx.watch.rates[0]} writes/s`,
    unit: 'ms',
    kcpt: median(onEtcd.watch.map((x) => x[`p${pct}`])),
    baseline: median(sqlite.watch.map((x) => x[`p${pct}`])),
    baselineName: 'same on SQLite',
    target: { kind: 'info' },
    runs: { kcpt: onEtcd.watch.map((x) => x[`p${pct}`]), baseline: sqlite.watch.map((x) => x[`p${pct}`]) },
    note: `${cpuNote('watch')} per write`,
    extra: extra('watch'),
  });
  return [
    rateRow('GET ConfigMap, 8 conns', 'get'),
    rateRow(`LIST ${LIST_OBJECTS} ConfigMaps, 8 conns`, 'list'),
    rateRow('CREATE ConfigMap, sequential', 'seq'),
    rateRow('CREATE ConfigMap, 8 conns', 'conc'),
    watchRow(50),
    watchRow(99),
  ];
}
