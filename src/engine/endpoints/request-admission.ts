/**
 * What every request passes before fastify reads its body, in this order: the request gate (who is asking), the
 * in-flight limit (whether there is room for them) and the request deadline (until when); and what is done once it
 * is answered (`answered`: metrics, the request log). One onRequest hook and one 'close' listener per request rather
 * than one of each per step, and no onResponse hook (fastify then adds a 'finish' and an 'error' listener of its own
 * to every response, a closure and two clock reads): each hook and listener is work on every GET.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Authenticator, UserInfo } from '../auth/user.js';
import { inflightLimiter, isLongRunning, REFUSED, type BudgetHolder, type InflightLimits } from './inflight-limit.js';
import { armRequestDeadline, requestDeadlineMs } from './request-deadline.js';
import { authenticatedUser, gateRequest } from './request-gate.js';
import { requestServed, requestStarted } from './create-turn.js';

export interface AdmissionOptions {
  authenticator: Authenticator;
  inflight: InflightLimits;
  /** kube's --request-timeout in ms (0: none). */
  requestTimeoutMs: number;
  /** Whose share of the budgets a user's requests count against (tenant-share.ts); their identity's by default. */
  shareKey?: (holder: BudgetHolder) => string;
  /**
   * Called once per request the hook saw, refused ones included, when its response is done or its client went away
   * (the response's 'close'), with the milliseconds since the request arrived.
   */
  answered?: (request: FastifyRequest, reply: FastifyReply, elapsedMs: number) => void;
}

export function installRequestAdmission(app: FastifyInstance, options: AdmissionOptions): void {
  const limiter = inflightLimiter(options.inflight, authenticatedUser, options.shareKey);
  const { authenticator, requestTimeoutMs, answered } = options;
  app.addHook('onRequest', (request, reply, done) => {
    const arrived = answered ? performance.now() : 0;
    let release: (() => void) | undefined;
    let served = false;
    let closed = false;
    let timer: NodeJS.Timeout | undefined;
    // 'close' fires once the response is done or the client went away (for HTTP/2 and HTTP/1.1 alike): the slot is
    // given back, the timer cleared, the answer reported. Listened to before the gate, so refusals are reported too.
    const onClose = () => {
      closed = true;
      release?.();
      if (served) {
        served = false;
        requestServed();
      }
      if (timer) clearTimeout(timer);
      answered?.(request, reply, performance.now() - arrived);
    };
    let listening = false;
    if (answered || limiter || requestTimeoutMs > 0) {
      reply.raw.on('close', onClose);
      listening = true;
    }
    const admit = () => {
      const { method, url } = request.raw;
      const longRunning = isLongRunning(method ?? 'GET', url ?? '');
      let deadlineMs = 0;
      if (!longRunning) {
        try {
          deadlineMs = requestDeadlineMs(url ?? '', requestTimeoutMs);
        } catch (err) {
          return done(err as Error);
        }
      }
      const slot = limiter?.admit(request, reply, longRunning);
      if (slot === REFUSED) return;
      release = slot;
      if (deadlineMs > 0) {
        timer = armRequestDeadline(request, reply, deadlineMs);
        if (!listening) {
          reply.raw.on('close', onClose);
          listening = true;
        }
      }
      // Whether other requests are in flight decides if a create waits for its turn's end (create-turn.ts).
      if (listening && !longRunning && !closed) {
        served = true;
        requestStarted();
      }
      done();
    };
    let gated: UserInfo | Promise<UserInfo>;
    try {
      gated = gateRequest(authenticator, request);
    } catch (err) {
      return done(err as Error);
    }
    // A token answered synchronously (static tokens) costs no promise and no extra turn.
    if (gated instanceof Promise) gated.then(admit, done);
    else admit();
  });
}
