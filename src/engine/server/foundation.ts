/**
 * The foundation everything else stands on, opened from the root directory: its lock (one server per directory),
 * the store with its compactor, the CA and serving certificate, the admin tokens, `--token-auth-file` and the
 * service-account signing key. What is opened here is closed by the lifecycle, after everything built on it.
 */
import { ensureServingCertificates, type ServingCertificates } from '../auth/certificates.js';
import { acquireRootLock, prepareRootDirectory } from '../auth/root-directory.js';
import { loadTokenAuthFile } from '../auth/token-file.js';
import { loadOrCreateAdminTokens, type AdminTokens, type TokenEntry } from '../auth/token-store.js';
import { loadOrCreateServiceAccountKey, type ServiceAccountKey } from '../auth/service-account-key.js';
import { proxySocketPath } from '../shards/proxy-socket.js';
import { readShardCredentials, type ShardCredentials } from '../shards/shard-client.js';
import { openStore, startCompactor } from '../storage/index.js';
import type { Store } from '../storage/store.js';
import { workspaceStorageReferences } from '../tenancy/storage-references.js';
import type { Lifecycle } from './lifecycle.js';
import type { ServerConfig } from './options.js';

export interface Foundation {
  /** The root directory, absolute. */
  root: string;
  /** Where the plaintext proxy socket listens, when asked for. */
  proxySocketPath?: string;
  store: Store;
  certs: ServingCertificates;
  tokens: AdminTokens;
  /** `--token-auth-file`'s users. */
  tokenFileEntries: TokenEntry[];
  serviceAccountKey: ServiceAccountKey;
  /** A non-root shard's way to root (`--root-shard-kubeconfig`). */
  rootShard?: ShardCredentials;
}

export async function openFoundation(config: ServerConfig, lifecycle: Lifecycle): Promise<Foundation> {
  const { log } = config;
  // Read before anything is opened: a wrong kubeconfig is a start-up error, not a shard that cannot reach root.
  const rootShard = config.shard.rootShardKubeconfig ? readShardCredentials(config.shard.rootShardKubeconfig) : undefined;
  const root = await prepareRootDirectory(config.rootDirectory, { onWarning: (m) => log(`warning: ${m}`) });
  const socketPath = config.proxySocket ? proxySocketPath(root, config.proxySocket) : undefined;
  await lifecycle.open('root-lock', () => acquireRootLock(root), (release) => release());
  const store = await lifecycle.open(
    'store',
    () =>
      openStore(config.storage, root, {
        keepNewestRevisions: config.watchHistory.minRevisions,
        // The objects every workspace has are stored compressed against samples of themselves (a few hundred bytes each).
        valueReferences: workspaceStorageReferences(),
      }),
    (store) => store.close(),
  );
  await lifecycle.open(
    'compactor',
    () => startCompactor(store, { retentionMs: config.watchHistory.retentionMs, intervalMs: config.watchHistory.compactionIntervalMs }),
    (stop) => stop(),
  );
  const [certs, tokens, tokenFileEntries, serviceAccountKey] = await Promise.all([
    ensureServingCertificates(root, { hosts: config.certificateHosts }),
    loadOrCreateAdminTokens(root, { withUser: config.batteries.has('user') }),
    config.tokenAuthFile ? loadTokenAuthFile(config.tokenAuthFile) : Promise.resolve([]),
    loadOrCreateServiceAccountKey(root),
  ]);
  return { root, proxySocketPath: socketPath, store, certs, tokens, tokenFileEntries, serviceAccountKey, rootShard };
}
