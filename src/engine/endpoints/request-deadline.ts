/**
 * kube-apiserver's request timeout (`--request-timeout`, 60 s): a request that is not long-running (every request but
 * a watch) gets its answer within this time of arriving, or kube's 504 Timeout Status. A client that drips its body
 * is cut off with it: the answer goes out, and the connection (HTTP/1.1) or stream (HTTP/2) whose body never
 * finished is closed (unread-body.ts), so neither the in-flight slot nor the socket stays held; so is one whose client
 * has not read the whole answer by then (the answer's bytes are buffered here meanwhile). Watches are bounded by
 * `--min-request-timeout` instead (watch-stream.ts).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GoDurationError, parseGoDuration } from '../machinery/go-duration.js';
import { badRequest, timeout } from '../machinery/status.js';
import { sendStatusError } from './responses.js';
import { abandonAnswer, abandonBody, bodyStillArriving } from './unread-body.js';

export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/** kube's timeout filter's NewTimeoutError message (timeout() adds the `Timeout: ` prefix). */
export const REQUEST_TIMEOUT_MESSAGE = 'request did not complete within the allotted timeout';

/** Node's timers hold at most 2^31-1 ms (a longer one fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The time a request that is not long-running has, in ms (0: no limit): kube's WithRequestDeadline takes the
 * client's `?timeout=` (a Go duration; client-go sends its own timeout there, kubectl its --request-timeout) when it
 * is above 0 and shorter than the server's. A value Go cannot parse is 400.
 */
export function requestDeadlineMs(url: string, serverTimeoutMs: number): number {
  const q = url.indexOf('?');
  if (q < 0 || !url.includes('timeout=', q)) return serverTimeoutMs;
  const value = new URLSearchParams(url.slice(q + 1)).get('timeout');
  if (!value) return serverTimeoutMs;
  let userMs: number;
  try {
    userMs = Number(parseGoDuration(value)) / 1e6;
  } catch (err) {
    if (err instanceof GoDurationError) throw badRequest(`invalid timeout specified in the request URL - ${err.message}`);
    throw err;
  }
  if (userMs <= 0 || userMs > MAX_TIMER_MS) return serverTimeoutMs;
  return serverTimeoutMs > 0 ? Math.min(serverTimeoutMs, Math.ceil(userMs)) : Math.ceil(userMs);
}

/** Arms the deadline of a request that is not long-running; clear the timer once the response is done. */
export function armRequestDeadline(request: FastifyRequest, reply: FastifyReply, timeoutMs: number): NodeJS.Timeout {
  const timer = setTimeout(() => expire(request, reply), timeoutMs);
  timer.unref();
  return timer;
}

function expire(request: FastifyRequest, reply: FastifyReply): void {
  const pending = bodyStillArriving(request);
  if (!reply.sent && !reply.raw.headersSent) {
    // The unread body is then abandoned once the answer is out (unread-body.ts).
    if (pending && request.raw.httpVersionMajor === 1) reply.header('connection', 'close');
    sendStatusError(reply, timeout(REQUEST_TIMEOUT_MESSAGE));
  } else if (pending) {
    abandonBody(request);
  } else {
    // Answered, but the client has not taken the answer by the deadline (the response is not done: the timer is
    // cleared when it is). kube's timeout filter aborts such a handler, resetting the stream; until 2026-11-29 a
    // client that never read kept the answer buffered here and its in-flight slot taken for as long as it kept
    // the connection, so two identities of one tenant held every read slot and every other tenant got 429.
    abandonAnswer(request);
  }
}
