/**
 * HTTP/1.1 requests Node's parser refuses before any handler runs (malformed request lines, headers over the size
 * limit): answered with a Status like every other error, then the connection is closed (its stream of bytes can
 * no longer be trusted to frame a next request).
 */
import type { Socket } from 'node:net';
import { badRequest, StatusError } from '../machinery/status.js';

export function sendClientError(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const status =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? new StatusError(431, 'RequestHeaderFieldsTooLarge', 'the request headers are too large')
      : badRequest(`the request could not be parsed: ${err.code ?? err.message}`);
  const body = JSON.stringify(status.toStatus());
  const reason = status.code === 431 ? 'Request Header Fields Too Large' : 'Bad Request';
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status.code} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
