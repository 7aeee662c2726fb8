// The front-proxy's cost: GET of one ~1 KB ConfigMap in a workspace (root:bench) through `kcpt front-proxy` vs
// the same GET straight to the shard, 8 keep-alive connections, runs interleaved; CPU per request of the shard
// and of the proxy (less sensitive than req/s to other work on the cores). Two proxies in front of the one shard,
// one per proxy → shard hop: over the shard's unix socket in plaintext (`--proxy-socket` / `--shard-socket`, what
// `kcpt start --shards N` wires: the proxy and the shards on one machine) and over TLS to the shard's HTTPS port
// (a shard on another machine). Then the index lag: from a Workspace POST to the shard until the proxy routes its
// path (the shard's own first answer shown beside it).
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { configMap, DEFAULT_PAD } from './lib/payload.js';
import { runNodeLoad, runWrk } from './lib/load.js';
import { client, runJs, startKcpt } from './lib/kcpt.js';
import { freePort, log, median, procCpuMs, tempDir, trackChild, waitExit, withServerCpu } from './lib/util.js';

const WS = 'root:bench';
const CM_PATH = `/clusters/${WS}/api/v1/namespaces/default/configmaps`;

function load(ctx, url, headers) {
  const opts = { url, connections: 8, durationS: ctx.durationS, headers };
  return ctx.useWrk ? runWrk(opts) : runNodeLoad(opts);
}

const SOCKET = 'proxy.sock';

async function startProxy(shardRoot, dir, extraArgs = []) {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (const f of ['ca.crt', 'ca.key']) copyFileSync(path.join(shardRoot, f), path.join(dir, f));
  const port = await freePort();
  const args = [runJs, 'front-proxy', '--root-kubeconfig', path.join(shardRoot, 'admin.kubeconfig'), '--root-directory', dir, '--secure-port', String(port), ...extraArgs];
  // FRONT_PROXY_CPU_PROF=<dir>: the proxy writes a V8 CPU profile there when it stops (for `--cpu-prof` analysis).
  const prof = process.env.FRONT_PROXY_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.FRONT_PROXY_CPU_PROF] : [];
  const child = trackChild(spawn(process.execPath, [...prof, ...args], { stdio: ['ignore', 'pipe', 'pipe'] }));
  let out = '';
  child.stderr.on('data', (d) => (out += d));
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`front-proxy not ready:\n${out}`)), 30_000);
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('export KUBECONFIG=')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`front-proxy exited ${code}:\n${out}`)));
  });
  return {
    url: `https://127.0.0.1:${port}`,
    child,
    async stop() {
      child.kill('SIGTERM');
      await waitExit(child, 10_000);
    },
  };
}

