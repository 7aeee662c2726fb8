/**
 * The few questions the lifecycle commands ask a local kcpt server: is it ready (`GET /readyz`, no credentials)
 * and how many workspaces does it hold. Connections are verified against the server's own CA (`ca.crt` in its
 * root directory), so we know we reached *this* server and not whatever else answers on the port.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { KubeClient } from '../../client/http-client.js';

const CA_FILE = 'ca.crt';

export function readRootCA(rootDirectory: string): Buffer | undefined {
  try {
    return readFileSync(path.join(rootDirectory, CA_FILE));
  } catch {
    return undefined;
  }
}

function client(url: string, ca: Buffer | undefined, token?: string): KubeClient {
  // Without the CA (someone removed ca.crt) we cannot verify, and a readiness probe is no reason to trust blindly.
  return new KubeClient({ server: url, ca, insecureSkipTLSVerify: false, token });
}

/** True when `<url>/readyz` answers 200; false on any other answer or a connection error. */
export async function isReady(url: string, ca: Buffer | undefined): Promise<boolean> {
  const probe = client(url, ca);
  try {
    return await readyOn(probe);
  } finally {
    probe.close();
  }
}

async function readyOn(api: KubeClient): Promise<boolean> {
  try {
    await api.get('/readyz');
    return true;
  } catch {
    return false;
  }
}

export interface Probe {
  ready: boolean;
  workspaces?: number;
  /** Why the workspaces could not be counted. */
  error?: string;
}

/**
 * Readiness, then the number of Workspace objects in all logical clusters (root itself is not one), over one
 * connection. The count is a wildcard list of one item as a system:masters user: the server answers with the
 * rest as `remainingItemCount`, without sending them.
 */
export async function probeServer(url: string, ca: Buffer | undefined, shardAdminToken: () => string): Promise<Probe> {
  let token: string;
  try {
    token = shardAdminToken();
  } catch (err) {
    return { ready: await isReady(url, ca), error: (err as Error).message };
  }
  const api = client(url, ca, token);
  try {
    if (!(await readyOn(api))) return { ready: false };
    const list = await api.get<{ items?: unknown[]; metadata?: { remainingItemCount?: number } }>(
      '/clusters/*/apis/tenancy.kcp.io/v1alpha1/workspaces',
      { query: { limit: 1 } },
    );
    return { ready: true, workspaces: (list.items?.length ?? 0) + (list.metadata?.remainingItemCount ?? 0) };
  } catch (err) {
    return { ready: true, error: (err as Error).message };
  } finally {
    api.close();
  }
}
