/**
 * Streams one client request to a backend and the answer back, untouched in both directions: the body is piped
 * as it arrives (protobuf or JSON alike), the response flows chunk by chunk (a watch stays open for as long as the
 * client or the shard keeps it), and the client's `Authorization` header goes along unchanged so the shard that
 * hosts the workspace authenticates and authorizes (kcpt's pass-through identity, shards-design.md).
 */
import http from 'node:http';
import https from 'node:https';
import { Pool } from 'undici';
import { shardAgent, type ShardTls } from '../shards/shard-client.js';

/** Concurrent requests to one backend (node's agent and undici's pool alike). */
const MAX_CONNECTIONS_PER_BACKEND = 256;

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
  // node's server has already answered the client's 100-continue; undici refuses to send the header on.
  'expect',
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
  /**
   * The pool `forward` sends through (undici; `request`, for the few answers the proxy reads itself, keeps node's
   * client). Its own keep-alive connections, so a backend has two pools; the second is idle unless fan-out runs.
   */
  private readonly dispatcher: Pool;
  private readonly origin: string;
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
      this.agent = shardAgent('http://localhost', tls, MAX_CONNECTIONS_PER_BACKEND);
      this.target = { socketPath };
      this.origin = 'http://localhost';
    } else {
      this.transport = url.protocol === 'http:' ? http : https;
      this.agent = shardAgent(baseURL, tls, MAX_CONNECTIONS_PER_BACKEND);
      this.target = { hostname: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || (url.protocol === 'http:' ? 80 : 443)) };
      this.origin = url.origin;
    }
    this.dispatcher = new Pool(this.origin, {
      connect: socketPath ? { socketPath } : { ...(tls.caPem ? { ca: tls.caPem } : {}), rejectUnauthorized: !tls.insecure },
      // As the agent: at most this many requests to one shard at once, the rest wait for a connection.
      connections: MAX_CONNECTIONS_PER_BACKEND,
      keepAliveTimeout: 30_000,
      // Also when a shard advertises a longer idle limit (90 s): close idle connections well before the shard does.
      keepAliveMaxTimeout: 30_000,
      // Watches stay open for as long as the client wants, and their first event may be minutes away; the
      // shards have no request timeout either.
      headersTimeout: 0,
      bodyTimeout: 0,
    });
  }

  /** How requests reach this backend, for messages: the socket when there is one. */
  get address(): string {
    return this.socketPath ? `${this.baseURL} via unix:${this.socketPath}` : this.baseURL;
  }

  close(): void {
    this.agent.destroy();
    void this.dispatcher.destroy().catch(() => {});
  }

  /** A request of the proxy's own to `path` on this backend (for answers it merges rather than streams). */
  request(method: string, path: string, headers: Record<string, string>, onResponse: (answer: http.IncomingMessage) => void): http.ClientRequest {
    const upstream = this.transport.request({ ...this.target, method, path: this.pathPrefix + path, headers: { ...headers, host: this.host }, agent: this.agent }, onResponse);
    upstream.end();
    return upstream;
  }

  /**
   * Sends `req` to `path` (already including the query) on this backend and streams the answer into `res`.
   * `onUnreachable` answers when nothing came back (connection refused, reset before the response head).
   *
   * This is the proxy's hot path, so it goes through undici's dispatcher rather than node's http client: no
   * ClientRequest/IncomingMessage pair and no header objects per request, the raw header lists are handed
   * through (about a third of the proxy's CPU per GET was node's client machinery).
   */
  forward(req: http.IncomingMessage, res: http.ServerResponse, path: string, onUnreachable: (err: Error) => void): void {
    const streaming = isWatch(path);
    const headers = endToEnd(req.rawHeaders);
    headers.push('host', this.host);
    const length = req.headers['content-length'];
    // Most requests (GET, watch, DELETE) carry no body: nothing to stream from the client.
    const hasBody = req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
    let abort: ((err?: Error) => void) | undefined;
    let answered = false;
    let done = false;
    // The client went away (a watch closed, a request cancelled): stop the shard's side too.
    res.on('close', () => {
      if (!done) abort?.(new Error('client closed the connection'));
    });
    this.dispatcher.dispatch(
      { origin: this.origin, method: req.method ?? 'GET', path: this.pathPrefix + path, headers, body: hasBody ? req : null },
      {
        onConnect(abortRequest) {
          abort = abortRequest;
          if (res.destroyed) abortRequest(new Error('client closed the connection'));
        },
        onHeaders(statusCode, rawHeaders, resume, statusText) {
          // 1xx (a 100 Continue the shard sends): node's server already answered the client's own.
          if (statusCode < 200) return true;
          answered = true;
          res.writeHead(statusCode, statusText, endToEndRaw(rawHeaders));
          // A watch's headers go out at once (its first event may be minutes away); any other answer's headers
          // leave with its body, in one TLS write instead of two.
          if (streaming) res.flushHeaders();
          res.on('drain', resume);
          return true;
        },
        onData(chunk) {
          if (!streaming && !res.headersSent) {
            // Head and first chunk (usually the whole body, and the end right after it in the same tick) in one
            // TLS record and one write: uncorked, node writes the head and the body separately.
            const socket = res.socket;
            socket?.cork();
            process.nextTick(() => socket?.uncork());
          }
          // false pauses the shard's side until the client has taken what is buffered ('drain' resumes).
          return res.write(chunk);
        },
        onComplete() {
          done = true;
          res.end();
        },
        onError(err) {
          done = true;
          if (!answered && !res.headersSent) onUnreachable(err);
          else res.destroy(err);
        },
      },
    );
  }
}

/** `?watch=true|1` or the deprecated `/watch/` path segment. */
function isWatch(path: string): boolean {
  return /[?&]watch=(true|1)(&|$)/.test(path) || path.includes('/watch/');
}

/** undici's raw `[name, value, …]` buffers as the string list `writeHead` takes, without hop-by-hop headers. */
function endToEndRaw(raw: Buffer[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toString('latin1');
    if (!hopByHop.has(name.toLowerCase())) out.push(name, raw[i + 1]!.toString('latin1'));
  }
  return out;
}

/** The raw `[name, value, …]` list without hop-by-hop headers: no per-request header objects built and re-read. */
function endToEnd(raw: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    if (!hopByHop.has(raw[i]!.toLowerCase())) out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}
