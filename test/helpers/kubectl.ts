/**
 * Runs the real kubectl (the dispatcher on PATH, or one of the versioned binaries beside it) against a
 * TestServer.
 */
import { accessSync, constants, realpathSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import type { TestServer } from './server.js';

export interface KubectlOptions {
  /** Written to kubectl's stdin (for `-f -`). */
  input?: string;
  /** Extra environment, merged over the server's env (HOME, KUBECACHEDIR, KUBECONFIG). */
  env?: Record<string, string | undefined>;
  /** Path of the kubectl binary; the `kubectl` on PATH (the dispatcher) by default. */
  binary?: string;
  /** Throw when kubectl exits non-zero (default true). With false, inspect exitCode yourself. */
  reject?: boolean;
  timeoutMs?: number;
  cwd?: string;
}

export interface KubectlResult {
  stdout: string;
  stderr: string;
  exitCode: number;
  command: string;
}

function render(binary: string, args: string[]): string {
  return [binary, ...args].map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/**
 * The Go runtime of each kubectl: no garbage collection until its heap reaches 256 MiB. A kubectl call lives a fraction
 * of a second and allocates far less, so collecting is pure cost: a fifth of its CPU, and the suite runs thousands
 * of them on cores that are busy throughout. A long watch still collects once it passes the limit.
 */
const goRuntimeEnv = { GOGC: 'off', GOMEMLIMIT: '256MiB' };

export async function kubectl(server: TestServer, args: string[], opts: KubectlOptions = {}): Promise<KubectlResult> {
  const binary = opts.binary ?? 'kubectl';
  const command = render(binary, args);
  const result = await execa(binary, args, {
    env: { ...goRuntimeEnv, ...server.env, ...opts.env },
    input: opts.input,
    stdin: opts.input === undefined ? 'ignore' : undefined,
    reject: false,
    timeout: opts.timeoutMs ?? 45_000,
    cwd: opts.cwd,
  });
  const out: KubectlResult = {
    stdout: String(result.stdout ?? ''),
    stderr: String(result.stderr ?? ''),
    exitCode: result.exitCode ?? -1,
    command,
  };
  if (result.timedOut) {
    throw new Error(`timed out: ${command}\n--- stdout ---\n${out.stdout}\n--- stderr ---\n${out.stderr}`);
  }
  if ((opts.reject ?? true) && out.exitCode !== 0) {
    throw new Error(
      `kubectl failed (exit ${out.exitCode}): ${command}\n--- stdout ---\n${out.stdout}\n--- stderr ---\n${out.stderr}`,
    );
  }
  return out;
}

/** Server URL of a logical cluster, as a user puts it in a kubeconfig or `--server`. */
export function clusterUrl(server: TestServer, cluster: string): string {
  return `${server.url}/clusters/${cluster}`;
}

/**
 * kubectl pointed at one logical cluster as kcp-admin: `--context root` for root, `--context root --server
 * …/clusters/<name>` for any other cluster.
 */
export function clusterArgs(server: TestServer, cluster: string): string[] {
  return cluster === 'root' ? ['--context', 'root'] : ['--context', 'root', '--server', clusterUrl(server, cluster)];
}

export type ClusterKubectl = (args: string[], opts?: KubectlOptions) => Promise<KubectlResult>;

export function inCluster(server: TestServer, cluster: string): ClusterKubectl {
  return (args, opts) => kubectl(server, [...clusterArgs(server, cluster), ...args], opts);
}

export interface KubectlBinary {
  /** `1.27` … `1.33` */
  version: string;
  path: string;
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The versioned kubectl binaries beside the real file of the `kubectl` on PATH; missing ones are skipped. */
export function kubectlBinaries(): KubectlBinary[] {
  const found = onPath('kubectl');
  if (!found) return [];
  const dir = dirname(realpathSync(found));
  const binaries: KubectlBinary[] = [];
  for (let minor = 27; minor <= 33; minor++) {
    const path = join(dir, `kubectl.1.${minor}`);
    try {
      accessSync(path, constants.X_OK);
      binaries.push({ version: `1.${minor}`, path });
    } catch {
      // not installed on this machine
    }
  }
  return binaries;
}

/**
 * The binaries the dispatcher matrix runs: 1.32 and 1.33 always, all of them with KCPT_KUBECTL_MATRIX=1. The
 * second storage run and the sharded run (KCPT_E2E_STORAGE=etcd, KCPT_E2E_TOPOLOGY=sharded) run the newest of them
 * only: which kubectl asks is the client's dimension, covered in full on the plain e2e run; what a store or the
 * front-proxy changes is the same whichever version sends the request.
 */
export function matrixBinaries(): KubectlBinary[] {
  const all = kubectlBinaries();
  const matrix = process.env.KCPT_KUBECTL_MATRIX === '1' ? all : all.filter((b) => b.version === '1.32' || b.version === '1.33');
  const serverVariant = process.env.KCPT_E2E_STORAGE === 'etcd' || process.env.KCPT_E2E_TOPOLOGY === 'sharded';
  return serverVariant ? matrix.slice(-1) : matrix;
}

/** Writes `content` into a fresh temp dir and returns the file path; `cleanupTempFiles()` removes them. */
const tempDirs: string[] = [];
export async function tempFile(name: string, content: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'kcpt-e2e-file-'));
  tempDirs.push(dir);
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}
export async function cleanupTempFiles(): Promise<void> {
  await Promise.all(tempDirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

let counter = 0;
/** A DNS-1123 label unique in this run: `<prefix>-<n><random>`. */
export function uniqueName(prefix: string): string {
  counter += 1;
  return `${prefix}-${counter}${Math.random().toString(36).slice(2, 7)}`;
}

/** A logical cluster name shaped like kcp's (16 base36 characters). */
export function uniqueClusterName(): string {
  let name = '';
  while (name.length < 16) name += Math.random().toString(36).slice(2);
  return name.slice(0, 16);
}

export interface BackgroundKubectl {
  command: string;
  /** Complete stdout lines so far. */
  lines(): string[];
  stdout(): string;
  stderr(): string;
  /** Resolves with the first stdout line matching, or rejects after timeoutMs with everything seen. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Whether kubectl has exited. */
  exited(): boolean;
  /** Waits for kubectl to exit by itself. */
  done(timeoutMs?: number): Promise<KubectlResult>;
  /** Kills kubectl (SIGTERM) and waits for it. */
  stop(): Promise<KubectlResult>;
}

/** Starts a long-running kubectl (`get -w`, `wait`, `get --raw …watch=true`) and follows its output. */
export function kubectlBackground(server: TestServer, args: string[], opts: KubectlOptions = {}): BackgroundKubectl {
  const binary = opts.binary ?? 'kubectl';
  const command = render(binary, args);
  let out = '';
  let err = '';
  let hasExited = false;
  let exitCode = -1;
  const child: ResultPromise = execa(binary, args, {
    env: { ...goRuntimeEnv, ...server.env, ...opts.env },
    buffer: false,
    reject: false,
    stdin: 'ignore',
    cwd: opts.cwd,
  });
  const waiters = new Set<() => void>();
  const notify = () => waiters.forEach((w) => w());
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    notify();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const finished = child.then((r) => {
    hasExited = true;
    exitCode = r.exitCode ?? -1;
    notify();
  });
  const lines = () => {
    const all = out.split('\n');
    all.pop(); // the incomplete tail
    return all;
  };
  const result = (): KubectlResult => ({ stdout: out, stderr: err, exitCode, command });
  const dump = () => `${command}\n--- stdout ---\n${out}\n--- stderr ---\n${err}`;
  return {
    command,
    lines,
    stdout: () => out,
    stderr: () => err,
    exited: () => hasExited,
    waitForLine(pattern, timeoutMs = 15_000) {
      return new Promise((resolveLine, reject) => {
        const check = () => {
          const line = lines().find((l) => pattern.test(l));
          if (line !== undefined) {
            cleanup();
            resolveLine(line);
          } else if (hasExited) {
            cleanup();
            reject(new Error(`kubectl exited (code ${exitCode}) before printing ${String(pattern)}: ${dump()}`));
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no line matching ${String(pattern)} after ${timeoutMs} ms: ${dump()}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    async done(timeoutMs = 30_000) {
      let killed = false;
      const timer = setTimeout(() => {
        killed = true;
        child.kill('SIGKILL');
      }, timeoutMs);
      await finished;
      clearTimeout(timer);
      if (killed) throw new Error(`kubectl still running after ${timeoutMs} ms, killed: ${dump()}`);
      return result();
    },
    async stop() {
      if (!hasExited) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await finished;
      clearTimeout(timer);
      return result();
    },
  };
}
