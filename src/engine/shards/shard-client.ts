/**
 * How a member of the deployment talks to a shard for itself, not for a client: one shard to another (registering
 * its Shard in root, TokenReviews, creating and watching logical clusters elsewhere) with the credentials of
 * `--root-shard-kubeconfig`, and the front-proxy to every shard (listing and watching its Workspaces and
 * LogicalClusters, TokenReviews at root) with those of `--root-kubeconfig`. JSON over HTTPS with a bearer token
 * and the deployment's CA (one CA for every shard's base URL), over one keep-alive agent per client.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https, { request } from 'node:https';
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

/** A request to a shard failed: it answered `status` (a non-2xx), or, without a status, could not be reached. */
export class ShardRequestError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** A shard could not be reached at all (connection refused, TLS failure, timeout). */
export class ShardUnreachableError extends ShardRequestError {}

export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: Record<string, unknown>;
}

export interface ShardTls {
  caPem?: string;
  insecure?: boolean;
}

/** A keep-alive agent for requests to `baseURL`: https trusting the deployment's CA, or plain http. */
export function shardAgent(baseURL: string, tls: ShardTls, maxSockets = 256): http.Agent {
  const options = { keepAlive: true, maxSockets, keepAliveMsecs: 30_000 };
  if (baseURL.startsWith('http:')) return new http.Agent(options);
  return new https.Agent({ ...options, ...(tls.caPem ? { ca: tls.caPem } : {}), rejectUnauthorized: !tls.insecure });
}

/** A kcpt admin.kubeconfig's context for the shard-admin user (system:masters), which may make wildcard requests. */
export const PRIVILEGED_CONTEXT = 'shard-base';

export interface ReadCredentialsOptions {
  /** The flag the file came from, for messages (default `--root-shard-kubeconfig`). */
  flag?: string;
  /** The context to read (default: `preferContext` if the file has it, else the current context). */
  context?: string;
  preferContext?: string;
}

/**
 * The server, CA and bearer token of one context of a kubeconfig file (inline data or files, as kubectl reads them).
 * The server's `/clusters/…` suffix is dropped: requests name their cluster themselves.
 */
export function readShardCredentials(file: string, options: ReadCredentialsOptions = {}): ShardCredentials {
  const where = `${options.flag ?? '--root-shard-kubeconfig'} ${file}`;
  let doc: Record<string, any>;
  try {
    doc = (parseYaml(readFileSync(file, 'utf8')) ?? {}) as Record<string, any>;
  } catch (err) {
    throw new Error(`${where}: ${(err as Error).message}`);
  }
  const named = (list: unknown, name: string) => (Array.isArray(list) ? list.find((e) => e?.name === name) : undefined);
  const preferred = options.preferContext && named(doc.contexts, options.preferContext) ? options.preferContext : undefined;
  const contextName = (options.context ?? preferred ?? doc['current-context']) as string | undefined;
  const context = contextName ? named(doc.contexts, contextName)?.context : undefined;
  if (!context) throw new Error(`${where} has no context ${JSON.stringify(contextName ?? '')}`);
  const cluster = named(doc.clusters, context.cluster)?.cluster;
  const user = named(doc.users, context.user)?.user ?? {};
  if (!cluster?.server) throw new Error(`${where}: context ${contextName} names no cluster with a server`);
  const fromData = (data?: string, path?: string) =>
    data ? Buffer.from(data, 'base64').toString('utf8') : path ? readFileSync(path, 'utf8') : undefined;
  const token = user?.token ?? (user?.tokenFile ? readFileSync(user.tokenFile, 'utf8').trim() : undefined);
  if (!token) throw new Error(`${where}: context ${contextName}'s user has no bearer token (kcpt shards authenticate with tokens)`);
  return {
    rootUrl: String(cluster.server).replace(/\/clusters\/[^/]+\/?$/, '').replace(/\/+$/, ''),
    caPem: fromData(cluster['certificate-authority-data'], cluster['certificate-authority']),
    token,
    insecure: cluster['insecure-skip-tls-verify'] === true,
  };
}

export class ShardClient {
  private readonly agent: http.Agent;

  /** `baseUrl`: where the relative paths of requestJson and watch go (default: the root shard). */
  constructor(
    readonly credentials: ShardCredentials,
    readonly baseUrl = credentials.rootUrl,
  ) {
    this.agent = shardAgent(baseUrl, credentials, 16);
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

  /** GET, or POST of `body`, at `baseUrl + path`, answered with JSON (a non-2xx is thrown with its Status message). */
  async requestJson<T>(path: string, body?: unknown): Promise<T> {
    const method = body === undefined ? 'GET' : 'POST';
    const res = await this.call<T>(method, this.baseUrl + path, body);
    if (res.status < 200 || res.status > 299) {
      throw new ShardRequestError(`${method} ${this.baseUrl}${path}: ${res.status} ${statusMessage(res as ShardResponse)}`, res.status);
    }
    return res.body;
  }

  /**
   * Streams a watch of `baseUrl + path`; resolves when the stream ends (the shard closed it, or `signal` aborted
   * it). Events arrive one JSON object per line, as kube's watch encoder writes them.
   */
  async watch(path: string, onEvent: (event: WatchEvent) => void, signal: AbortSignal): Promise<void> {
    const url = this.baseUrl + path;
    const res = await this.openStream(url);
    if (res.statusCode !== 200) {
      res.resume();
      throw new ShardRequestError(`watch ${url}: ${res.statusCode}`, res.statusCode);
    }
    const abort = () => res.destroy();
    signal.addEventListener('abort', abort, { once: true });
    let pending = '';
    try {
      for await (const chunk of res) {
        pending += (chunk as Buffer).toString('utf8');
        let newline;
        while ((newline = pending.indexOf('\n')) !== -1) {
          const line = pending.slice(0, newline);
          pending = pending.slice(newline + 1);
          if (line.trim()) onEvent(JSON.parse(line) as WatchEvent);
        }
      }
    } catch (err) {
      if (!signal.aborted) throw new ShardRequestError(`watch ${url}: ${(err as Error).message}`);
    } finally {
      signal.removeEventListener('abort', abort);
    }
  }

  /** The response head of a GET whose body is read as it arrives (no read timeout: a watch idles between events). */
  private openStream(url: string): Promise<http.IncomingMessage> {
    return new Promise((resolve, reject) => {
      const req = request(
        url,
        { agent: this.agent, headers: { accept: 'application/json', ...(this.credentials.token ? { authorization: `Bearer ${this.credentials.token}` } : {}) } },
        resolve,
      );
      req.on('error', (err) => reject(new ShardUnreachableError(`watch ${url}: ${err.message}`)));
      req.end();
    });
  }
}

/** The message of a Status body, for logs and conditions. */
export function statusMessage(res: ShardResponse): string {
  const message = (res.body as { message?: unknown }).message;
  return typeof message === 'string' ? message : `HTTP ${res.status}`;
}
