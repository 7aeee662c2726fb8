/**
 * `kcpt start --shards N`: a sharded deployment on one machine for local development. The root shard and N-1 more
 * run as child `kcpt start` processes (each its own store and failure domain), the front-proxy runs in this
 * process, and all serve with one CA, so the one `admin.kubeconfig` written here (pointing at the proxy) works
 * for every workspace. Layout of the root directory:
 *
 *   ca.crt ca.key        the deployment's CA (copied into every shard's and the proxy's directory)
 *   admin.kubeconfig     kcp-admin, shard-admin (and user) through the front-proxy
 *   shards/root/ …       the root shard's own root directory; shards/shard-1/ … for the others
 *   front-proxy/         the proxy's serving certificate
 *   shards/<name>/proxy.sock  the shard's plaintext unix socket the proxy forwards over (no TLS on that hop)
 *
 * Every shard's externalURL is the proxy and its virtualWorkspaceURL `<proxy>/shards/<name>`, so Workspace URLs,
 * WorkspaceType virtual workspace URLs and endpoint slice URLs all point through the proxy.
 *
 * Ports: the proxy listens on --secure-port, shard k (root = 0) on --secure-port + 1 + k, so shard URLs stay the
 * same from one start to the next (Workspaces record them); with --secure-port 0 all are picked free. SIGINT,
 * SIGTERM or `kcpt stop --root-directory` stops the proxy and every shard.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { ensureServingCertificates, CA_CERT_FILE, CA_KEY_FILE } from '../../engine/auth/certificates.js';
import { acquireRootLock, prepareRootDirectory } from '../../engine/auth/root-directory.js';
import type { ServerOptions } from '../../engine/server/index.js';
import { fitsSocketPath } from '../../engine/shards/proxy-socket.js';
import { kcptEntry } from '../server/package-root.js';
import { removeServerRecord, writeServerRecord } from '../server/server-record.js';
import { CLUSTER_MEMBER_ENV } from '../server/known-servers.js';
import { clusterShardNames, serverArgv, shardEtcdServers, type StartFlagValues } from './flags.js';
import type { StartOutput } from './run-start.js';

export const ROOT_SHARD = 'root';
const SHARD_KUBECONFIG = 'root-shard.kubeconfig';
/** Each shard's plaintext socket for the proxy, in its own directory. */
const PROXY_SOCKET_FILE = 'proxy.sock';
const readyLine = /export KUBECONFIG=("?)([^"\s]+)\1/;
/** Flags the cluster sets per shard itself. */
const perShardFlags = new Set([
  'root-directory', 'secure-port', 'shards', 'storage', 'proxy-socket',
  'etcd-servers', 'etcd-prefix', 'etcd-cafile', 'etcd-certfile', 'etcd-keyfile', 'shard-etcd-servers',
]);

export interface ShardProcess {
  name: string;
  url: string;
  child: ChildProcess;
  argv: string[];
}

