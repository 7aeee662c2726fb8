/**
 * A small Kubernetes REST client over node:https: the kubeconfig's CA, token, basic auth or client certificate,
 * JSON in and out, kube's Status errors, client-go's retry of 429 answers that carry Retry-After (kcp answers the
 * home workspace with one while it is being created), and watches read as a stream of events. One keep-alive agent
 * per client, so a command's requests share a TLS connection; close() lets the process exit at once. node:https is
 * loaded on the first request (~15 ms of Node's own module loading that commands which only read the kubeconfig
 * should not pay).
 */
import type { Agent } from 'node:https';
import type { Agent as HttpAgent, IncomingMessage } from 'node:http';
import { ApiError, ConnectionError, type StatusBody } from './errors.js';
import { importExternal } from './external-import.js';
import type { Connection } from './connection.js';

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Content-Type of the body (JSON by default). */
  contentType?: string;
  /** Aborting it ends the request (and a watch) with an AbortError. */
  signal?: AbortSignal;
  /** Accept header instead of plain JSON (e.g. a server-side printed Table). */
  accept?: string;
}

/** One line of a watch stream. ERROR events are thrown as ApiError instead of being yielded. */
export interface WatchEvent<T> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';
  object: T;
}

export type ResponseHeaders = Record<string, string | string[] | undefined>;

/** client-go's default number of retries for 429 + Retry-After. */
const maxRetries = 10;
const requestTimeoutMs = 60_000;

export class KubeClient {
  /** The server URL with any `/clusters/…` suffix removed (a proxy path prefix is kept), without a trailing slash. */
  readonly baseUrl: string;
  private transport: Promise<{ agent: Agent | HttpAgent; send: typeof import('node:https').request }> | undefined;
  private agent: Agent | HttpAgent | undefined;
  private readonly secure: boolean;
  private readonly headers: Record<string, string>;

  constructor(private readonly connection: Connection) {
    this.baseUrl = baseUrlOf(connection.server);
    this.secure = this.baseUrl.startsWith('https:');
    this.headers = { Accept: 'application/json', 'User-Agent': 'kcpt' };
    if (connection.token) this.headers.Authorization = `Bearer ${connection.token}`;
    else if (connection.basicAuth) {
      const { username, password } = connection.basicAuth;
      this.headers.Authorization = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
    }
  }

  /** `/clusters/<path><rest>` under the base URL. */
  clusterUrlPath(clusterPath: string, rest = ''): string {
    return `/clusters/${clusterPath}${rest}`;
  }

  get<T>(path: string, opts: RequestOptions = {}): Promise<T> {
    return this.request<T>('GET', path, opts);
  }

  post<T>(path: string, body: unknown, opts: RequestOptions = {}): Promise<T> {
    return this.request<T>('POST', path, { ...opts, body });
  }

