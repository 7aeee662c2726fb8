/**
 * A sharded kcpt on loopback for e2e suites: one shared CA (as a real deployment has: every shard and the front-proxy
 * serve certificates it signed, so one kubeconfig CA works everywhere), a root shard, and non-root shards started
 * with `--shard-name shard-<i> --root-shard-kubeconfig`, each with its own root directory and store.
 */
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { CA_CERT_FILE, CA_KEY_FILE, ensureServingCertificates } from '../../src/engine/auth/certificates.js';
import { seedRootDirectory } from '../../src/testing/key-cache.js';
import { startServer, type StartServerOptions, type TestServer } from './server.js';

export interface SharedPki {
  /** Directory holding the deployment's `ca.crt` and `ca.key`. */
  dir: string;
  caCertFile: string;
  /** A new directory (under the PKI's) holding a copy of the CA: a shard's or the proxy's root directory. */
  rootDirectory(name: string): Promise<string>;
  remove(): Promise<void>;
}

/**
 * One CA for a deployment, in a fresh temporary directory: the test keys kcpt/testing keeps (src/testing/key-cache.ts),
 * whose serving certificate and service-account key every member's directory gets too, as startServer gives a
 * single server (no e2e test depends on a member's keys being its own; generating them costs ~0.5 s of CPU per
 * member). Where that cache cannot be used, a CA generated here, and each member makes its own keys.
 */
export async function prepareSharedPki(): Promise<SharedPki> {
  const dir = await mkdtemp(join(tmpdir(), 'kcpt-e2e-pki-'));
  const seeded = await seedRootDirectory(dir);
  // Else the CA kcpt generates for itself (a serving certificate comes with it, unused here).
  if (!seeded) await ensureServingCertificates(dir, { hosts: [] });
  return {
    dir,
    caCertFile: join(dir, CA_CERT_FILE),
    async rootDirectory(name) {
      const root = join(dir, name);
      await mkdir(root, { recursive: true, mode: 0o700 });
      if (seeded) await seedRootDirectory(root);
      else await Promise.all([CA_CERT_FILE, CA_KEY_FILE].map((f) => copyFile(join(dir, f), join(root, f))));
      return root;
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/**
 * A copy of root's admin.kubeconfig whose current context is `shard-base` (the shard admin, `system:masters`): what
 * shards use to reach root and each other (kcp's shards use a privileged identity for this too).
 */
export async function writeRootShardKubeconfig(root: TestServer, file: string): Promise<string> {
  const doc = parseYaml(await readFile(root.kubeconfig, 'utf8')) as Record<string, unknown>;
  doc['current-context'] = 'shard-base';
  await writeFile(file, toYaml(doc), { mode: 0o600 });
  return file;
}

export interface ShardedCluster {
  pki: SharedPki;
  root: TestServer;
  /** shard-1 … shard-N (index 0 is shard-1). */
  shards: TestServer[];
  rootShardKubeconfig: string;
  stop(): Promise<void>;
}

export interface ShardedClusterOptions {
  /** Non-root shards besides root (default 2). */
  shards?: number;
  /** Extra `kcpt start` flags for every server (e.g. --token-auth-file). */
  extraArgs?: string[];
  /** Extra flags per non-root shard (index 0 is shard-1), e.g. --shard-external-url. */
  shardArgs?: (index: number) => string[];
  rootArgs?: string[];
  storage?: StartServerOptions['storage'];
  /** Which shards store in a throwaway etcd of their own (by name: `root`, `shard-1`, …); default as startServer decides. */
  etcd?: (shard: string) => boolean | undefined;
}

/** Starts root, then the non-root shards (in parallel), all trusting one CA. */
export async function startShardedCluster(opts: ShardedClusterOptions = {}): Promise<ShardedCluster> {
  const pki = await prepareSharedPki();
  const started: TestServer[] = [];
  try {
    const root = await startServer({
      rootDir: await pki.rootDirectory('root'),
      storage: opts.storage,
      etcd: opts.etcd?.('root'),
      extraArgs: [...(opts.extraArgs ?? []), ...(opts.rootArgs ?? [])],
    });
    started.push(root);
    const rootShardKubeconfig = await writeRootShardKubeconfig(root, join(pki.dir, 'root-shard.kubeconfig'));
    const shards = await Promise.all(
      Array.from({ length: opts.shards ?? 2 }, async (_, i) => {
        const name = `shard-${i + 1}`;
        const shard = await startServer({
          rootDir: await pki.rootDirectory(name),
          storage: opts.storage,
          etcd: opts.etcd?.(name),
          extraArgs: [
            '--shard-name',
            name,
            '--root-shard-kubeconfig',
            rootShardKubeconfig,
            ...(opts.extraArgs ?? []),
            ...(opts.shardArgs?.(i) ?? []),
          ],
        });
        started.push(shard);
        return shard;
      }),
    );
    return {
      pki,
      root,
      shards,
      rootShardKubeconfig,
      async stop() {
        await Promise.all(started.map((s) => s.stop()));
        await pki.remove();
      },
    };
  } catch (err) {
    await Promise.all(started.map((s) => s.stop()));
    await pki.remove();
    throw err;
  }
}
