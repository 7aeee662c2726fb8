/**
 * `kcpt front-proxy`: one HTTPS endpoint in front of all shards. It serves with a certificate
 * from the deployment's CA (so one kubeconfig CA works direct and through it), keeps the shard index current from
 * watches, and forwards each request, identity included, to the shard hosting its workspace.
 */
import { readFile } from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { ensureServingCertificates } from '../auth/certificates.js';
import { acquireRootLock, prepareRootDirectory } from '../auth/root-directory.js';
import { HEADER_TIMEOUT_MS, IDLE_TIMEOUT_MS } from '../endpoints/connection-deadlines.js';
import { defaultHomeOptions, type HomeOptions } from '../tenancy/home-workspaces.js';
import { Backend } from './forwarder.js';
import { IndexController } from './index-controller.js';
import { loadMappingFile } from './mapping-file.js';
import { writeProxyKubeconfig } from './proxy-kubeconfig.js';
import { FrontProxyRouter } from './router.js';
import { PRIVILEGED_CONTEXT, readShardCredentials, ShardClient, type ShardCredentials } from '../shards/shard-client.js';
import { ShardIndex } from './shard-index.js';
import { TokenReviewer } from './token-reviewer.js';

export interface FrontProxyOptions {
  /** kubeconfig of the root shard, with a system:masters identity (kcpt's admin.kubeconfig works as it is). */
  rootKubeconfig: string;
  /** Context of `rootKubeconfig` to use (default `shard-base` when present, else the current context). */
  rootKubeconfigContext?: string;
  securePort: number;
  bindAddress: string;
  /** Serving certificate, CA and the proxy's admin.kubeconfig live here. */
  rootDirectory: string;
  mappingFile?: string;
  /** CA the shards serve with, if not the root kubeconfig's. */
  shardsCaFile?: string;
  /** Serving certificate and key files instead of ones issued from `<root-directory>/ca.{crt,key}`. */
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  /** Where to write the proxy's admin.kubeconfig (default `<root-directory>/admin.kubeconfig`). */
  kubeconfigPath?: string;
  /**
   * Shard name → unix socket the shard serves plaintext on (its `--proxy-socket`): requests for that shard go
   * there instead of over TLS to its baseURL. For shards on this machine only; a socket that is missing makes
   * the shard's workspaces answer 503, like a shard that is down.
   */
  shardSockets?: ReadonlyMap<string, string>;
  /** Home workspace layout of the shards (for `user:<name>` and `~`). */
  homes?: HomeOptions;
  log?: (line: string) => void;
}

export interface RunningFrontProxy {
  url: string;
  port: number;
  rootDirectory: string;
  /** The proxy's admin.kubeconfig: the root kubeconfig's users, every server pointed at the proxy. */
  kubeconfigPath: string;
  index: ShardIndex;
  /** Resolves once every shard was listed once (what /readyz waits for). */
  synced(): Promise<void>;
  close(): Promise<void>;
}

export async function startFrontProxy(options: FrontProxyOptions): Promise<RunningFrontProxy> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const root = await prepareRootDirectory(options.rootDirectory, { onWarning: (m) => log(`warning: ${m}`) });
  const credentials = readShardCredentials(options.rootKubeconfig, { flag: '--root-kubeconfig', context: options.rootKubeconfigContext, preferContext: PRIVILEGED_CONTEXT });
  // One process per directory, and `kcpt stop --root-directory` finds it by this lock.
  const releaseLock = acquireRootLock(root);
  try {
    return await serve(options, root, credentials, log, releaseLock);
  } catch (err) {
    releaseLock();
    throw err;
  }
}