  async request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    return (await this.requestWithHeaders<T>(method, path, opts)).body;
  }

  /** A request whose answer's headers matter too (e.g. the workspace index saying how much it lists). */
  async requestWithHeaders<T>(method: string, path: string, opts: RequestOptions = {}): Promise<{ body: T; headers: ResponseHeaders }> {
    for (let attempt = 0; ; attempt++) {
      const res = await this.once(method, path, opts);
      if (res.status === 429 && attempt < maxRetries) {
        const retryAfter = Number(res.headers['retry-after']);
        if (Number.isFinite(retryAfter) && retryAfter > 0) {
          await new Promise((r) => setTimeout(r, Math.min(retryAfter, 10) * 1000));
          continue;
        }
      }
      if (res.status >= 200 && res.status < 300) return { body: parseJson(res.text) as T, headers: res.headers };
      throw apiErrorOf(res.status, res.text);
    }
  }

  /**
   * A watch on `path` (a collection; narrow it with a fieldSelector): its events as they arrive, until the server
   * ends the stream (its timeoutSeconds), the consumer stops iterating, or opts.signal aborts. A non-2xx answer and
   * an ERROR event (e.g. 410 Gone for a resourceVersion too old) throw ApiError.
   */
  async *watch<T>(path: string, opts: RequestOptions = {}): AsyncGenerator<WatchEvent<T>> {
    // No idle timeout: a watch is quiet until something changes (the server ends it after timeoutSeconds).
    const res = await this.send('GET', path, { ...opts, query: { ...opts.query, watch: true } }, 0);
    try {
      if (res.statusCode !== 200) throw apiErrorOf(res.statusCode ?? 0, await readText(res));
      res.setEncoding('utf8');
      let pending = '';
      for await (const chunk of res as AsyncIterable<string>) {
        pending += chunk;
        for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
          const line = pending.slice(0, nl).trim();
          pending = pending.slice(nl + 1);
          if (!line) continue;
          const event = JSON.parse(line) as { type: string; object: unknown };
          if (event.type === 'ERROR') {
            const status = event.object as StatusBody;
            throw new ApiError(status.code ?? 500, status, '');
          }
          yield event as WatchEvent<T>;
        }
      }
    } catch (err) {
      // The connection dropping mid-stream is a network failure like any other; ours and the caller's pass through.
      if (err instanceof ApiError || (err as Error).name === 'AbortError') throw err;
      throw new ConnectionError((err as Error).message);
    } finally {
      res.destroy();
    }
  }

  /**
   * Streams a GET's body into `destination` (written as `<destination>.partial`, renamed once complete, so a failed
   * download never leaves a file that looks whole). Returns the answer's headers; a non-2xx answer throws ApiError.
   */
  async download(path: string, destination: string, opts: RequestOptions = {}): Promise<ResponseHeaders> {
    const res = await this.send('GET', path, opts);
    if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) throw apiErrorOf(res.statusCode ?? 0, await readText(res));
    // Through the lent import(): this may run from the code-cached CLI bundle, where a plain import() has no loader.
    const [{ createWriteStream }, { rename, rm }, { pipeline }] = await Promise.all([
      importExternal<typeof import('node:fs')>('node:fs'),
      importExternal<typeof import('node:fs/promises')>('node:fs/promises'),
      importExternal<typeof import('node:stream/promises')>('node:stream/promises'),
    ]);
    const partial = `${destination}.partial`;
    try {
      await pipeline(res, createWriteStream(partial, { mode: 0o600 }));
      await rename(partial, destination);
    } catch (err) {
      await rm(partial, { force: true });
      throw (err as NodeJS.ErrnoException).code ? err : new ConnectionError((err as Error).message);
    }
    return res.headers;
  }

  close(): void {
    this.agent?.destroy();
  }

  private loadTransport(): Promise<{ agent: Agent | HttpAgent; send: typeof import('node:https').request }> {
    this.transport ??= (async () => {
      const c = this.connection;
      if (this.secure) {
        // node:https comes with the agent's module: bundled, it is a plain require (no ES module loader).
        const { createHttpsAgent, httpsRequest } = await import('./https-agent.js');
        const agent = createHttpsAgent(c);
        this.agent = agent;
        return { agent, send: httpsRequest };
      }
      const http = await importExternal<typeof import('node:http')>('node:http');
      const agent = new http.Agent({ keepAlive: true });
      this.agent = agent;
      return { agent, send: http.request as typeof import('node:https').request };
    })();
    return this.transport;
  }

  private async once(method: string, path: string, opts: RequestOptions): Promise<{ status: number; headers: ResponseHeaders; text: string }> {
    const res = await this.send(method, path, opts);
    return { status: res.statusCode ?? 0, headers: res.headers, text: await readText(res) };
  }

  /** Sends the request; resolves with the response once its headers arrived (the body is the caller's to read). */
  private async send(method: string, path: string, opts: RequestOptions, idleTimeoutMs = requestTimeoutMs): Promise<IncomingMessage> {
    const url = new URL(this.baseUrl + path);
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const body = opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    const headers: Record<string, string> = { ...this.headers };
    if (opts.accept) headers.Accept = opts.accept;
    if (body !== undefined) {
      headers['Content-Type'] = opts.contentType ?? 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(body));
    }
    const { agent, send } = await this.loadTransport();
    return new Promise((resolve, reject) => {
      const req = send(url, { method, headers, agent, timeout: idleTimeoutMs || undefined, signal: opts.signal }, resolve);
      req.on('timeout', () => req.destroy(new Error(`request to ${url.host} timed out after ${idleTimeoutMs / 1000}s`)));
      req.on('error', (err: NodeJS.ErrnoException) => reject(err.name === 'AbortError' ? err : new ConnectionError(describeNetworkError(err, url))));
      req.end(body);
    });
  }
}

function readText(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', (err) => reject(new ConnectionError(err.message)));
  });
}

/** A non-2xx answer as an ApiError: its Status body when it has one, else the text. */
function apiErrorOf(status: number, text: string): ApiError {
  const parsed = parseJson(text);
  const body = parsed && (parsed as StatusBody).kind === 'Status' ? (parsed as StatusBody) : undefined;
  return new ApiError(status, body, body ? '' : text);
}

/** The part of a server URL before `/clusters/`, as kcp's plugins compute the base (a path prefix is kept). */
export function baseUrlOf(server: string): string {
  const url = new URL(server);
  const at = url.pathname.indexOf('/clusters/');
  const path = at >= 0 ? url.pathname.slice(0, at) : url.pathname;
  return `${url.protocol}//${url.host}${path.replace(/\/+$/, '')}`;
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function describeNetworkError(err: NodeJS.ErrnoException, url: URL): string {
  switch (err.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${url.host}: connect: connection refused`;
    case 'ENOTFOUND':
      return `dial tcp: lookup ${url.hostname}: no such host`;
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
      return `tls: failed to verify certificate: x509: certificate signed by unknown authority (${err.code})`;
    default:
      return err.message;
  }
}
