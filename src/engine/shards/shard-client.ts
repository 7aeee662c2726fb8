/**
 * How one shard talks to another (registering its Shard in root, TokenReviews, creating and watching logical
 * clusters elsewhere): JSON over HTTPS with the credentials of `--root-shard-kubeconfig` (its current context's
 * bearer token and CA; the deployment shares one CA, so the same trust works for every shard's base URL).
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { parse as parseYaml } from 'yaml';

export interface ShardCredentials {
  /** The root shard's URL (the kubeconfig cluster's server, without any `/clusters/…` suffix). */
  rootUrl: string;
  /** PEM CA bundle trusted for every shard. */
  caPem?: string;
  token?: string;
  insecure?: boolean;
}

export interface ShardResponse<T = Record<string, unknown>> {
  status: number;
  body: T;
}

/** A shard could not be reached at all (connection refused, TLS failure, timeout). */
export class ShardUnreachableError extends Error {}

/** The current context's server, CA and token of a kubeconfig file (inline data or files, as kubectl reads them). */
export function readShardCredentials(file: string): ShardCredentials {
  let doc: Record<string, any>;
  try {
    doc = parseYaml(readFileSync(file, 'utf8')) as Record<string, any>;
  } catch (err) {
    throw new Error(`--root-shard-kubeconfig ${file}: ${(err as Error).message}`);
  }
  const named = (list: unknown, name: string) => (Array.isArray(list) ? list.find((e) => e?.name === name) : undefined);
  const contextName = doc?.['current-context'] as string | undefined;
  const context = contextName ? named(doc.contexts, contextName)?.context : undefined;
  const cluster = context ? named(doc.clusters, context.cluster)?.cluster : undefined;
  const user = context ? (named(doc.users, context.user)?.user ?? {}) : undefined;
  if (!cluster?.server) throw new Error(`--root-shard-kubeconfig ${file}: its current context names no cluster with a server`);
  const fromData = (data?: string, path?: string) =>
    data ? Buffer.from(data, 'base64').toString('utf8') : path ? readFileSync(path, 'utf8') : undefined;
  const token = user?.token ?? (user?.tokenFile ? readFileSync(user.tokenFile, 'utf8').trim() : undefined);
  if (!token) throw new Error(`--root-shard-kubeconfig ${file}: its current context's user has no bearer token (kcpt shards authenticate with tokens)`);
  return {
    rootUrl: new URL(cluster.server).origin,
    caPem: fromData(cluster['certificate-authority-data'], cluster['certificate-authority']),
    token,
    insecure: cluster['insecure-skip-tls-verify'] === true,
  };
}

export class ShardClient {
  private readonly agent: Agent;

  constructor(readonly credentials: ShardCredentials) {
    this.agent = new Agent({ keepAlive: true, maxSockets: 16, ca: credentials.caPem, rejectUnauthorized: !credentials.insecure });
  }

  /** A request to the root shard. */
  root<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<ShardResponse<T>> {
    return this.call<T>(method, `${this.credentials.rootUrl}${path}`, body);
  }

  /** A request to any URL of the deployment (another shard's base URL + path). */
  call<T = Record<string, unknown>>(
    method: string,
    url: string,
    body?: unknown,
    timeoutMs = 10_000,
    headers: Record<string, string> = {},
  ): Promise<ShardResponse<T>> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    return new Promise((resolve, reject) => {
      const req = request(
        url,
        {
          method,
          agent: this.agent,
          headers: {
            ...headers,
            accept: 'application/json',
            ...(this.credentials.token ? { authorization: `Bearer ${this.credentials.token}` } : {}),
            ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
          },
          timeout: timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown = {};
            try {
              parsed = text ? JSON.parse(text) : {};
            } catch {
              parsed = { message: text };
            }
            resolve({ status: res.statusCode ?? 0, body: parsed as T });
          });
          res.on('error', (err) => reject(new ShardUnreachableError(`${method} ${url}: ${err.message}`)));
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer in ${timeoutMs} ms`)));
      req.on('error', (err) => reject(new ShardUnreachableError(`${method} ${url}: ${err.message}`)));
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** The message of a Status body, for logs and conditions. */
export function statusMessage(res: ShardResponse): string {
  const message = (res.body as { message?: unknown }).message;
  return typeof message === 'string' ? message : `HTTP ${res.status}`;
}
