/**
 * Starts the real `kcpt start` (bin/run.js, compiled dist/) on a free port with its own root directory, HOME and
 * KUBECACHEDIR, for e2e suites that drive it with the real kubectl and @kubernetes/client-node.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';
import { startLocalEtcd, type LocalEtcd } from '../../src/engine/storage/etcd-launcher.js';
import { clusterShardNames } from '../../src/cli/start/flags.js';
import { seedRootDirectory } from '../../src/testing/key-cache.js';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface StartServerOptions {
  /** `--storage`; by default the server's own default (SQLite in the root directory). */
  storage?: string;
  /**
   * Store in a throwaway etcd started for this server (`--etcd-servers`), stopped with it. Default: when
   * `KCPT_E2E_STORAGE=etcd` is set and no `storage` is given, so any e2e file can run against etcd unchanged.
   */
  etcd?: boolean;
  /** Extra flags for `kcpt start`. */
  extraArgs?: string[];
  /** How long to wait for the `export KUBECONFIG=` line; default 20 s, 45 s on etcd. */
  readyTimeoutMs?: number;
  /**
   * Run a sharded cluster instead of one server: `kcpt start --shards 3` (root and shard-1 on SQLite, shard-2 on a
   * throwaway etcd of its own), and hand out the front-proxy's URL and admin.kubeconfig. Default: when
   * `KCPT_E2E_TOPOLOGY=sharded` is set and no `storage`/`etcd` is given, so any e2e file runs through the proxy unchanged.
   */
  sharded?: boolean;
  /** A root directory prepared beforehand (e.g. holding a deployment's shared CA); removed by stop() like a fresh one. */
  rootDir?: string;
  /**
   * Let the server generate its CA, serving certificate and service-account key. By default a fresh root directory
   * gets copies of the per-user test keys kcpt/testing keeps (src/testing/key-cache.ts): generating them is most of
   * a server's start-up CPU, and no e2e test depends on a server's keys being its own. A sharded start's members
   * (each shard's directory and the front-proxy's) get the same copies, the CA included: what `--shards` would make
   * for each of them is an RSA key and a certificate (~0.5 s of CPU per member).
   */
  freshKeys?: boolean;
  /** Also append everything the server prints to this file (a shared server's output, read from other processes). */
  logFile?: string;
}

export interface TestServer {
  /** `https://127.0.0.1:<port>` (no cluster prefix). */
  url: string;
  port: number;
  rootDir: string;
  /** Absolute path of `<rootDir>/admin.kubeconfig`, as printed by the server. */
  kubeconfig: string;
  /** Environment for kubectl: fresh HOME and KUBECACHEDIR, KUBECONFIG set. Merge over process.env. */
  env: Record<string, string>;
  /** Everything the server printed so far (stdout and stderr, interleaved). */
  output(): string;
  /** The etcd this server stores in, when it runs on etcd. */
  etcd?: LocalEtcd;
  /** The project's shared server (test/helpers/shared-server.ts): restart(), kill() and pid() are refused. */
  shared?: boolean;
  /** Stops the server (SIGTERM) and starts it again on the same root directory and port; resolves once ready. */
  restart(): Promise<void>;
  /** The server process's pid (the holder of `<root>/kcpt.lock`), for /proc readings and signals. */
  pid(): number;
  /** SIGKILLs the server (no shutdown of any kind) and waits for it to be gone; `restart()` brings it back. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/** A port that is free right now (see freePortRange: below the kernel's ephemeral range). */
export async function freePort(): Promise<number> {
  return freePortRange(1);
}

/** Whether the built `kcpt start` declares a flag (read from the oclif manifest the build writes). */
export function startCommandHasFlag(flag: string): boolean {
  const manifestPath = join(repoRoot, '.oclif.manifest.json');
  if (!existsSync(manifestPath)) return false;
  try {
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
      commands?: Record<string, { flags?: Record<string, unknown> }>;
    };
    return Boolean(manifest.commands?.start?.flags?.[flag]);
  } catch {
    return false;
  }
}

/** The shards of a sharded test server (`kcpt start --shards`), and the one of them that stores in etcd. */
export const shardedClusterShards = 3;
export const shardedEtcdShard = 'shard-2';

/**
 * The first of `count` consecutive ports that are all free right now, below Linux's ephemeral range (32768 and up):
 * there the kernel hands ports to outgoing connections between our probe and the shard's listen.
 */
async function freePortRange(count: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 10_000 + Math.floor(Math.random() * 22_000);
    const probes = await Promise.all(Array.from({ length: count }, (_, i) => portIsFree(base + i)));
    if (probes.every(Boolean)) return base;
  }
  throw new Error(`found no ${count} consecutive free ports`);
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolveFree) => {
    const probe = createServer();
    probe.unref();
    probe.once('error', () => resolveFree(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolveFree(true)));
  });
}

const readyLine = /export KUBECONFIG=("?)([^"\s]+)\1/;
const keptOutputChars = 256 * 1024;

/**
 * The test keys in the directories `kcpt start --shards <count>` gives its members (src/cli/start/dev-cluster.ts:
 * shards/<name>/ and front-proxy/), which keep what they find there: the CA is the one seeded into the root
 * directory, so every member still serves a certificate the deployment's CA signed.
 */
export async function seedMemberDirectories(rootDir: string, count: number): Promise<void> {
  const members = [...clusterShardNames(count).map((name) => join(rootDir, 'shards', name)), join(rootDir, 'front-proxy')];
  await Promise.all(
    members.map(async (dir) => {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await seedRootDirectory(dir);
    }),
  );
}

