/**
 * The few questions the lifecycle commands ask a local kcpt server: is it ready (`GET /readyz`, no credentials)
 * and how many workspaces does it hold. Connections are verified against the server's own CA (`ca.crt` in its
 * root directory), so we know we reached *this* server and not whatever else answers on the port.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import path from 'node:path';

const CA_FILE = 'ca.crt';

export function readRootCA(rootDirectory: string): string | undefined {
  try {
    return readFileSync(path.join(rootDirectory, CA_FILE), 'utf8');
  } catch {
    return undefined;
  }
}

interface Answer {
  status: number;
  body: string;
}

function get(url: URL, opts: { ca?: string; token?: string; timeoutMs: number }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        ca: opts.ca,
        rejectUnauthorized: opts.ca !== undefined,
        agent: false,
        headers: { accept: 'application/json', ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.setTimeout(opts.timeoutMs, () => req.destroy(new Error(`no answer from ${url.origin} within ${opts.timeoutMs} ms`)));
    req.end();
  });
}

/** True when `<url>/readyz` answers 200 within `timeoutMs`; false on any other answer or a connection error. */
export async function isReady(url: string, ca: string | undefined, timeoutMs = 2_000): Promise<boolean> {
  try {
    return (await get(new URL('/readyz', url), { ca, timeoutMs })).status === 200;
  } catch {
    return false;
  }
}

/**
 * Number of Workspace objects in all logical clusters (root itself is not one). A wildcard list of one item as
 * a system:masters user: the server answers with the rest as `remainingItemCount`, without sending them.
 */
export async function countWorkspaces(url: string, ca: string | undefined, shardAdminToken: string): Promise<number> {
  const answer = await get(new URL('/clusters/*/apis/tenancy.kcp.io/v1alpha1/workspaces?limit=1', url), {
    ca,
    token: shardAdminToken,
    timeoutMs: 5_000,
  });
  if (answer.status !== 200) throw new Error(`listing workspaces answered ${answer.status}: ${statusMessage(answer.body)}`);
  const list = JSON.parse(answer.body) as { items?: unknown[]; metadata?: { remainingItemCount?: number } };
  return (list.items?.length ?? 0) + (list.metadata?.remainingItemCount ?? 0);
}

function statusMessage(body: string): string {
  try {
    return (JSON.parse(body) as { message?: string }).message ?? body;
  } catch {
    return body.slice(0, 200);
  }
}