export async function runDevCluster(values: StartFlagValues, options: ServerOptions, out: StartOutput): Promise<void> {
  const count = values.shards as number;
  const root = await prepareRootDirectory(options.rootDirectory);
  const releaseLock = acquireRootLock(root);
  const children: ShardProcess[] = [];
  let stopping = false;
  let proxyStarting: Promise<{ close(): Promise<void> }> | undefined;
  // Signals are taken from the first moment: a SIGTERM while the shards start (a script that saw the proxy's
  // /readyz, say) would otherwise end this process by default and leave every shard running without its parent.
  let signalled: string | undefined;
  let interrupt!: (err: StartInterrupted) => void;
  const interrupted = new Promise<never>((_, reject) => (interrupt = reject));
  interrupted.catch(() => {});
  const takeSignal = (signal: string) => {
    signalled ??= signal;
    interrupt(new StartInterrupted(signal));
  };
  const onSigint = () => takeSignal('SIGINT');
  const onSigterm = () => takeSignal('SIGTERM');
  process.once('SIGINT', onSigint);
  process.once('SIGTERM', onSigterm);
  const step = <T>(work: Promise<T>): Promise<T> => Promise.race([work, interrupted]);
  const stopAll = async () => {
    stopping = true;
    const proxy = await proxyStarting?.catch(() => undefined);
    await proxy?.close();
    await Promise.all(children.map((c) => stopChild(c.child)));
    removeServerRecord(root, process.pid);
    releaseLock();
  };
  try {
    const started = Date.now();
    // The deployment's CA: made here once, copied to every member so each serves a certificate it signed.
    await ensureServingCertificates(root, { hosts: [options.bindAddress] });
    const ports = await clusterPorts(options.securePort, count, options.bindAddress);
    const host = options.bindAddress.includes(':') ? `[${options.bindAddress}]` : options.bindAddress;
    const proxyUrl = `https://${host}:${ports[0]}`;
    const names = clusterShardNames(count);
    const etcdOf = shardEtcdServersOf(values, count);
    const dirOf = (name: string) => memberDirectory(root, path.join('shards', name));
    const inherited = serverArgv(Object.fromEntries(Object.entries(values).filter(([k]) => !perShardFlags.has(k))));
    // Each shard also serves the proxy on a unix socket in its directory: the proxy → shard hop without TLS.
    const socketOf = (name: string) => {
      const socket = path.join(dirOf(name), PROXY_SOCKET_FILE);
      if (fitsSocketPath(socket)) return socket;
      out.log(`note: ${socket} is too long for a unix socket: the front-proxy reaches shard ${name} over TLS`);
      return undefined;
    };
    const sockets = new Map(names.flatMap((name) => { const s = socketOf(name); return s ? [[name, s] as const] : []; }));
    const argvOf = (name: string, i: number) => [
      ...inherited,
      ...(sockets.has(name) ? ['--proxy-socket', PROXY_SOCKET_FILE] : []),
      '--root-directory', dirOf(name),
      '--secure-port', String(ports[i + 1]),
      '--shard-external-url', proxyUrl,
      // Each shard's virtual workspaces (endpoint slices list one URL per shard, an initializer one per shard)
      // through the proxy too: it forwards /shards/<name>/services/… to that shard.
      '--shard-virtual-workspace-url', `${proxyUrl}/shards/${name}`,
      ...storageArgv(values, name, etcdOf.get(name)),
      ...(name === ROOT_SHARD ? [] : ['--shard-name', name, '--root-shard-kubeconfig', path.join(root, SHARD_KUBECONFIG)]),
    ];
    const launch = (name: string, i: number) => {
      const shard = startShard(name, argvOf(name, i), out, () => stopping);
      children.push(shard);
      return shard;
    };
    // Root first: the others register with it, through a kubeconfig with its shard-admin (system:masters).
    const rootShard = launch(ROOT_SHARD, 0);
    const rootKubeconfig = await step(waitReady(rootShard));
    await writeShardKubeconfig(rootKubeconfig, path.join(root, SHARD_KUBECONFIG));
    await step(Promise.all(names.slice(1).map((name, i) => waitReady(launch(name, i + 1)))));

    const { startFrontProxy } = await import('../../engine/front-proxy/server.js');
    const starting = startFrontProxy({
      rootKubeconfig,
      rootDirectory: memberDirectory(root, 'front-proxy'),
      securePort: ports[0]!,
      bindAddress: options.bindAddress,
      kubeconfigPath: path.join(root, 'admin.kubeconfig'),
      shardSockets: sockets,
      homes: {
        prefix: options.homeWorkspacesRootPrefix ?? 'root:users',
        levels: options.homeWorkspacesBucketLevels ?? 2,
        size: options.homeWorkspacesBucketSize ?? 2,
      },
      log: (line) => process.stderr.write(`${line}\n`),
    });
    proxyStarting = starting;
    const running = await step(starting);
    await step(running.synced());
    if (signalled) throw new StartInterrupted(signalled);
    await writeServerRecord({
      pid: process.pid,
      url: running.url,
      port: running.port,
      rootDirectory: root,
      kubeconfig: running.kubeconfigPath,
      startedAt: new Date().toISOString(),
      detached: false,
    });
    out.log(`kcpt is ready at ${running.url} (front-proxy over ${count} shard${count === 1 ? '' : 's'}: ${children.map((c) => `${c.name} ${c.url}`).join(', ')}; started in ${Date.now() - started} ms). Point kubectl at it with:`);
    out.log(`  export KUBECONFIG=${running.kubeconfigPath}`);
  } catch (err) {
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigterm);
    if (err instanceof StartInterrupted) process.stderr.write(`received ${err.signal} while starting, stopping the front-proxy and ${children.length} shards\n`);
    await stopAll();
    if (err instanceof StartInterrupted) return;
    throw err;
  }
  const signal = await interrupted.catch((err: StartInterrupted) => err.signal);
  process.stderr.write(`received ${signal}, shutting down the front-proxy and ${children.length} shards\n`);
  await stopAll();
}

