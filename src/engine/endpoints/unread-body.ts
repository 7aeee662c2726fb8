/**
 * A request answered before its body arrived (refused by the request gate or the in-flight limit, timed out): the
 * rest of the body is not waited for. Node would otherwise keep reading and discarding it for as long as the client
 * cares to send, one byte at a time if it likes; kube's Go server likewise closes such a connection. HTTP/1.1 loses
 * the connection (its bytes can no longer frame a next request), HTTP/2 only the stream.
 */
import http2 from 'node:http2';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

type RawRequest = FastifyRequest['raw'] & { stream?: http2.ServerHttp2Stream };

/** Whether the client is still sending the request's body. */
export function bodyStillArriving(request: FastifyRequest): boolean {
  const raw = request.raw as RawRequest;
  const stream = raw.stream;
  // A request framed without a body has none to wait for, although an answer written synchronously from its headers
  // (nothing awaited on the way) comes before Node marks it complete. A body read to its end has nothing left to
  // arrive either (fastify's inject: its requests never read as `complete`, and its socket cannot be paused).
  if (!stream) return !raw.complete && !raw.readableEnded && hasBody(raw.headers);
  if (stream.destroyed || stream.endAfterHeaders) return false;
  try {
    return !stream.state.remoteClose;
  } catch {
    return false;
  }
}

/** HTTP/1.1 framing (RFC 9112 6.3): a request has a body only with a Transfer-Encoding or a non-zero Content-Length. */
function hasBody(headers: http2.IncomingHttpHeaders): boolean {
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = headers['content-length'];
  return length !== undefined && length !== '0';
}

/**
 * How long a connection is half-closed before it is dropped: a client still sending reads the answer and the end of
 * the connection first, instead of a reset that can discard the answer unread (Go's net/http waits 500 ms likewise).
 */
const LINGER_MS = 500;

/** Drops the connection (HTTP/1.1) or stream (HTTP/2) a request's unread body is arriving on. */
export function abandonBody(request: FastifyRequest): void {
  const raw = request.raw as RawRequest;
  if (raw.stream) return void raw.stream.close(http2.constants.NGHTTP2_CANCEL);
  if (raw.socket) lingerThenClose(raw.socket);
}

/**
 * Drops the stream (HTTP/2) or connection (HTTP/1.1) of an answer its client has not taken: the bytes buffered for it
 * are freed and its response closes (giving its in-flight slot back). No linger: the client is not reading.
 */
export function abandonAnswer(request: FastifyRequest): void {
  const raw = request.raw as RawRequest;
  if (raw.stream) return void raw.stream.close(http2.constants.NGHTTP2_CANCEL);
  raw.socket?.destroy();
}

/**
 * Ends the connection without taking in more of the body (the client's window closes: it stalls rather than gets a
 * reset that would discard the answer unread), then drops it after LINGER_MS.
 */
function lingerThenClose(socket: Socket): void {
  if (socket.destroyed) return;
  socket.pause();
  socket.end();
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}

/**
 * Before an answer goes out (an onSend step): on an HTTP/1.1 connection whose request body is still arriving, the
 * answer says `Connection: close`, and Node's end of the connection lingers instead of destroying it at once.
 */
export function cutOffUnreadBody(request: FastifyRequest, reply: FastifyReply): void {
  const raw = request.raw as RawRequest;
  if (!raw.stream && raw.socket && bodyStillArriving(request)) {
    reply.header('connection', 'close');
    const socket = raw.socket as Socket & { destroySoon?: () => void };
    socket.destroySoon = () => lingerThenClose(socket);
  }
}

/** Once an answer is out (the server's request-admission 'close' listener): a body still arriving is abandoned. */
export function abandonUnreadBody(request: FastifyRequest): void {
  if (bodyStillArriving(request)) abandonBody(request);
}

/** After every answer: a body still arriving is abandoned. (The server runs both steps in its own hook and listener, http-app.ts.) */
export function installUnreadBodyCutoff(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    cutOffUnreadBody(request, reply);
    done(null, payload);
  });
  app.addHook('onResponse', (request, _reply, done) => {
    abandonUnreadBody(request);
    done();
  });
}
