/**
 * kube-apiserver's max-in-flight filter: at most `readOnly` reads and `mutating` writes are served at once; one more
 * is answered at once with 429 TooManyRequests and `Retry-After: 1` (client-go waits and retries by itself) instead of
 * queueing without bound. Long-running requests (watches) and health probes are not counted, as in kube. 0 turns a
 * budget off (kube's --max-requests-inflight=0).
 *
 * As in kube, the slot is taken after authentication (the request gate runs first), and a request holds it while
 * its body arrives, for at most the request timeout. One user may hold at most half of each budget (a coarse form
 * of kube's per-user fairness), so a tenant dripping bodies on many connections cannot starve the others.
 *
 * Watches are exempt from those budgets, as in kube, but every open watch is a stream the server feeds with each
 * change it may see: kcpt caps the watches one user holds open at once (`watchesPerUser`, not a kube flag), so one
 * tenant cannot take the watch fan-out from the others. system:masters (the shards' own clients) is not capped.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CLUSTER_NAME_EXTRA } from '../auth/foreign-identity.js';
import { isWatchQuery } from '../machinery/query-params.js';
import { tooManyRequests } from '../machinery/status.js';
import { sendStatusError } from './responses.js';

export interface InflightLimits {
  /** kube's --max-requests-inflight (default 400). */
  readOnly: number;
  /** kube's --max-mutating-requests-inflight (default 200). */
  mutating: number;
  /** Watches one user holds open at once (default 500; 0 = no limit). */
  watchesPerUser: number;
}

export const DEFAULT_INFLIGHT_LIMITS: InflightLimits = { readOnly: 400, mutating: 200, watchesPerUser: 500 };

export const TOO_MANY_WATCHES_MESSAGE = 'Too many open watches for this user, please close some or try again later.';

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

/** The most slots of a budget one user may hold. */
export function perUserShare(limit: number): number {
  return Math.max(1, Math.ceil(limit / 2));
}

/** What admit() answers for a request it refused: the 429 is on its way. */
export const REFUSED = Symbol('refused');

export interface InflightLimiter {
  /**
   * Takes a slot for the request (`longRunning`: isLongRunning of it), or answers 429 and returns REFUSED. A slot is
   * returned as the function that gives it back (call it once the response is done); undefined when nothing is held.
   */
  admit(request: FastifyRequest, reply: FastifyReply, longRunning: boolean): (() => void) | typeof REFUSED | undefined;
  /** The current counts (for tests and metrics). */
  counts(): { readOnly: number; mutating: number; watches: number };
}

/** Who holds a share of the budgets: an authenticated user as the request gate knows them. */
export interface BudgetHolder {
  username: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/**
 * The holder a share is counted for, where the server does not say whose tenant an identity is (tenant-share.ts). A
 * service account's name is only unique in its workspace (every workspace has a `system:serviceaccount:default:default`),
 * so its workspace is part of the key: keyed by name alone, one tenant's account holding its 500 watches left every
 * other workspace's namesake none.
 */
export function budgetKey(user: BudgetHolder): string {
  const origins = user.extra?.[CLUSTER_NAME_EXTRA];
  return origins && origins.length > 0 ? `${user.username}\n${origins.join(',')}` : user.username;
}

const SHARE = Symbol('kcpt.budgetShare');

/** The share a request was counted against (watch-response.ts counts a holder's unread watch backlogs by it). */
export function shareOf(request: FastifyRequest): string | undefined {
  return (request.raw as { [SHARE]?: string })[SHARE];
}

/**
 * The limiter over `limits`, for requests whose user (the request gate's) `userOf` returns, counted against the
 * share `shareKey` names (tenant-share.ts; budgetKey, the identity, by default); undefined when every budget is off.
 */
export function inflightLimiter(
  limits: InflightLimits,
  userOf: (request: FastifyRequest) => BudgetHolder | undefined = () => undefined,
  shareKey: (holder: BudgetHolder) => string = budgetKey,
): InflightLimiter | undefined {
  const inflight = { readOnly: 0, mutating: 0, watches: 0 };
  const byUser = { readOnly: new Map<string, number>(), mutating: new Map<string, number>(), watches: new Map<string, number>() };
  if (limits.readOnly <= 0 && limits.mutating <= 0 && limits.watchesPerUser <= 0) return undefined;
  return {
    counts: () => ({ ...inflight }),
    admit(request, reply, watch) {
      const { method, url } = request.raw;
      if (healthPaths.test(url ?? '')) return undefined;
      const kind = watch ? 'watches' : isReadOnly(method ?? 'GET') ? 'readOnly' : 'mutating';
      const caller = userOf(request);
      const user = caller ? shareKey(caller) : '';
      (request.raw as { [SHARE]?: string })[SHARE] = user;
      if (watch && caller?.groups?.includes('system:masters')) return undefined;
      const limit = watch ? limits.watchesPerUser : limits[kind as 'readOnly' | 'mutating'];
      if (limit <= 0) return undefined;
      const held = byUser[kind].get(user) ?? 0;
      if (watch ? held >= limit : inflight[kind] >= limit || held >= perUserShare(limit)) {
        sendStatusError(reply, tooManyRequests(watch ? TOO_MANY_WATCHES_MESSAGE : TOO_MANY_REQUESTS_MESSAGE, 1));
        return REFUSED;
      }
      inflight[kind] += 1;
      byUser[kind].set(user, held + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        inflight[kind] -= 1;
        const left = (byUser[kind].get(user) ?? 1) - 1;
        if (left > 0) byUser[kind].set(user, left);
        else byUser[kind].delete(user);
      };
    },
  };
}
