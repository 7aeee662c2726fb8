/**
 * The e2e projects' shared server (kcp's SharedKcpServer): one `kcpt start` per project, started by
 * shared-server-setup.ts, used by every file that does not need a server of its own. Tests stay hermetic by
 * workspace and by name (a fresh workspace, a logical cluster or uniquely named objects per test), never by owning
 * the server. A test that restarts, reconfigures, kills or fills a server starts a private one (`startServer`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { startServer, type StartServerOptions, type TestServer } from './server.js';
import { tokenFileLines } from './users.js';

/** What shared-server-setup.ts provides to the project's test files. */
export interface SharedServerHandle {
  /** Where server.json (or error.txt) appears once the server is ready (or failed to start). */
  dir: string;
  project: string;
}

/** The shared server, once ready (server.json). */
export interface SharedServerDescriptor {
  url: string;
  port: number;
  rootDir: string;
  kubeconfig: string;
  etcdEndpoint?: string;
  sharded: boolean;
  logFile: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    kcptSharedServer: SharedServerHandle;
  }
}

/** The flags every shared server starts with: the token users of test/helpers/users.ts. */
export async function sharedServerArgs(dir: string): Promise<string[]> {
  const file = join(dir, 'tokens.csv');
  await writeFile(file, tokenFileLines(), { mode: 0o600 });
  return ['--token-auth-file', file];
}

/** How long a file waits for the shared server (a sharded one is four processes and an etcd, on a busy box). */
const readyTimeoutMs = 240_000;

/**
 * The project's shared server, once it is ready, with a HOME and KUBECACHEDIR of this caller's own (removed by
 * stop(), which leaves the server running). It cannot be restarted or killed: that takes a private server.
 */
export async function sharedServer(): Promise<TestServer> {
  const handle = inject('kcptSharedServer') as SharedServerHandle | undefined;
  if (!handle) {
    throw new Error('this vitest project has no shared server: test/helpers/shared-server-setup.ts must be its globalSetup (vitest.config.ts)');
  }
  const descriptor = await waitForDescriptor(handle);
  const homeDir = await mkdtemp(join(tmpdir(), 'kcpt-e2e-home-'));
  const cacheDir = await mkdtemp(join(tmpdir(), 'kcpt-e2e-kubecache-'));
  const privateOnly = (what: string) => () => {
    throw new Error(`${what}: the shared server is everyone's; start a private one with startServer() (test/helpers/server.ts)`);
  };
  return {
    url: descriptor.url,
    port: descriptor.port,
    rootDir: descriptor.rootDir,
    kubeconfig: descriptor.kubeconfig,
    env: { HOME: homeDir, KUBECACHEDIR: cacheDir, KUBECONFIG: descriptor.kubeconfig, NO_COLOR: '1' },
    output: () => (existsSync(descriptor.logFile) ? readFileSync(descriptor.logFile, 'utf8') : ''),
    etcd:
      descriptor.etcdEndpoint === undefined
        ? undefined
        : {
            name: 'shared',
            endpoint: descriptor.etcdEndpoint,
            pid: 0,
            dataDir: '',
            output: () => '',
            start: privateOnly('starting the shared etcd'),
            stop: privateOnly('stopping the shared etcd'),
          },
    shared: true,
    restart: privateOnly('restart()'),
    kill: privateOnly('kill()'),
    pid: privateOnly('pid()'),
    async stop() {
      await Promise.all([homeDir, cacheDir].map((dir) => rm(dir, { recursive: true, force: true })));
    },
  };
}

async function waitForDescriptor(handle: SharedServerHandle): Promise<SharedServerDescriptor> {
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    const error = await readFile(join(handle.dir, 'error.txt'), 'utf8').catch(() => undefined);
    if (error !== undefined) throw new Error(`the ${handle.project} project's shared server did not start: ${error}`);
    const ready = await readFile(join(handle.dir, 'server.json'), 'utf8').catch(() => undefined);
    if (ready !== undefined) return JSON.parse(ready) as SharedServerDescriptor;
    if (Date.now() > deadline) throw new Error(`the ${handle.project} project's shared server was not ready after ${readyTimeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface ServerChoice extends StartServerOptions {
  /** A server of this file's own even when nothing else asks for one (it restarts, kills or fills it). */
  private?: boolean;
}

/**
 * Whether a file's tests may use the project's shared server: they ask for nothing of their own (flags, storage, a
 * root directory, fresh keys, `private: true`; a sharded cluster is the e2e-sharded project's shared server), and
 * the project has one.
 */
export function canShare(opts: ServerChoice): boolean {
  const { private: own, sharded, ...rest } = opts;
  if (own || Object.values(rest).some((v) => v !== undefined)) return false;
  if (sharded !== undefined && sharded !== (process.env.KCPT_E2E_TOPOLOGY === 'sharded')) return false;
  return inject('kcptSharedServer') !== undefined;
}

/** The shared server when the file can use it (canShare), else a private one started with these options. */
export async function e2eServer(opts: ServerChoice = {}): Promise<TestServer> {
  if (canShare(opts)) return sharedServer();
  const { private: _own, ...start } = opts;
  return startServer(start);
}
