/**
 * `startControlPlane()`: a kcpt server inside the test process, on a random port of 127.0.0.1 with a temporary
 * root directory, and the admin's credentials to reach it. `stop()` closes every connection and timer it opened
 * and removes the temporary directory, so a test runner's process is left as it was.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { KubeClient } from '../client/http-client.js';
import { startServer } from '../engine/server/index.js';
import type { SharedAgents } from './client-node.js';
import { seedRootDirectory, testBindAddress } from './key-cache.js';
import { createTestWorkspace, type TestWorkspace, type WorkspaceOptions } from './workspace.js';
import { WorkspaceReadiness } from './workspace-readiness.js';

export interface ControlPlaneOptions {
  /** Where objects live: in memory (default, fastest) or in a SQLite file in the root directory. */
  storage?: 'memory' | 'sqlite';
  /** kcpt always serves HTTPS with its own CA (the kubeconfigs carry it). */
  tls?: true;
  /** Use this root directory (kept after stop) instead of a temporary one (removed by stop). */
  rootDirectory?: string;
  /** Port on 127.0.0.1 (default: a free one). */
  port?: number;
  /** Copy cached test keys into the root directory instead of generating them (default true; see key-cache.ts). */
  reuseKeys?: boolean;
  /** Server messages (default: dropped). */
  log?: (line: string) => void;
}

/** A kubeconfig file as kcpt wrote it, and its contents. */
export interface KubeconfigFile {
  object: Record<string, unknown>;
  path: string;
}

export interface ControlPlane {
  /** `https://127.0.0.1:PORT` */
  url: string;
  port: number;
  rootDirectory: string;
  /** admin.kubeconfig: contexts `root`, `base` and `system:admin`, users kcp-admin and shard-admin. */
  kubeconfig: KubeconfigFile;
  /** The kcp-admin bearer token (allowed everywhere). */
  adminToken: string;
  /** The CA certificate (PEM) the server's certificate is signed with. */
  caCertPem: string;
  /** A fresh Ready workspace, with its CRDs Established and APIBindings Bound. */
  workspace(options?: WorkspaceOptions): Promise<TestWorkspace>;
  stop(): Promise<void>;
}

interface AdminKubeconfig {
  clusters?: { name: string; cluster: { 'certificate-authority-data'?: string } }[];
  users?: { name: string; user: { token?: string } }[];
}

export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  if ((options.tls as boolean | undefined) === false) throw new Error('startControlPlane: kcpt serves only HTTPS; leave tls unset');
  const temporary = options.rootDirectory === undefined;
  const root = options.rootDirectory ?? (await mkdtemp(path.join(os.tmpdir(), 'kcpt-test-')));
  const cleanups: Array<() => unknown> = [];
  if (temporary) cleanups.push(() => rm(root, { recursive: true, force: true }));
  try {
    if (temporary && options.reuseKeys !== false) await seedRootDirectory(root);
    const server = await startServer({
      rootDirectory: root,
      securePort: options.port ?? 0,
      bindAddress: testBindAddress,
      storage: options.storage === 'sqlite' ? '' : 'memory://',
      log: options.log ?? (() => {}),
    });
    cleanups.unshift(() => server.close());

    // The document the server just wrote to kubeconfigPath (reading the YAML back cost ~20 ms of start-up).
    const config: AdminKubeconfig = server.adminKubeconfig;
    const tokenOf = (user: string) => config.users?.find((u) => u.name === user)?.user.token ?? '';
    const adminToken = tokenOf('kcp-admin');
    const caCertPem = Buffer.from(config.clusters?.[0]?.cluster['certificate-authority-data'] ?? '', 'base64').toString('utf8');
    const clientAs = (token: string) => new KubeClient({ server: server.url, ca: Buffer.from(caCertPem), insecureSkipTLSVerify: false, token });
    const client = clientAs(adminToken);
    cleanups.unshift(() => client.close());
    // Watching workspaces in every logical cluster is for system:masters, i.e. the shard admin.
    const shardClient = clientAs(tokenOf('shard-admin'));
    cleanups.unshift(() => shardClient.close());
    const readiness = new WorkspaceReadiness(shardClient);
    cleanups.unshift(() => readiness.stop());
    await readiness.start();

    const kubeconfigDirectory = path.join(root, 'workspaces');
    await mkdir(kubeconfigDirectory, { recursive: true, mode: 0o700 });
    const agents: SharedAgents = new Map();
    cleanups.unshift(() => {
      for (const agent of agents.values()) agent.destroy();
    });
    const ctx = { baseUrl: server.url, caCertPem, adminToken, client, readiness, kubeconfigDirectory, agents };
    let stopping: Promise<void> | undefined;
    return {
      url: server.url,
      port: server.port,
      rootDirectory: root,
      kubeconfig: { object: config as Record<string, unknown>, path: server.kubeconfigPath },
      adminToken,
      caCertPem,
      workspace: (opts) => createTestWorkspace(ctx, opts),
      stop() {
        stopping ??= runAll(cleanups);
        return stopping;
      },
    };
  } catch (err) {
    await runAll(cleanups);
    throw err;
  }
}

async function runAll(cleanups: Array<() => unknown>): Promise<void> {
  for (const cleanup of cleanups) {
    try {
      await cleanup();
    } catch {
      // Stopping goes on: the server must close and the directory go even if one step fails.
    }
  }
}
