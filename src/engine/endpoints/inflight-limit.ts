/**
 * kube-apiserver's max-in-flight filter: at most `readOnly` reads and `mutating` writes are served at once; one more
 * is answered at once with 429 TooManyRequests and `Retry-After: 1` (client-go waits and retries by itself) instead of
 * queueing without bound. Long-running requests (watches) and health probes are not counted, as in kube. 0 turns a
 * budget off (kube's --max-requests-inflight=0).
 */
import type { FastifyInstance } from 'fastify';
import { isWatchQuery } from '../machinery/query-params.js';
import { tooManyRequests } from '../machinery/status.js';
import { sendStatusError } from './responses.js';

export interface InflightLimits {
  /** kube's --max-requests-inflight (default 400). */
  readOnly: number;
  /** kube's --max-mutating-requests-inflight (default 200). */
  mutating: number;
}

export const DEFAULT_INFLIGHT_LIMITS: InflightLimits = { readOnly: 400, mutating: 200 };

export const TOO_MANY_REQUESTS_MESSAGE = 'Too many requests, please try again later.';

const healthPaths = /^\/(healthz|livez|readyz)(\/|$|\?)/;

/** A watch by query (`?watch=true`, any spelling kube takes) or by the deprecated `/watch/` path segment: it never ends by itself. */
export function isLongRunning(method: string, url: string): boolean {
  if (method !== 'GET') return false;
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  if (/\/watch(\/|$)/.test(path)) return true;
  if (q === -1) return false;
  return isWatchQuery(new URLSearchParams(url.slice(q + 1)));
}

export function isReadOnly(method: string): boolean {
  return method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
}

/** Installs the limiter as the first onRequest hook; returns a view of the current counts (for tests and metrics). */
export function installInflightLimit(app: FastifyInstance, limits: InflightLimits): () => { readOnly: number; mutating: number } {
  const inflight = { readOnly: 0, mutating: 0 };
  if (limits.readOnly <= 0 && limits.mutating <= 0) return () => ({ ...inflight });
  app.addHook('onRequest', (request, reply, done) => {
    const { method, url } = request.raw;
    if (healthPaths.test(url ?? '') || isLongRunning(method ?? 'GET', url ?? '')) return done();
    const kind = isReadOnly(method ?? 'GET') ? 'readOnly' : 'mutating';
    const limit = limits[kind];
    if (limit <= 0) return done();
    if (inflight[kind] >= limit) {
      sendStatusError(reply, tooManyRequests(TOO_MANY_REQUESTS_MESSAGE, 1));
      return;
    }
    inflight[kind] += 1;
    let released = false;
    // 'close' fires once the response is done or the client went away: every admitted request gives its slot back.
    reply.raw.once('close', () => {
      if (released) return;
      released = true;
      inflight[kind] -= 1;
    });
    done();
  });
  return () => ({ ...inflight });
}
