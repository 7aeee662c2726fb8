/**
 * Streams one client request to a backend and the answer back, untouched in both directions: the body is piped
 * as it arrives (protobuf or JSON alike), the response flows chunk by chunk (a watch stays open for as long as the
 * client or the shard keeps it), and the client's `Authorization` header goes along unchanged so the shard that
 * hosts the workspace authenticates and authorizes (kcpt's pass-through identity, shards-design.md).
 */
import http from 'node:http';
import https from 'node:https';
import { shardAgent, type ShardTls } from './shard-client.js';

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

/** A backend the proxy forwards to: resolved once, reused for every request (one keep-alive pool each). */
export class Backend {
  private readonly transport: typeof http | typeof https;
  private readonly agent: http.Agent;
  readonly hostname: string;
  readonly port: number;
  /** Path prefix of the backend URL (`''` for a bare host). */
  readonly pathPrefix: string;
  private readonly host: string;

  constructor(
    readonly baseURL: string,
    tls: ShardTls,
  ) {
    const url = new URL(baseURL);
    this.transport = url.protocol === 'http:' ? http : https;
    this.agent = shardAgent(baseURL, tls);
    this.hostname = url.hostname.replace(/^\[|\]$/g, '');
    this.port = Number(url.port || (url.protocol === 'http:' ? 80 : 443));
    this.pathPrefix = url.pathname.replace(/\/+$/, '');
    this.host = url.host;
  }

  close(): void {
    this.agent.destroy();
  }

  /**
   * Sends `req` to `path` (already including the query) on this backend and pipes the answer into `res`.
   * `onUnreachable` answers when nothing came back (connection refused, reset before the response head).
   */
  forward(req: http.IncomingMessage, res: http.ServerResponse, path: string, onUnreachable: (err: Error) => void): void {
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined && !hopByHop.has(name)) headers[name] = value;
    }
    headers.host = this.host;
    const upstream = this.transport.request({
      hostname: this.hostname,
      port: this.port,
      method: req.method,
      path: this.pathPrefix + path,
      headers,
      agent: this.agent,
    });
    let answered = false;
    upstream.on('response', (answer) => {
      answered = true;
      const out: http.OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(answer.headers)) {
        if (value !== undefined && !hopByHop.has(name)) out[name] = value;
      }
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, out);
      // Watch events must reach the client as the shard writes them, not when a buffer fills.
      res.flushHeaders();
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
    req.pipe(upstream);
  }
}