async function serve(
  options: FrontProxyOptions,
  root: string,
  credentials: ShardCredentials,
  log: (line: string) => void,
  releaseLock: () => void,
): Promise<RunningFrontProxy> {
  const mapping = options.mappingFile ? loadMappingFile(options.mappingFile) : undefined;
  if (mapping && mapping.ignoredFields.length > 0) {
    log(`front-proxy: ${options.mappingFile}: ${mapping.ignoredFields.join(', ')} ignored (kcpt forwards the caller's Authorization header)`);
  }
  const [tls, shardsCaPem] = await Promise.all([servingTls(options, root), options.shardsCaFile ? readFile(options.shardsCaFile, 'utf8') : undefined]);

  const homes = options.homes ?? defaultHomeOptions;
  const controller = new IndexController({ credentials, shardsCaPem, log }, new ShardIndex(homes));
  const backendTls = { caPem: shardsCaPem ?? credentials.caPem, insecure: credentials.insecure };
  const backends = new Map<string, Backend>();
  const shardSockets = options.shardSockets ?? new Map<string, string>();
  // The shard a base URL belongs to, for its socket (asked once per base URL: backends are kept).
  const socketOf = (baseURL: string) => {
    const shard = controller.index.shardNames().find((name) => controller.index.baseURLOf(name) === baseURL);
    return shard === undefined ? undefined : shardSockets.get(shard);
  };
  const backendFor = (baseURL: string, caPem?: string) => {
    let backend = backends.get(baseURL);
    if (!backend) backends.set(baseURL, (backend = new Backend(baseURL, caPem ? { caPem } : backendTls, caPem ? undefined : socketOf(baseURL))));
    return backend;
  };
  const reviewClient = new ShardClient(credentials);
  const router = new FrontProxyRouter({
    index: controller.index,
    backendFor,
    reviewer: new TokenReviewer(reviewClient),
    homes,
    mappings: mapping?.mappings ?? [],
    resolveClusters: mapping ? mapping.resolveClusters : true,
    isReady: () => controller.isSynced(),
    log,
    ...(credentials.token ? { ownAuthorization: `Bearer ${credentials.token}` } : {}),
  });
  // The TLS handshake gets the header deadline, as on a shard (http-app.ts's httpsOptions), not node's 120 s.
  const server = https.createServer({ key: tls.keyPem, cert: tls.certPem, keepAlive: true, handshakeTimeout: HEADER_TIMEOUT_MS }, (req, res) => void router.handle(req, res));
  // Watches live as long as their clients want: no request timeout, as the shards have none.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  // An idle client connection stays open as long as on a shard (kube's 90 s IdleTimeout), not Node's 5 s: a client
  // reusing a connection the server is closing at that moment loses its request ("socket hang up"), and Go clients
  // retry only idempotent methods. Clients keep idle connections for 90 s (client-go) or less.
  server.keepAliveTimeout = IDLE_TIMEOUT_MS;
  controller.start();
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.securePort, options.bindAddress, () => resolve());
    });
  } catch (err) {
    await controller.stop();
    throw err;
  }
  const port = (server.address() as AddressInfo).port;
  const host = options.bindAddress.includes(':') ? `[${options.bindAddress}]` : options.bindAddress;
  const url = `https://${host}:${port}`;
  const kubeconfigPath = options.kubeconfigPath ?? path.join(root, 'admin.kubeconfig');
  await writeProxyKubeconfig({ from: options.rootKubeconfig, to: kubeconfigPath, proxyUrl: url, caPem: tls.caPem });

  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    rootDirectory: root,
    kubeconfigPath,
    index: controller.index,
    async synced() {
      while (!controller.isSynced()) await new Promise((r) => setTimeout(r, 20));
    },
    close() {
      closing ??= (async () => {
        server.closeIdleConnections();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        // Open watches would keep close() waiting forever: end them.
        server.closeAllConnections();
        await controller.stop();
        for (const backend of backends.values()) backend.close();
        reviewClient.close();
        await closed;
        releaseLock();
      })();
      return closing;
    },
  };
}

async function servingTls(options: FrontProxyOptions, root: string): Promise<{ keyPem: string; certPem: string; caPem: string }> {
  if (options.tlsCertFile || options.tlsPrivateKeyFile) {
    if (!options.tlsCertFile || !options.tlsPrivateKeyFile) throw new Error('--tls-cert-file and --tls-private-key-file go together');
    const [certPem, keyPem] = await Promise.all([readFile(options.tlsCertFile, 'utf8'), readFile(options.tlsPrivateKeyFile, 'utf8')]);
    // The chain's last certificate is the best guess of a CA clients need.
    const caPem = certPem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)?.at(-1) ?? certPem;
    return { certPem, keyPem, caPem: `${caPem}\n` };
  }
  const certs = await ensureServingCertificates(root, { hosts: [options.bindAddress] });
  return { keyPem: certs.keyPem, certPem: certs.certPem, caPem: certs.caCertPem };
}
