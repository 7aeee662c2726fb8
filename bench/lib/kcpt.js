// Starting `node bin/run.js start` as a child process and talking to it over HTTPS.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import http2 from 'node:http2';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { benchDir, freePort, log, repoDir, sleep, tempDir, trackChild, waitExit } from './util.js';

export const runJs = path.join(repoDir, 'bin', 'run.js');

/** Token and CA of the `root` context (user kcp-admin) of <root>/admin.kubeconfig. */
export function readAdminKubeconfig(rootDir) {
  const cfg = parseYaml(readFileSync(path.join(rootDir, 'admin.kubeconfig'), 'utf8'));
  const ctx = cfg.contexts.find((c) => c.name === 'root').context;
  const user = cfg.users.find((u) => u.name === ctx.user).user;
  const cluster = cfg.clusters.find((c) => c.name === ctx.cluster).cluster;
  const shard = cfg.users.find((u) => u.name === 'shard-admin')?.user;
  return {
    token: user.token,
    /** shard-admin (system:masters): may create a LogicalCluster in a new cluster name. */
    shardToken: shard?.token,
    server: cluster.server,
    ca: Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8'),
  };
}

/**
 * Spawns kcpt and resolves once it printed its ready line. Returns {url, port, token, ca, rootDir, child, stop()}.
 * nodeArgs go before bin/run.js (e.g. --cpu-prof); extraArgs after `start` (e.g. hidden flags); env is added to ours;
 * entry is the bin/run.js to start (another checkout's, for A/B runs).
 */
/**
 * kcpt start flags letting one user (the bench's kcp-admin) hold `watchers` open watches: the server caps each user
 * at 500 by default (--max-watches-per-user), and the watch benchmarks open up to 1,000 from one token. The cap stays
 * on (its bookkeeping is part of what is measured), only above the benchmark's count.
 */
export function watchCapArgs(watchers) {
  return ['--max-watches-per-user', String(Math.max(500, watchers + 10))];
}

export async function startKcpt({ rootDir = tempDir(), storage, port, nodeArgs = [], extraArgs = [], env, timeoutMs = 30_000, entry = runJs } = {}) {
  port ??= await freePort();
  const args = [...nodeArgs, entry, 'start', '--root-directory', path.join(rootDir, 'root'), '--secure-port', String(port), ...extraArgs];
  if (storage) args.push('--storage', storage);
  const child = trackChild(spawn(process.execPath, args, { cwd: rootDir, stdio: ['ignore', 'pipe', 'pipe'], env: env ? { ...process.env, ...env } : process.env }));
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  let onEarlyExit;
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`kcpt did not become ready in ${timeoutMs} ms:\n${out}\n${err}`)), timeoutMs);
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('export KUBECONFIG=')) {
        clearTimeout(timer);
        resolve();
      }
    });
    onEarlyExit = (code) => {
      clearTimeout(timer);
      reject(new Error(`kcpt exited with ${code} before it was ready:\n${out}\n${err}`));
    };
    child.on('exit', onEarlyExit);
  });
  child.off('exit', onEarlyExit);
  const kc = readAdminKubeconfig(path.join(rootDir, 'root'));
  const url = `https://127.0.0.1:${port}`;
  return {
    url,
    port,
    token: kc.token,
    shardToken: kc.shardToken,
    ca: kc.ca,
    rootDir,
    certDir: path.join(rootDir, 'root'),
    child,
    stderr: () => err,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await waitExit(child, 15_000);
    },
  };
}

/** Node arguments and environment that preload bench/lib/server-hook.js into a server process (kcpt or the bare one). */
export function hookLaunch(rootDir) {
  const hookFile = path.join(rootDir, `hook-${process.pid}-${Date.now()}`);
  return {
    hookFile,
    nodeArgs: ['--expose-gc', '--import', pathToFileURL(path.join(benchDir, 'lib', 'server-hook.js')).href],
    env: { KCPT_BENCH_HOOK_FILE: hookFile },
  };
}

/**
 * hook(command) of a process started with hookLaunch's arguments: sends it a hook command (`gc`, `profile-start`,
 * `profile-stop <file>`) and resolves with its answer.
 */