class StartInterrupted extends Error {
  constructor(readonly signal: string) {
    super(`received ${signal} while starting`);
  }
}

/** A member's directory with the deployment's CA in it (kept if present: it is the same CA from the last start). */
function memberDirectory(root: string, relative: string): string {
  const dir = path.join(root, relative);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (const file of [CA_CERT_FILE, CA_KEY_FILE]) {
    if (!existsSync(path.join(dir, file))) copyFileSync(path.join(root, file), path.join(dir, file));
  }
  return dir;
}

/** Shard → etcd client URLs: --shard-etcd-servers' shards, every shard on --etcd-servers' etcd otherwise. */
function shardEtcdServersOf(values: StartFlagValues, count: number): Map<string, string> {
  const all = values['etcd-servers'] as string | undefined;
  const named = values['shard-etcd-servers'] === undefined ? new Map<string, string>() : shardEtcdServers(String(values['shard-etcd-servers']), count);
  return new Map(clusterShardNames(count).flatMap((name) => {
    const servers = named.get(name) ?? all;
    return servers === undefined ? [] : [[name, servers] as const];
  }));
}

/** Each shard its own store: SQLite in its directory, its own etcd prefix, or its own memory. */
function storageArgv(values: StartFlagValues, shard: string, etcdServers: string | undefined): string[] {
  if (etcdServers !== undefined) {
    const tls = ['etcd-cafile', 'etcd-certfile', 'etcd-keyfile'].flatMap((flag) => (values[flag] === undefined ? [] : [`--${flag}`, String(values[flag])]));
    return ['--etcd-servers', etcdServers, '--etcd-prefix', `${String(values['etcd-prefix'] ?? '')}/${shard}`, ...tls];
  }
  const storage = String(values.storage ?? '');
  return storage ? ['--storage', storage] : [];
}

/** Proxy port, then one per shard: consecutive from --secure-port, or free ones when it is 0. */
async function clusterPorts(base: number, count: number, host: string): Promise<number[]> {
  if (base !== 0) return Array.from({ length: count + 1 }, (_, i) => base + i);
  const ports: number[] = [];
  for (let i = 0; i <= count; i++) ports.push(await freePort(host));
  return ports;
}

function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.on('error', reject);
    probe.listen(0, host, () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** The root shard's admin.kubeconfig at its shard-base context: what non-root shards reach root with. */
async function writeShardKubeconfig(rootKubeconfig: string, file: string): Promise<void> {
  const doc = parse(await readFile(rootKubeconfig, 'utf8')) as Record<string, unknown>;
  doc['current-context'] = 'shard-base';
  await writeFile(file, stringify(doc, { lineWidth: 0 }), { mode: 0o600 });
}

function startShard(name: string, argv: string[], out: StartOutput, stopping: () => boolean): ShardProcess {
  const child = spawn(process.execPath, [kcptEntry(), 'start', ...argv], {
    // stdin is a pipe the shard watches: when it ends, this process is gone (even by SIGKILL) and the shard stops.
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', [CLUSTER_MEMBER_ENV]: '1' },
  });
  const port = argv[argv.indexOf('--secure-port') + 1];
  const shard: ShardProcess = { name, url: `port ${port}`, child, argv };
  const prefix = (stream: NodeJS.ReadableStream | null) =>
    stream?.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n')) if (line) process.stderr.write(`[${name}] ${line}\n`);
    });
  prefix(child.stderr);
  child.on('exit', (code, signal) => {
    if (stopping()) return;
    out.log(`shard ${name} exited (${signal ?? `code ${code}`}); its workspaces answer 503 until it runs again: node ${kcptEntry()} start ${argv.join(' ')}`);
  });
  return shard;
}

/** Resolves with the shard's admin.kubeconfig path once it printed its ready line; rejects if it exits first. */
function waitReady(shard: ShardProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const onExit = (code: number | null) => reject(new Error(`shard ${shard.name} exited (code ${code}) before it was ready:\n${seen}`));
    shard.child.once('exit', onExit);
    shard.child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const url = /ready at (\S+)/.exec(seen);
      if (url) shard.url = url[1]!;
      const match = readyLine.exec(seen);
      if (match) {
        shard.child.off('exit', onExit);
        resolve(match[2]!);
      }
    });
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(killer);
}
