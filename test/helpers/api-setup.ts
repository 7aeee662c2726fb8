/**
 * Setup over the API instead of kubectl: logical clusters and workspaces a test needs but does not test, created with
 * the project's REST client (src/client) as a user of the server's admin.kubeconfig. A kubectl process costs a tenth
 * of a CPU-second; a request over a kept-alive connection, a few milliseconds. Tests whose subject is what kubectl
 * does (creating a workspace, `kubectl wait`) keep using kubectl.
 */
import { ApiError } from '../../src/client/errors.js';
import { KubeClient } from '../../src/client/http-client.js';
import { waitForObject } from '../../src/client/object-watch.js';
import { createWorkspace as postWorkspace, type Workspace } from '../../src/client/workspace-api.js';
import { waitFor } from '../../src/testing/wait-for.js';
import { readKubeconfig } from './http.js';
import type { TestServer } from './server.js';

/** A kubeconfig user of the server: kcp-admin, or shard-admin (system:masters, the `shard-base` context's). */
export type AdminUser = 'kcp-admin' | 'shard-admin';

/** Runs `use` with a client of the server as `user`; its requests share one connection, closed afterwards. */
export async function withClient<T>(server: TestServer, user: AdminUser, use: (client: KubeClient) => Promise<T>): Promise<T> {
  const config = readKubeconfig(server);
  const token = config.users.find((u) => u.name === user)?.user.token;
  if (!token) throw new Error(`user ${user} has no token in ${server.kubeconfig}`);
  const caData = config.clusters.find((c) => c.name === 'root')?.cluster['certificate-authority-data'];
  const client = new KubeClient({
    server: server.url,
    ca: caData ? Buffer.from(caData, 'base64') : undefined,
    insecureSkipTLSVerify: false,
    token,
  });
  try {
    return await use(client);
  } finally {
    client.close();
  }
}

/**
 * Creates a logical cluster as a system:masters user, exactly as the workspace controller will: the LogicalCluster
 * named `cluster` under /clusters/<name>. Then makes sure namespace `default` exists there (the server's controller
 * makes it; should a test look first, it is created as kcp-admin).
 */
export async function createLogicalCluster(server: TestServer, name: string): Promise<void> {
  await withClient(server, 'shard-admin', (shard) =>
    shard.post(`/clusters/${name}/apis/core.kcp.io/v1alpha1/logicalclusters`, {
      apiVersion: 'core.kcp.io/v1alpha1',
      kind: 'LogicalCluster',
      metadata: { name: 'cluster' },
    }),
  );
  const namespaces = `/clusters/${name}/api/v1/namespaces`;
  await withClient(server, 'kcp-admin', (admin) =>
    waitFor(
      async () => {
        try {
          await admin.get(`${namespaces}/default`);
          return true;
        } catch (err) {
          if (!(err instanceof ApiError && err.notFound && err.body?.details?.name === 'default')) throw err;
        }
        try {
          await admin.post(namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
        } catch (err) {
          if (!(err instanceof ApiError && err.alreadyExists)) throw err;
        }
        return true;
      },
      { timeout: 10_000, interval: 100, message: `logical cluster ${name} to serve namespace default` },
    ),
  );
}

const workspaces = '/apis/tenancy.kcp.io/v1alpha1/workspaces';

/**
 * Creates the Workspace `body` in `parentPath` as kcp-admin and resolves with it once its phase is `phase` (Ready by
 * default), watched from the create's answer on: no polling, no kubectl.
 */
export async function createWorkspaceByApi(server: TestServer, parentPath: string, body: Workspace, phase = 'Ready'): Promise<Workspace> {
  return withClient(server, 'kcp-admin', async (client) => {
    const created = await postWorkspace(client, parentPath, body);
    const reached = (ws: Workspace) => ws.status?.phase === phase;
    if (reached(created)) return created;
    return waitForObject(client, `/clusters/${parentPath}${workspaces}`, created, reached, {
      timeoutMs: 60_000,
      what: `workspace ${parentPath}:${body.metadata.name} to be ${phase}`,
    });
  });
}
