/**
 * `startServer`, what `kcpt start` and the programmatic API call: the options completed, the foundation opened from
 * the root directory, the parts assembled, then everything started in one list — caches, the listener, the objects
 * written at start and the controllers — and admin.kubeconfig written. Closing stops the list in reverse.
 *
 *   options.ts      completeOptions: defaults, checks, derived names (pure)
 *   foundation.ts   the root directory's lock, the store, certificates, tokens
 *   assembly.ts     every part, in dependency order, nothing started
 *   http-app.ts     the fastify app and its listener
 *   controllers.ts  the list of what runs, in start order
 *   lifecycle.ts    starts a list in order, stops it in reverse
 */
import path from 'node:path';
import { writeAdminKubeconfig, type AdminKubeconfigDocument } from '../auth/kubeconfig.js';
import { ADMIN_KUBECONFIG_FILE } from '../auth/token-store.js';
import { ServerAddress } from './address.js';
import { assembleServer } from './assembly.js';
import { serverComponents } from './controllers.js';
import { openFoundation } from './foundation.js';
import { serverApp } from './http-app.js';
import { Lifecycle } from './lifecycle.js';
import { completeOptions, type ServerOptions } from './options.js';

export type { ServerOptions } from './options.js';

export interface RunningServer {
  /** `https://host:port` */
  url: string;
  port: number;
  rootDirectory: string;
  kubeconfigPath: string;
  /** What `kubeconfigPath` holds (kcp-admin's and shard-admin's tokens, the CA), for callers in this process. */
  adminKubeconfig: AdminKubeconfigDocument;
  close(): Promise<void>;
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const config = completeOptions(options);
  // Shutdown goes on past a failing step: one must not leave the database open or the lock held.
  const lifecycle = new Lifecycle();
  try {
    const foundation = await openFoundation(config, lifecycle);
    const address = new ServerAddress();
    const server = assembleServer(config, foundation, address);
    await lifecycle.start(serverComponents(server, serverApp(server)));
    const kubeconfigPath = path.join(foundation.root, ADMIN_KUBECONFIG_FILE);
    const { certs, tokens } = foundation;
    const adminKubeconfig = await writeAdminKubeconfig({ path: kubeconfigPath, baseUrl: address.listenUrl, caCertPem: certs.caCertPem, tokens, batteries: config.batteries });
    server.readiness.ready = true;
    return {
      url: address.listenUrl,
      port: address.port,
      rootDirectory: foundation.root,
      kubeconfigPath,
      adminKubeconfig,
      close: () => lifecycle.stop(),
    };
  } catch (err) {
    await lifecycle.stop();
    throw err;
  }
}
