/**
 * A request answered before its body arrived (refused by the request gate or the in-flight limit, timed out): the
 * rest of the body is not waited for. Node would otherwise keep reading and discarding it for as long as the client
 * cares to send, one byte at a time if it likes; kube's Go server likewise closes such a connection. HTTP/1.1 loses
 * the connection (its bytes can no longer frame a next request), HTTP/2 only the stream.
 */
import http2 from 'node:http2';
import type { FastifyInstance, FastifyRequest } from 'fastify';

type RawRequest = FastifyRequest['raw'] & { stream?: http2.ServerHttp2Stream };

/** Whether the client is still sending the request's body. */
export function bodyStillArriving(request: FastifyRequest): boolean {
  const raw = request.raw as RawRequest;
  const stream = raw.stream;
  if (!stream) return !raw.complete;
  if (stream.destroyed || stream.endAfterHeaders) return false;
  try {
    return !stream.state.remoteClose;
  } catch {
    return false;
  }
}

/** Drops the connection (HTTP/1.1) or stream (HTTP/2) a request's unread body is arriving on. */
export function abandonBody(request: FastifyRequest): void {
  const raw = request.raw as RawRequest;
  if (raw.stream) raw.stream.close(http2.constants.NGHTTP2_CANCEL);
  else raw.socket?.destroy();
}

/** After every answer: a body still arriving is abandoned. */
export function installUnreadBodyCutoff(app: FastifyInstance): void {
  app.addHook('onResponse', (request, _reply, done) => {
    if (bodyStillArriving(request)) abandonBody(request);
    done();
  });
}
