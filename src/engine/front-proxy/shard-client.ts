/**
 * How the front-proxy talks to one shard for itself (not for its clients): JSON GETs and watch streams with the
 * proxy's own credentials, over one keep-alive agent per shard that trusts the deployment's CA.
 */
import https from 'node:https';
import http from 'node:http';
import type { Credentials } from './kubeconfig-credentials.js';

export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: Record<string, unknown>;
}

export class ShardRequestError extends Error {
  constructor(
    message: string,
    /** HTTP status when the shard answered; undefined when it could not be reached. */
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface ShardTls {
  caPem?: string;
  insecureSkipTLSVerify?: boolean;
}

/** An agent for requests to shards at `baseURL`; https with the deployment's CA, or plain http. */
export function shardAgent(baseURL: string, tls: ShardTls): http.Agent {
  const options = { keepAlive: true, maxSockets: 256, keepAliveMsecs: 30_000 };
  if (baseURL.startsWith('http:')) return new http.Agent(options);
  return new https.Agent({ ...options, ...(tls.caPem ? { ca: tls.caPem } : {}), rejectUnauthorized: !tls.insecureSkipTLSVerify });
}

export class ShardClient {
  private readonly agent: http.Agent;

  constructor(
    readonly baseURL: string,
    private readonly credentials: Pick<Credentials, 'token' | 'caPem' | 'insecureSkipTLSVerify'>,
  ) {
    this.agent = shardAgent(baseURL, credentials);
  }

  close(): void {
    this.agent.destroy();
  }

  private open(path: string, timeoutMs: number, body?: unknown): Promise<http.IncomingMessage> {
    const url = new URL(this.baseURL + path);
    const transport = url.protocol === 'http:' ? http : https;
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = transport.request(
        url,
        {
          method: payload === undefined ? 'GET' : 'POST',
          agent: this.agent,
          headers: {
            accept: 'application/json',
            ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
            ...(this.credentials.token ? { authorization: `Bearer ${this.credentials.token}` } : {}),
          },
          timeout: timeoutMs,
        },
        resolve,
      );
      req.on('timeout', () => req.destroy(new Error(`no answer from ${this.baseURL} in ${timeoutMs} ms`)));
      req.on('error', (err) => reject(new ShardRequestError(`${this.baseURL}: ${err.message}`)));
      req.end(payload);
    });
  }

  /** GET, or POST of `body`, answered with JSON (a non-2xx answer is thrown with the Status message). */
  async requestJson<T>(path: string, body?: unknown): Promise<T> {
    const res = await this.open(path, 10_000, body);
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    if (res.statusCode === undefined || res.statusCode < 200 || res.statusCode > 299) {
      let message = text;
      try {
        message = (JSON.parse(text) as { message?: string }).message ?? text;
      } catch {
        // not a Status: keep the text
      }
      throw new ShardRequestError(`${body === undefined ? 'GET' : 'POST'} ${this.baseURL}${path}: ${res.statusCode} ${message}`, res.statusCode);
    }
    return JSON.parse(text) as T;
  }

  /**
   * Streams a watch; resolves when the stream ends (server closed it, or `signal` aborted it). Events arrive one
   * JSON object per line, as kube's watch encoder writes them.
   */
  async watch(path: string, onEvent: (event: WatchEvent) => void, signal: AbortSignal): Promise<void> {
    // The socket idles between events for as long as nothing changes: no read timeout on a watch.
    const res = await this.open(path, 0);
    if (res.statusCode !== 200) {
      res.resume();
      throw new ShardRequestError(`watch ${this.baseURL}${path}: ${res.statusCode}`, res.statusCode);
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
      if (!signal.aborted) throw new ShardRequestError(`watch ${this.baseURL}${path}: ${(err as Error).message}`);
    } finally {
      signal.removeEventListener('abort', abort);
    }
  }
}
