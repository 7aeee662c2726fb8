/**
 * Starts throwaway etcd members on free loopback ports, each with its own data directory: a single member for the
 * etcd store's tests, the e2e suites run against etcd and the benchmarks; three for the failover test. Members are
 * stopped by PID and can be started again on the same ports and data; nothing here touches another etcd.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface LocalEtcdMember {
  name: string;
  /** Client URL, `http://127.0.0.1:<port>`. */
  endpoint: string;
  /** PID of the running process (0 while stopped). */
  readonly pid: number;
  dataDir: string;
  /** Everything this member printed (for failure messages). */
  output(): string;
  /** SIGTERM and wait for the exit; the data directory stays. */
  stop(): Promise<void>;
  /** Starts it again on the same ports and data; resolves once it answers /health (needs a quorum). */
  start(): Promise<void>;
}

export interface LocalEtcdCluster {
  endpoints: string[];
  members: LocalEtcdMember[];
  /** Stops every member and removes the data directories that were created here. */
  stop(): Promise<void>;
}

/** A single-member cluster, as most callers want it. */
export interface LocalEtcd extends LocalEtcdMember {
  /** Stops it and removes its data directory (unless it was given). */
  stop(): Promise<void>;
}

export interface LocalEtcdOptions {
  /** etcd binary; default `$ETCD_BIN` or `etcd` on PATH. */
  binary?: string;
  /** Single member only: reuse a data directory; default a fresh temporary one, removed on stop. */
  dataDir?: string;
  readyTimeoutMs?: number;
}

/**
 * Members still running when this process exits without stopping them (a test runner killing its worker, a
 * crash): killed on the way out rather than left listening with nobody to stop them.
 */
const running = new Set<ChildProcess>();
/** Data directories created here and not removed yet. */
const scratchDirs = new Set<string>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
  for (const dir of scratchDirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * A loopback port free right now, below Linux's ephemeral range (32768 and up): there the kernel may hand the port to
 * an outgoing connection between this probe and etcd's bind (seen under load as "bind: address already in use").
 * `taken` holds ports already picked for this cluster (each probe closes before the next).
 */
async function freeLoopbackPort(taken: Set<number>): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = 10_000 + Math.floor(Math.random() * 22_000);
    if (taken.has(port)) continue;
    const free = await new Promise<boolean>((resolve) => {
      const probe = createServer();
      probe.unref();
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (free) {
      taken.add(port);
      return port;
    }
  }
  throw new Error('found no free loopback port below 32768');
}

/** How often a new cluster is started on other ports when one of its ports was taken before etcd could bind it. */
const bindAttempts = 3;

export async function startLocalEtcd(options: LocalEtcdOptions = {}): Promise<LocalEtcd> {
  const cluster = await startLocalEtcdCluster(1, options);
  const member = cluster.members[0]!;
  return {
    name: member.name,
    endpoint: member.endpoint,
    get pid() {
      return member.pid;
    },
    dataDir: member.dataDir,
    output: () => member.output(),
    start: () => member.start(),
    stop: () => cluster.stop(),
  };
}

export async function startLocalEtcdCluster(size: number, options: LocalEtcdOptions = {}): Promise<LocalEtcdCluster> {
  // A given data directory keeps its member's identity and URLs; only a fresh cluster may move to other ports.
  const attempts = size === 1 && options.dataDir !== undefined ? 1 : bindAttempts;
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnFreePorts(size, options);
    } catch (error) {
      if (attempt >= attempts || !/address already in use/.test((error as Error).message)) throw error;
    }
  }
}

async function startOnFreePorts(size: number, options: LocalEtcdOptions): Promise<LocalEtcdCluster> {
  const binary = options.binary ?? process.env.ETCD_BIN ?? 'etcd';
  const readyTimeoutMs = options.readyTimeoutMs ?? 20_000;
  const specs: Array<{ name: string; clientUrl: string; peerUrl: string; dataDir: string; ownDir: boolean }> = [];
  const taken = new Set<number>();
  for (let i = 0; i < size; i++) {
    const ownDir = !(size === 1 && options.dataDir !== undefined);
    specs.push({
      name: `member${i}`,
      clientUrl: `http://127.0.0.1:${await freeLoopbackPort(taken)}`,
      peerUrl: `http://127.0.0.1:${await freeLoopbackPort(taken)}`,
      dataDir: ownDir ? mkdtempSync(join(tmpdir(), 'kcpt-etcd-')) : options.dataDir!,
      ownDir,
    });
  }
  for (const spec of specs) if (spec.ownDir) scratchDirs.add(spec.dataDir);
  const initialCluster = specs.map((s) => `${s.name}=${s.peerUrl}`).join(',');
  const members = specs.map((spec) => {
    let child: ChildProcess | undefined;
    let exited: Promise<void> = Promise.resolve();
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-64 * 1024);
    };
    const member: LocalEtcdMember = {
      name: spec.name,
      endpoint: spec.clientUrl,
      get pid() {
        return child && child.exitCode === null && child.signalCode === null ? child.pid! : 0;
      },
      dataDir: spec.dataDir,
      output: () => output,
      async stop() {
        if (child && child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM');
          await exited;
        }
      },
      async start() {
        if (member.pid) return;
        const started = spawn(
          binary,
          [
            '--name', spec.name,
            '--data-dir', spec.dataDir,
            '--listen-client-urls', spec.clientUrl,
            '--advertise-client-urls', spec.clientUrl,
            '--listen-peer-urls', spec.peerUrl,
            '--initial-advertise-peer-urls', spec.peerUrl,
            '--initial-cluster', initialCluster,
            '--initial-cluster-state', 'new',
            // kcpt puts an object and its log record in one transaction: allow 2 × kube-apiserver's 3 MiB bodies.
            '--max-request-bytes', String(8 * 1024 * 1024),
            '--log-level', 'warn',
          ],
          { stdio: ['ignore', 'pipe', 'pipe'] },
        );
        child = started;
        running.add(started);
        started.once('exit', () => running.delete(started));
        started.stdout!.on('data', keep);
        started.stderr!.on('data', keep);
        exited = new Promise<void>((resolve) => started.once('exit', () => resolve()));
        const spawnError = new Promise<never>((_, reject) => started.once('error', reject));
        try {
          await Promise.race([waitHealthy(spec.clientUrl, readyTimeoutMs, () => started.exitCode !== null), spawnError]);
        } catch (error) {
          await member.stop();
          throw new Error(`etcd (${binary}) ${spec.name} did not become ready on ${spec.clientUrl}: ${(error as Error).message}\n${output}`);
        }
      },
    };
    return member;
  });
  const stop = async () => {
    await Promise.all(members.map((m) => m.stop()));
    for (const spec of specs) {
      if (!spec.ownDir) continue;
      rmSync(spec.dataDir, { recursive: true, force: true });
      scratchDirs.delete(spec.dataDir);
    }
  };
  try {
    // Members of a new cluster only report healthy once a quorum has formed: start them together.
    await Promise.all(members.map((m) => m.start()));
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoints: members.map((m) => m.endpoint), members, stop };
}

async function waitHealthy(endpoint: string, timeoutMs: number, exited: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exited()) throw new Error('etcd exited');
    try {
      const response = await fetch(`${endpoint}/health`, { signal: AbortSignal.timeout(2000) });
      if (response.ok && ((await response.json()) as { health?: string }).health === 'true') return;
    } catch {
      // not listening yet, or no leader yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no healthy answer within ${timeoutMs} ms`);
}
