/**
 * What every request passes before fastify reads its body, in this order: the request gate (who is asking), the
 * in-flight limit (whether there is room for them) and the request deadline (until when). One onRequest hook and
 * one 'close' listener per request rather than one of each per step: each hook and listener is work on every GET.
 */
import type { FastifyInstance } from 'fastify';
import type { Authenticator, UserInfo } from '../auth/user.js';
import { inflightLimiter, isLongRunning, REFUSED, type InflightLimits } from './inflight-limit.js';
import { armRequestDeadline } from './request-deadline.js';
import { authenticatedUser, gateRequest } from './request-gate.js';

export interface AdmissionOptions {
  authenticator: Authenticator;
  inflight: InflightLimits;
  /** kube's --request-timeout in ms (0: none). */
  requestTimeoutMs: number;
}

export function installRequestAdmission(app: FastifyInstance, options: AdmissionOptions): void {
  const limiter = inflightLimiter(options.inflight, authenticatedUser);
  const { authenticator, requestTimeoutMs } = options;
  app.addHook('onRequest', (request, reply, done) => {
    const admit = () => {
      const { method, url } = request.raw;
      const longRunning = isLongRunning(method ?? 'GET', url ?? '');
      const release = limiter?.admit(request, reply, longRunning);
      if (release === REFUSED) return;
      const timer = requestTimeoutMs > 0 && !longRunning ? armRequestDeadline(request, reply, requestTimeoutMs) : undefined;
      // 'close' fires once the response is done or the client went away: the slot is given back, the timer cleared.
      if (release || timer) {
        reply.raw.on('close', () => {
          release?.();
          if (timer) clearTimeout(timer);
        });
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
