// etcd vs SQLite: the same API GET and CREATE loads against a kcpt on its default SQLite file and a kcpt on a local
// single-member etcd (`--etcd-servers`), side by side. GET is served from the etcd store's in-process mirror, so it
// should match SQLite; a CREATE waits for etcd's acknowledgement (a gRPC round trip and etcd's WAL fsync).
// CPU per request counts the kcpt process (its etcd worker thread included) plus, on the etcd side, etcd itself:
// on a shared 2-core box that is far steadier than req/s.
import { startLocalEtcd } from '../dist/src/engine/storage/etcd-launcher.js';
import { client, ensureNamespace, startKcpt } from './lib/kcpt.js';
import { runNodeLoad, runWrk, wrkPostScript } from './lib/load.js';
import { configMap } from './lib/payload.js';
import { log, median, procCpuMs, tempDir } from './lib/util.js';

const NS = 'bench-storage';
const CM_PATH = `/clusters/root/api/v1/namespaces/${NS}/configmaps`;

/** Runs a load and adds CPU µs per request: all `pids` together, and the second one (etcd) alone. */
async function measure(pids, fn) {
  const before = pids.map(procCpuMs);
  const result = await fn();
  const used = pids.map((pid, i) => ((procCpuMs(pid) - before[i]) * 1000) / result.requests);
  return { ...result, cpuUsPerReq: used.reduce((a, b) => a + b, 0), etcdCpuUsPerReq: used[1] };
}

/** GET and CREATE figures for one running server; `pids` are the processes whose CPU the storage costs. */
async function loads(ctx, server, pids, label) {
  const c = client(server.url, { token: server.token });
  try {
    await ensureNamespace(c, NS);
    const headers = { Authorization: `Bearer ${server.token}`, Accept: 'application/json' };
    const template = JSON.stringify(configMap('%s', NS, ctx.calibration.pad));
    await c.request('POST', CM_PATH, JSON.parse(template.replace('%s', 'target')));
    const get = () =>
      ctx.useWrk
        ? runWrk({ url: `${server.url}${CM_PATH}/target`, connections: 8, durationS: ctx.durationS, headers })
        : runNodeLoad({ url: `${server.url}${CM_PATH}/target`, connections: 8, durationS: ctx.durationS, headers });
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
    await get();
    await post(8, 'warm-');
    const runs = { get: [], seq: [], conc: [] };
    for (let i = 0; i < ctx.runs; i++) {
      runs.get.push(await measure(pids, get));
      runs.seq.push(await measure(pids, () => post(1, `seq-${i}-`)));
      runs.conc.push(await measure(pids, () => post(8, `c8-${i}-`)));
      const bad = [...runs.seq, ...runs.conc].reduce((a, x) => a + x.non2xx + x.errors, 0);
      log(
        `  ${label} run ${i + 1}: GET x8 ${runs.get.at(-1).rps.toFixed(0)}/s (${runs.get.at(-1).cpuUsPerReq.toFixed(0)} us CPU), ` +
          `POST x1 ${runs.seq.at(-1).rps.toFixed(0)}/s (${runs.seq.at(-1).cpuUsPerReq.toFixed(0)} us), ` +
          `x8 ${runs.conc.at(-1).rps.toFixed(0)}/s (${runs.conc.at(-1).cpuUsPerReq.toFixed(0)} us)${bad ? `, ${bad} errors` : ''}`,
      );
    }
    return runs;
  } finally {
    c.close();
  }
}

export async function run(ctx) {
  const sqliteServer = await startKcpt({ rootDir: tempDir() });
  let sqlite;
  try {
    sqlite = await loads(ctx, sqliteServer, [sqliteServer.child.pid], 'SQLite');
  } finally {
    await sqliteServer.stop();
  }
  const etcd = await startLocalEtcd();
  let onEtcd;
  try {
    const etcdServer = await startKcpt({ rootDir: tempDir(), extraArgs: ['--etcd-servers', etcd.endpoint] });
    try {
      onEtcd = await loads(ctx, etcdServer, [etcdServer.child.pid, etcd.pid], 'etcd');
    } finally {
      await etcdServer.stop();
    }
  } finally {
    await etcd.stop();
  }
  const row = (name, key) => ({
    name: `etcd vs SQLite: ${name}`,
    unit: 'rate',
    kcpt: median(onEtcd[key].map((x) => x.rps)),
    baseline: median(sqlite[key].map((x) => x.rps)),
    baselineName: 'same on SQLite',
    target: { kind: 'info-ratio' },
    runs: { kcpt: onEtcd[key].map((x) => x.rps), baseline: sqlite[key].map((x) => x.rps) },
    note: `etcd's own CPU ${Math.round(median(onEtcd[key].map((x) => x.etcdCpuUsPerReq)))} us/req of the etcd side's`,
    extra: {
      kcptP50: median(onEtcd[key].map((x) => x.p50)),
      kcptP99: median(onEtcd[key].map((x) => x.p99)),
      rawP50: median(sqlite[key].map((x) => x.p50)),
      rawP99: median(sqlite[key].map((x) => x.p99)),
      kcptCpuUs: median(onEtcd[key].map((x) => x.cpuUsPerReq)),
      rawCpuUs: median(sqlite[key].map((x) => x.cpuUsPerReq)),
      rawCpuLabel: 'SQLite',
    },
  });
  return [row('GET ConfigMap, 8 conns', 'get'), row('CREATE ConfigMap, sequential', 'seq'), row('CREATE ConfigMap, 8 conns', 'conc')];
}
