/**
 * The front-proxy's own requests to shards' workspace indexes (the answers it merges rather than streams): a JSON
 * answer read whole, a watch read event by event, and the small pieces both need.
 */
import type http from 'node:http';
import { serviceUnavailable, StatusError } from '../machinery/status.js';
import type { Backend } from './forwarder.js';

export interface JsonAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Record<string, any>;
}

export interface WatchLine {
  type: string;
  object?: Record<string, any>;
}

/** GET `path` on `backend`; an unreachable backend is kcp's 503 "Not available.". */
export function getJson(backend: Backend, path: string, headers: Record<string, string>): Promise<JsonAnswer> {
  return new Promise((resolve, reject) => {
    const upstream = backend.request('GET', path, headers, (answer) => {
      collect(answer).then((body) => resolve({ status: answer.statusCode ?? 503, headers: answer.headers, body }), reject);
    });
    upstream.on('error', () => reject(serviceUnavailable('Not available.')));
  });
}

/** A whole answer as JSON; text that is not JSON becomes a Status carrying it. */
export async function collect(answer: http.IncomingMessage): Promise<Record<string, any>> {
  const chunks: Buffer[] = [];
  for await (const chunk of answer) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text) as Record<string, any>;
  } catch {
    return new StatusError(answer.statusCode ?? 503, 'InternalError', text.trim() || 'no answer', {}).toStatus() as unknown as Record<string, any>;
  }
}

/** Calls `onEvent` for each event of a watch answer (one JSON object per line), then `onEnd` once. */
export function readEvents(answer: http.IncomingMessage, onEvent: (event: WatchLine) => void, onEnd: () => void): void {
  let pending = '';
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    onEnd();
  };
  answer.setEncoding('utf8');
  answer.on('data', (chunk: string) => {
    pending += chunk;
    let newline;
    while ((newline = pending.indexOf('\n')) !== -1) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      if (!line.trim()) continue;
      let event: WatchLine;
      try {
        event = JSON.parse(line) as WatchLine;
      } catch {
        answer.destroy();
        return end();
      }
      onEvent(event);
    }
  });
  answer.on('end', end);
  answer.on('error', end);
  answer.on('close', end);
}

export function withQuery(params: URLSearchParams): string {
  const text = params.toString();
  return text ? `?${text}` : '';
}

export function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

export function sendStatus(res: http.ServerResponse, err: StatusError): void {
  send(res, err.code, err.toStatus());
}
