/**
 * Per-connection deadlines, kube-apiserver's http.Server settings: a new connection must deliver a request's headers
 * within 32 s (ReadHeaderTimeout, "just shy of" the 34 s upper bound of a request), and a connection without a
 * request in progress is closed after 90 s idle (IdleTimeout). Node's own header and request timeouts do not apply
 * to the HTTP/1.1 connections of an HTTP/2 server (allowHTTP1), so both protocols are timed here, by absolute
 * deadlines: a client dripping header bytes (or HTTP/2 CONTINUATION frames) is not "active" in any sense that
 * counts. While a request is in progress the request timeout (request-deadline.ts) or, for watches, their own
 * timeout applies instead.
 */
import type http from 'node:http';
import type http2 from 'node:http2';
import type { Socket } from 'node:net';

export const HEADER_TIMEOUT_MS = 32_000;
export const IDLE_TIMEOUT_MS = 90_000;

/** The most concurrent streams one HTTP/2 connection may open (kube's default, matching client-go's). */
export const HTTP2_MAX_CONCURRENT_STREAMS = 100;

export interface ConnectionDeadlineOptions {
  headerTimeoutMs?: number;
  idleTimeoutMs?: number;
}

/** What one connection is doing: requests in progress, and the deadline armed while there are none. */
export class Deadline {
  private active = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly idleMs: number,
    private readonly expire: () => void,
    firstMs: number,
  ) {
    this.arm(firstMs);
  }

  started(): void {
    this.active += 1;
    this.disarm();
  }

  finished(): void {
    this.active = Math.max(0, this.active - 1);
    if (this.active === 0) this.arm(this.idleMs);
  }

  stop(): void {
    this.disarm();
  }

  private arm(ms: number): void {
    this.disarm();
    this.timer = setTimeout(this.expire, ms);
    this.timer.unref();
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

export function installConnectionDeadlines(server: http2.Http2SecureServer, options: ConnectionDeadlineOptions = {}): void {
  const headerMs = options.headerTimeoutMs ?? HEADER_TIMEOUT_MS;
  const idleMs = options.idleTimeoutMs ?? IDLE_TIMEOUT_MS;
  const http1 = new WeakMap<Socket, Deadline>();

  server.on('secureConnection', (socket: Socket & { alpnProtocol?: string | false }) => {
    if (socket.alpnProtocol === 'h2') return; // timed per session below
    const deadline = new Deadline(idleMs, () => socket.destroy(), headerMs);
    http1.set(socket, deadline);
    socket.once('close', () => deadline.stop());
  });

  server.on('session', (session: http2.ServerHttp2Session) => {
    const deadline = new Deadline(idleMs, () => session.destroy(), headerMs);
    session.on('stream', (stream: http2.ServerHttp2Stream) => {
      deadline.started();
      // A stream emits 'close' once: `on` spares every HTTP/2 request a once-wrapper and its removal.
      stream.on('close', () => deadline.finished());
    });
    session.once('close', () => deadline.stop());
  });

  // HTTP/1.1 requests arrive through the server's 'request' event (HTTP/2 ones too: those are counted per stream).
  server.on('request', (request: http.IncomingMessage | http2.Http2ServerRequest, response: http.ServerResponse | http2.Http2ServerResponse) => {
    if (request.httpVersionMajor !== 1) return;
    const deadline = http1.get(request.socket as Socket);
    if (!deadline) return;
    deadline.started();
    response.on('close', () => deadline.finished());
  });
}
