/** Writing answers: JSON text, negotiated answers, Status errors, Warning headers. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { internalError, serviceUnavailable, StatusError } from '../machinery/status.js';
import { StorageUnavailableError } from '../storage/store.js';
import { negotiateError, type NegotiationRequest } from './negotiation.js';
import { encodeAnswer, type Answer } from './render.js';
import { requestQuery } from '../machinery/query-params.js';

export function sendJson(reply: FastifyReply, code: number, body: unknown): FastifyReply {
  return sendBody(reply, code, 'application/json', typeof body === 'string' ? body : JSON.stringify(body));
}

/**
 * A body with exactly this Content-Type, as kube-apiserver spells it (`application/json`, no charset): fastify
 * rewrites the Content-Type of a string body it sees as JSON (adds `; charset=utf-8`, quotes parameters) unless the
 * reply has a serializer of its own, so a string goes through one that passes it on as it is. Strings are not made
 * Buffers while short: Node writes a string body in one chunk with the response's head, a Buffer as a second one
 * (measurably more CPU per answer over TLS).
 */
export function sendBody(reply: FastifyReply, code: number, contentType: string, body: string | Buffer): FastifyReply {
  reply.code(code).header('content-type', contentType);
  if (typeof body !== 'string') return reply.send(body);
  // A large string costs more written as one than as a Buffer of its own (a 1,000-item LIST: ~25 % more CPU).
  if (body.length > STRING_BODY_MAX) return reply.send(Buffer.from(body));
  return reply.serializer(asIs).send(body);
}

/** Bodies up to this many characters are written as strings (single objects, short lists). */
const STRING_BODY_MAX = 16 * 1024;

function asIs(text: string): string {
  return text;
}

export function sendAnswer(reply: FastifyReply, code: number, answer: Answer): FastifyReply {
  return sendBody(reply, code, answer.contentType, answer.body);
}

/** What negotiation reads of a request: Accept, User-Agent and the query (`pretty`). */
export function negotiationRequest(request: FastifyRequest): NegotiationRequest & { query: URLSearchParams } {
  const url = request.url;
  const q = url.indexOf('?');
  return {
    accept: request.headers.accept,
    userAgent: request.headers['user-agent'],
    query: requestQuery(q === -1 ? '' : url.slice(q + 1)),
  };
}

/**
 * A Status in the media type the client accepts (JSON, YAML or protobuf; no conversions), as kube's ErrorNegotiated
 * writes it; indented JSON when the client accepts none of them.
 */
export function sendStatusError(reply: FastifyReply, err: StatusError): FastifyReply {
  for (const [name, value] of Object.entries(err.headers ?? {})) reply.header(name, value);
  const status = err.toStatus();
  const request = (reply as { request?: FastifyRequest }).request;
  const negotiated = request?.headers ? negotiateError(negotiationRequest(request)) : { format: 'json' as const, mediaType: 'application/json', pretty: false };
  if (!negotiated) return sendBody(reply, err.code, 'application/json', JSON.stringify(status, null, 2));
  return sendAnswer(reply, err.code, encodeAnswer(status, negotiated));
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
export function addWarnings(reply: FastifyReply, warnings: readonly string[]): void {
  if (warnings.length === 0) return;
  // Added to those already on the reply, each text once (kube's warning recorder drops repeats).
  const before = reply.getHeader('warning');
  const values = before === undefined ? [] : Array.isArray(before) ? before.map(String) : [String(before)];
  for (const w of warnings) {
    const value = `299 - ${JSON.stringify(w)}`;
    if (!values.includes(value)) values.push(value);
  }
  reply.header('warning', values);
}

export function successStatus(details: Record<string, unknown>) {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details };
}
