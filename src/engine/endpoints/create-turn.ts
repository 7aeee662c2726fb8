/**
 * Creates made while other requests are being served wait for the end of the event loop's poll phase and then run one
 * after the other. Requests arriving on many connections are otherwise served interleaved (one connection's TLS read,
 * HTTP parse, hooks and create, then the next's), and a create that follows a create runs in about half the CPU of one
 * that follows another request's HTTP work (docs/benchmarks.md, perf-create8). A create with no other request in
 * flight goes on at once: nothing could arrive in its turn to run with it, and the wait measured dearer for a client
 * that sends one create at a time. Each create is still its own transaction, committed before it is answered; only
 * where in the turn it runs changes (after the I/O callbacks of the same turn, in arrival order). A request sent
 * without waiting for a create's answer (another HTTP/2 stream, or pipelined after a POST, which RFC 9112 tells clients
 * not to do) may be served before that create, as concurrent requests may be on kube-apiserver.
 */
let waiting: Array<() => void> | undefined;
/** Requests of this process being served (watches and other long-running requests aside): only a hint. */
let serving = 0;

/** A request (not a long-running one) began being served; requestServed() once it is answered or abandoned. */
export function requestStarted(): void {
  serving++;
}

export function requestServed(): void {
  serving--;
}

/**
 * Undefined when the create may go on at once (no other request in flight, none waiting); otherwise resolves once
 * this turn's I/O callbacks have run, together with every other create that waited in it.
 */
export function createTurn(): Promise<void> | undefined {
  if (serving <= 1 && !waiting) return undefined;
  return new Promise((resolve) => {
    if (!waiting) {
      waiting = [];
      setImmediate(release);
    }
    waiting.push(resolve);
  });
}

function release(): void {
  const ready = waiting!;
  waiting = undefined;
  for (const resolve of ready) resolve();
}
