/**
 * Starts a throwaway single-member etcd on free loopback ports with its own data directory: for the etcd store's
 * tests, the e2e suites run against etcd, and the benchmarks. Stopped by PID; never touches another etcd.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface LocalEtcd {
  /** Client URL, `http://127.0.0.1:<port>`. */
  endpoint: string;
  pid: number;
  dataDir: string;
  /** Everything etcd printed (for failure messages). */
  output(): string;
  /** SIGTERM, wait for exit, remove the data directory (unless it was given). */
  stop(): Promise<void>;
}

export interface LocalEtcdOptions {
  /** etcd binary; default `$ETCD_BIN` or `etcd` on PATH. */
  binary?: string;
  /** Reuse a data directory (restart tests); default a fresh temporary one, removed on stop. */
  dataDir?: string;
  readyTimeoutMs?: number;
}

async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => (port ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}

export async function startLocalEtcd(options: LocalEtcdOptions = {}): Promise<LocalEtcd> {
  const binary = options.binary ?? process.env.ETCD_BIN ?? 'etcd';
  const ownDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'kcpt-etcd-'));
  const [clientPort, peerPort] = [await freeLoopbackPort(), await freeLoopbackPort()];
  const endpoint = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const child: ChildProcess = spawn(
    binary,
    [
      '--name', 'default',
      '--data-dir', dataDir,
      '--listen-client-urls', endpoint,
      '--advertise-client-urls', endpoint,
      '--listen-peer-urls', peer,
      '--initial-advertise-peer-urls', peer,
      '--initial-cluster', `default=${peer}`,
      // kcpt puts an object and its log record in one transaction: allow 2 × kube-apiserver's 3 MiB bodies.
      '--max-request-bytes', String(8 * 1024 * 1024),
      '--log-level', 'warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-64 * 1024);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    if (ownDir) rmSync(dataDir, { recursive: true, force: true });
  };
  const spawnError = new Promise<never>((_, reject) => child.once('error', reject));
  try {
    await Promise.race([waitHealthy(endpoint, options.readyTimeoutMs ?? 20_000, () => child.exitCode !== null), spawnError]);
  } catch (error) {
    await stop();
    throw new Error(`etcd (${binary}) did not become ready on ${endpoint}: ${(error as Error).message}\n${output}`);
  }
  return { endpoint, pid: child.pid!, dataDir, output: () => output, stop };
}

async function waitHealthy(endpoint: string, timeoutMs: number, exited: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exited()) throw new Error('etcd exited');
    try {
      const response = await fetch(`${endpoint}/health`);
      if (response.ok && ((await response.json()) as { health?: string }).health === 'true') return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no healthy answer within ${timeoutMs} ms`);
}