/** Status of a GET with kcp-admin's token, over a fresh keep-alive agent per caller. */
function statusOf(agent, url, token) {
  return new Promise((resolve, reject) => {
    const req = https.get(url, { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', reject);
  });
}

async function indexLag(shard, proxy, c, samples) {
  const agent = new https.Agent({ keepAlive: true, rejectUnauthorized: false });
  const lags = [];
  const direct = [];
  for (let i = 0; i < samples; i++) {
    const name = `lag-${i}`;
    const res = await c.request('POST', `/clusters/${WS}/apis/tenancy.kcp.io/v1alpha1/workspaces`, {
      apiVersion: 'tenancy.kcp.io/v1alpha1',
      kind: 'Workspace',
      metadata: { name },
    });
    if (res.status !== 201) throw new Error(`create workspace ${name}: HTTP ${res.status} ${res.body}`);
    const t0 = performance.now();
    const probe = `/clusters/${WS}:${name}/api/v1/namespaces/default`;
    let shardAt;
    for (;;) {
      if (shardAt === undefined && (await statusOf(agent, shard.url + probe, shard.token)) === 200) shardAt = performance.now() - t0;
      if ((await statusOf(agent, proxy.url + probe, shard.token)) === 200) break;
      if (performance.now() - t0 > 10_000) throw new Error(`${WS}:${name} not routed by the proxy after 10 s`);
    }
    lags.push(performance.now() - t0);
    direct.push(shardAt ?? NaN);
  }
  agent.destroy();
  return { lags, direct };
}

export async function run(ctx) {
  const dir = tempDir('kcpt-bench-front-proxy-');
  const shard = await startKcpt({ rootDir: dir, extraArgs: ['--proxy-socket', SOCKET] });
  const shardRoot = path.join(dir, 'root');
  const proxies = [];
  const c = client(shard.url, { token: shard.token });
  try {
    // One proxy per hop, both up for the whole run; the one not under load is idle.
    const hops = [
      { name: 'unix socket', short: 'socket', proxy: await startProxy(shardRoot, path.join(dir, 'proxy-socket'), ['--shard-socket', `root=${path.join(shardRoot, SOCKET)}`]) },
      { name: 'TLS', short: 'tls', proxy: await startProxy(shardRoot, path.join(dir, 'proxy-tls')) },
    ];
    proxies.push(...hops.map((h) => h.proxy));
    let res = await c.request('POST', '/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces', {
      apiVersion: 'tenancy.kcp.io/v1alpha1',
      kind: 'Workspace',
      metadata: { name: 'bench' },
      spec: { type: { name: 'universal', path: 'root' } },
    });
    if (res.status !== 201) throw new Error(`create workspace bench: HTTP ${res.status} ${res.body}`);
    for (let i = 0; ; i++) {
      res = await c.request('POST', CM_PATH, configMap('bench-get', 'default', DEFAULT_PAD));
      if (res.status === 201) break;
      if (i > 100) throw new Error(`create ConfigMap in ${WS}: HTTP ${res.status} ${res.body}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const headers = { Authorization: `Bearer ${shard.token}`, Accept: 'application/json' };
    const directUrl = `${shard.url}${CM_PATH}/bench-get`;
    await load({ ...ctx, durationS: 2 }, directUrl, headers);
    for (const hop of hops) {
      hop.url = `${hop.proxy.url}${CM_PATH}/bench-get`;
      hop.runs = [];
      hop.proxyCpu = [];
      await load({ ...ctx, durationS: 2 }, hop.url, headers);
    }
    const d = [];
    for (let i = 0; i < ctx.runs; i++) {
      d.push(await withServerCpu(shard.child.pid, () => load(ctx, directUrl, headers)));
      const line = [`direct ${d.at(-1).rps.toFixed(0)} req/s (shard ${d.at(-1).cpuUsPerReq.toFixed(0)} µs CPU/req)`];
      for (const hop of hops) {
        // Shard and proxy CPU over the same proxied run.
        const proxyBefore = procCpuMs(hop.proxy.child.pid);
        const viaProxy = await withServerCpu(shard.child.pid, () => load(ctx, hop.url, headers));
        hop.runs.push(viaProxy);
        hop.proxyCpu.push(((procCpuMs(hop.proxy.child.pid) - proxyBefore) * 1000) / viaProxy.requests);
        line.push(`via proxy (${hop.short} hop) ${viaProxy.rps.toFixed(0)} req/s (shard ${viaProxy.cpuUsPerReq.toFixed(0)} + proxy ${hop.proxyCpu.at(-1).toFixed(0)} µs)`);
      }
      log(`  run ${i + 1}: ${line.join(', ')}`);
    }
    for (const hop of hops) {
      const bad = hop.runs.reduce((a, x) => a + x.non2xx + x.errors, 0);
      if (bad) log(`  WARNING: ${bad} GETs through the proxy (${hop.name} hop) failed`);
      hop.bad = bad;
    }
    const { lags, direct } = await indexLag(shard, hops[0].proxy, c, 10);
    log(`  index lag (create -> routed), ms: shard ${direct.map((x) => x.toFixed(0)).join(' ')}; proxy ${lags.map((x) => x.toFixed(0)).join(' ')}`);
    const directCpu = median(d.map((x) => x.cpuUsPerReq));
    return [
      ...hops.map((hop) => ({
        name: `GET 1 KB ConfigMap in ${WS} through front-proxy (${hop.name} hop to the shard), 8 conns`,
        unit: 'rate',
        kcpt: median(hop.runs.map((x) => x.rps)),
        baseline: median(d.map((x) => x.rps)),
        baselineName: 'same GET direct to the shard, same run',
        target: { kind: 'ratio', min: 0.7 },
        runs: { kcpt: hop.runs.map((x) => x.rps), baseline: d.map((x) => x.rps) },
        note: `CPU/req: shard ${directCpu.toFixed(0)} µs direct; proxied over ${hop.name}: shard ${median(hop.runs.map((x) => x.cpuUsPerReq)).toFixed(0)} µs + proxy ${median(hop.proxyCpu).toFixed(0)} µs`,
        extra: {
          hop: hop.short,
          kcptP50: median(hop.runs.map((x) => x.p50)),
          kcptP99: median(hop.runs.map((x) => x.p99)),
          rawP50: median(d.map((x) => x.p50)),
          rawP99: median(d.map((x) => x.p99)),
          shardCpuUs: median(hop.runs.map((x) => x.cpuUsPerReq)),
          shardDirectCpuUs: directCpu,
          proxyCpuUs: median(hop.proxyCpu),
          errors: hop.bad,
        },
      })),
      {
        name: 'front-proxy index lag: Workspace created -> routed',
        unit: 'ms',
        kcpt: median(lags),
        baseline: median(direct),
        baselineName: 'shard itself',
        target: { kind: 'max', max: 1000 },
        note: `max ${Math.max(...lags).toFixed(0)} ms over ${lags.length}`,
      },
    ];
  } finally {
    c.close();
    for (const proxy of proxies) await proxy.stop();
    await shard.stop();
  }
}