export async function startServer(opts: StartServerOptions = {}): Promise<TestServer> {
  const entry = join(repoRoot, 'dist', 'src', 'cli', 'start', 'fast-path.js');
  if (!existsSync(entry)) {
    throw new Error(`${entry} is missing: run \`npm run build\` before the e2e suites`);
  }
  const sharded = opts.sharded ?? (opts.storage === undefined && opts.etcd === undefined && process.env.KCPT_E2E_TOPOLOGY === 'sharded');
  // A sharded cluster listens on the proxy's port and the shards' ports right after it (also when a file asks
  // for `--shards N` itself).
  const shardsFlag = opts.extraArgs?.indexOf('--shards') ?? -1;
  const shardCount = sharded ? shardedClusterShards : shardsFlag >= 0 ? Number(opts.extraArgs![shardsFlag + 1]) : 0;
  const port = shardCount > 0 ? await freePortRange(shardCount + 1) : await freePort();
  const rootDir = opts.rootDir ?? (await mkdtemp(join(tmpdir(), 'kcpt-e2e-root-')));
  // A sharded cluster's shards make their root directories themselves (and must share one CA: `--shards` makes it).
  if (opts.rootDir === undefined && !opts.freshKeys && (await seedRootDirectory(rootDir)) && shardCount > 0) {
    await seedMemberDirectories(rootDir, shardCount);
  }
  const homeDir = await mkdtemp(join(tmpdir(), 'kcpt-e2e-home-'));
  const cacheDir = await mkdtemp(join(tmpdir(), 'kcpt-e2e-kubecache-'));
  const args = ['bin/run.js', 'start', '--root-directory', rootDir, '--secure-port', String(port)];
  if (opts.storage !== undefined) args.push('--storage', opts.storage);
  const useEtcd = sharded || (opts.etcd ?? (opts.storage === undefined && process.env.KCPT_E2E_STORAGE === 'etcd'));
  const etcd = useEtcd ? await startLocalEtcd() : undefined;
  if (sharded) args.push('--shards', String(shardedClusterShards), '--shard-etcd-servers', `${shardedEtcdShard}=${etcd!.endpoint}`);
  else if (etcd) args.push('--etcd-servers', etcd.endpoint);
  args.push(...(opts.extraArgs ?? []));

  let output = '';
  const append = (chunk: Buffer | string) => {
    output += chunk.toString();
    if (opts.logFile) appendFileSync(opts.logFile, chunk);
    if (output.length > keptOutputChars) output = output.slice(-keptOutputChars);
  };
  const describe = () =>
    `kcpt start (${['node', ...args].join(' ')})\n--- server output ---\n${output || '(nothing)'}\n---`;

  /** Spawns the server and resolves with the kubeconfig path it prints once ready. */
  const launch = (): { child: ResultPromise; ready: Promise<string> } => {
    const child: ResultPromise = execa('node', args, {
      cwd: repoRoot,
      buffer: false,
      reject: false,
      stdin: 'ignore',
      env: { HOME: homeDir, NO_COLOR: '1' },
    });
    child.stderr?.on('data', append);
    const ready = new Promise<string>((resolveReady, reject) => {
      let stdoutBuffer = '';
      let settled = false;
      const finish = (err: Error | null, path?: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (err) reject(err);
        else resolveReady(path!);
      };
      // On etcd the server first starts the etcd client's worker thread (loading etcd3 and gRPC, ~1 s of CPU, much
      // longer on a busy box) and waits for etcd's fsync on each bootstrap write.
      // A sharded cluster starts root, then the other shards, then the proxy that syncs with all of them.
      const timeoutMs = opts.readyTimeoutMs ?? (sharded ? 90_000 : useEtcd ? 45_000 : 20_000);
      const timer = setTimeout(
        () => finish(new Error(`server not ready after ${timeoutMs} ms: ${describe()}`)),
        timeoutMs,
      );
      child.stdout?.on('data', (chunk: Buffer) => {
        append(chunk);
        stdoutBuffer += chunk.toString();
        const match = readyLine.exec(stdoutBuffer);
        if (match) finish(null, match[2]);
      });
      void child.then((result) => {
        finish(
          new Error(
            `server exited before it was ready (exit code ${String(result.exitCode)}, signal ${String(result.signal)}): ${describe()}`,
          ),
        );
      });
    });
    return { child, ready };
  };

  const terminate = async (proc: ResultPromise) => {
    if (proc.exitCode !== null) return;
    proc.kill('SIGTERM');
    const killer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
    await proc;
    clearTimeout(killer);
  };

  let { child, ready } = launch();
  const kubeconfig = await ready.catch(async (err: unknown) => {
    // A sharded cluster's shards are child processes of the one started here: SIGTERM lets it stop them.
    if (sharded) await terminate(child);
    child.kill('SIGKILL');
    await child;
    await etcd?.stop();
    await Promise.all([rootDir, homeDir, cacheDir].map((dir) => rm(dir, { recursive: true, force: true })));
    throw err;
  });

  let stopped = false;
  return {
    url: `https://127.0.0.1:${port}`,
    port,
    rootDir,
    kubeconfig,
    env: { HOME: homeDir, KUBECACHEDIR: cacheDir, KUBECONFIG: kubeconfig, NO_COLOR: '1' },
    output: () => output,
    etcd,
    pid() {
      if (child.pid === undefined) throw new Error('the server process has no pid');
      return child.pid;
    },
    async kill() {
      if (sharded) throw new Error('kill() of a sharded cluster would leave its shards running: kill one shard by its pid instead');
      if (child.exitCode !== null) return;
      child.kill('SIGKILL');
      await child;
    },
    async restart() {
      if (stopped) throw new Error('restart() after stop()');
      await terminate(child);
      ({ child, ready } = launch());
      await ready;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await terminate(child);
      await etcd?.stop();
      await Promise.all([rootDir, homeDir, cacheDir].map((dir) => rm(dir, { recursive: true, force: true })));
    },
  };
}