export function hookOf(child, hookFile) {
  return async (command, timeoutMs = 120_000) => {
    rmSync(`${hookFile}.out`, { force: true });
    writeFileSync(hookFile, command);
    child.kill('SIGUSR2');
    const t0 = performance.now();
    while (!existsSync(`${hookFile}.out`)) {
      if (performance.now() - t0 > timeoutMs) throw new Error(`the server did not answer the hook command ${command}`);
      await sleep(20);
    }
    await sleep(5);
    const answer = JSON.parse(readFileSync(`${hookFile}.out`, 'utf8'));
    if (!answer.ok) throw new Error(`hook command ${command}: ${answer.error}`);
    return answer;
  };
}

/**
 * startKcpt with bench/lib/server-hook.js preloaded (and --expose-gc): the result has hook(command) (hookOf).
 */
export async function startHooked({ rootDir = tempDir(), nodeArgs = [], ...rest } = {}) {
  const launch = hookLaunch(rootDir);
  const server = await startKcpt({ rootDir, nodeArgs: [...launch.nodeArgs, ...nodeArgs], env: launch.env, ...rest });
  server.hook = hookOf(server.child, launch.hookFile);
  return server;
}

/** A keep-alive HTTPS client bound to one kcpt (or raw) server. */
/**
 * A client of one kcpt: request(method, path, body, headers) → {status, headers, body}, json(…) → parsed body.
 * Over HTTP/1.1 (a keep-alive pool of maxSockets connections, as client-node) or, with `http2`, one HTTP/2
 * connection carrying every request and watch (as client-go and kubectl talk to a server that offers h2); then
 * `session` is that connection, for watches (workspace-driver.js).
 */
export function client(baseUrl, { token, maxSockets = 16, http2: useHttp2 = false } = {}) {
  if (useHttp2) return http2Client(baseUrl, { token });
  const agent = new https.Agent({ keepAlive: true, maxSockets, rejectUnauthorized: false });
  const u = new URL(baseUrl);
  function request(method, pathName, body, headers = {}) {
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
      const req = https.request(
        {
          host: u.hostname,
          port: u.port,
          method,
          path: pathName,
          agent,
          rejectUnauthorized: false,
          headers: {
            ...(token ? { authorization: `Bearer ${token}` } : {}),
            ...(payload !== undefined ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
            ...headers,
          },
        },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }
  return { request, json: jsonOver(request), agent, close: () => agent.destroy() };
}

function http2Client(baseUrl, { token }) {
  const session = http2.connect(baseUrl, { rejectUnauthorized: false });
  // An idle session must not keep the bench's process alive.
  session.unref();
  session.on('error', () => {});
  function request(method, pathName, body, headers = {}) {
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
      const stream = session.request({
        ':method': method,
        ':path': pathName,
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(payload !== undefined ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
        ...headers,
      });
      const chunks = [];
      let responseHeaders = {};
      stream.on('response', (h) => (responseHeaders = h));
      stream.on('data', (c) => chunks.push(c));
      stream.on('end', () => resolve({ status: responseHeaders[':status'], headers: responseHeaders, body: Buffer.concat(chunks) }));
      stream.on('error', reject);
      stream.end(payload);
    });
  }
  return { request, json: jsonOver(request), session, close: () => session.close() };
}

/** json(method, path, body, headers): the parsed answer of `request`, or an error naming the status. */
function jsonOver(request) {
  return async (method, pathName, body, headers) => {
    const res = await request(method, pathName, body, headers);
    if (res.status >= 300) throw new Error(`${method} ${pathName}: HTTP ${res.status} ${res.body.toString().slice(0, 300)}`);
    return JSON.parse(res.body.toString('utf8'));
  };
}

/** Runs fn over items with at most `concurrency` in flight. */
export async function parallel(items, concurrency, fn) {
  let next = 0;
  const workers = Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i], i);
    }
  });
  await Promise.all(workers);
}

export async function ensureNamespace(c, name) {
  const res = await c.request('POST', '/clusters/root/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  if (res.status !== 201 && res.status !== 409) throw new Error(`create namespace ${name}: HTTP ${res.status} ${res.body}`);
}

export function logServerTail(server) {
  const tail = server.stderr().trim().split('\n').slice(-5).join('\n');
  if (tail) log(`  (kcpt stderr tail)\n${tail}`);
}
