/** Writing answers: JSON text, Status errors, Warning headers. */
import type { FastifyReply } from 'fastify';
import { internalError, serviceUnavailable, StatusError } from '../machinery/status.js';
import { StorageUnavailableError } from '../storage/store.js';

export function sendJson(reply: FastifyReply, code: number, body: unknown): FastifyReply {
  return sendBody(reply, code, 'application/json', typeof body === 'string' ? body : JSON.stringify(body));
}

/**
 * A body with exactly this Content-Type, as kube-apiserver spells it (`application/json`, no charset): fastify
 * rewrites the Content-Type of a string body it sees as JSON or text (adds `; charset=utf-8`, quotes parameters),
 * never that of a Buffer.
 */
export function sendBody(reply: FastifyReply, code: number, contentType: string, body: string | Buffer): FastifyReply {
  return reply
    .code(code)
    .header('content-type', contentType)
    .send(typeof body === 'string' ? Buffer.from(body) : body);
}

export function sendStatusError(reply: FastifyReply, err: StatusError): FastifyReply {
  for (const [name, value] of Object.entries(err.headers ?? {})) reply.header(name, value);
  return sendJson(reply, err.code, err.toStatus());
}

/** Map anything thrown to a Status: StatusErrors as they are, anything else a 500 that says what happened. */
export function toStatusError(err: unknown): StatusError {
  if (err instanceof StatusError) return err;
  // client-go waits Retry-After and sends the request again by itself.
  if (err instanceof StorageUnavailableError) return serviceUnavailable(err.message, err.retryAfterSeconds);
  const message = err instanceof Error ? err.message : String(err);
  return internalError(message);
}

/** `Warning: 299 - "text"`, one header value per warning, as kube sends them. */
export function addWarnings(reply: FastifyReply, warnings: string[]): void {
  if (warnings.length === 0) return;
  reply.header(
    'warning',
    warnings.map((w) => `299 - ${JSON.stringify(w)}`),
  );
}

export function successStatus(details: Record<string, unknown>) {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details };
}
