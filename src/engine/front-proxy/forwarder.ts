/**
 * Streams one client request to a backend and the answer back, untouched in both directions: the body is piped
 * as it arrives (protobuf or JSON alike), the response flows chunk by chunk (a watch stays open for as long as the
 * client or the shard keeps it), and the client's `Authorization` header goes along unchanged so the shard that
 * hosts the workspace authenticates and authorizes (kcpt's pass-through identity, shards-design.md).
 */
import http from 'node:http';
import https from 'node:https';
import { shardAgent, type ShardTls } from '../shards/shard-client.js';

/** Headers that describe one hop, not the request (RFC 9110 §7.6.1), plus the ones the proxy sets itself. */
const hopByHop = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
]);

/**
 * A backend the proxy forwards to: resolved once, reused for every request (one keep-alive pool each). With a
 * `socketPath` (the shard's `--proxy-socket` on this machine), requests go there in plaintext instead of over TLS
 * to `baseURL`; the Host header still names `baseURL`'s host, as the shard's own URL.
 */
export class Backend {
  private readonly transport: typeof http | typeof https;
  private readonly agent: http.Agent;
  /** Where requests connect: `{ socketPath }` or `{ hostname, port }`. */
  private readonly target: http.RequestOptions;
  /** Path prefix of the backend URL (`''` for a bare host). */
  readonly pathPrefix: string;
  private readonly host: string;

  constructor(
    readonly baseURL: string,
    tls: ShardTls,
    readonly socketPath?: string,
  ) {
    const url = new URL(baseURL);
    this.pathPrefix = url.pathname.replace(/\/+$/, '');
    this.host = url.host;
    if (socketPath) {
      this.transport = http;
      this.agent = shardAgent('http://localhost', tls);
      this.target = { socketPath };
    } else {
      this.transport = url.protocol === 'http:' ? http : https;
      this.agent = shardAgent(baseURL, tls);
      this.target = { hostname: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || (url.protocol === 'http:' ? 80 : 443)) };
    }
  }

  /** How requests reach this backend, for messages: the socket when there is one. */
  get address(): string {
    return this.socketPath ? `${this.baseURL} via unix:${this.socketPath}` : this.baseURL;
  }

  close(): void {
    this.agent.destroy();
  }

  /** A request of the proxy's own to `path` on this backend (for answers it merges rather than streams). */
  request(method: string, path: string, headers: Record<string, string>, onResponse: (answer: http.IncomingMessage) => void): http.ClientRequest {
    const upstream = this.transport.request({ ...this.target, method, path: this.pathPrefix + path, headers: { ...headers, host: this.host }, agent: this.agent }, onResponse);
    upstream.end();
    return upstream;
  }

  /**
   * Sends `req` to `path` (already including the query) on this backend and pipes the answer into `res`.
   * `onUnreachable` answers when nothing came back (connection refused, reset before the response head).
   */
  forward(req: http.IncomingMessage, res: http.ServerResponse, path: string, onUnreachable: (err: Error) => void): void {
    const streaming = isWatch(path);
    const headers = endToEnd(req.rawHeaders);
    headers.push('host', this.host);
    const upstream = this.transport.request({
      ...this.target,
      method: req.method,
      path: this.pathPrefix + path,
      headers,
      agent: this.agent,
    });
    let answered = false;
    upstream.on('response', (answer) => {
      answered = true;
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.rawHeaders));
      // A watch's headers go out at once (its first event may be minutes away); any other answer's headers leave
      // with its body, in one TLS write instead of two.
      if (streaming) res.flushHeaders();
      answer.pipe(res);
      answer.on('error', () => res.destroy());
    });
    upstream.on('error', (err) => {
      if (!answered && !res.headersSent) onUnreachable(err);
      else res.destroy(err);
    });
    // The client went away (a watch closed, a request cancelled): stop the shard's side too.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    // Most requests (GET, watch, DELETE) carry no body: end at once rather than wiring up a pipe for nothing.
    const length = req.headers['content-length'];
    if (req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')) req.pipe(upstream);
    else upstream.end();
  }
}

/** `?watch=true|1` or the deprecated `/watch/` path segment. */
function isWatch(path: string): boolean {
  return /[?&]watch=(true|1)(&|$)/.test(path) || path.includes('/watch/');
}

/** The raw `[name, value, …]` list without hop-by-hop headers: no per-request header objects built and re-read. */
function endToEnd(raw: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    if (!hopByHop.has(raw[i]!.toLowerCase())) out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}
