/**
 * Creates wait for the end of the event loop's poll phase and then run one after the other. Requests arriving on
 * many connections are otherwise served interleaved (one connection's TLS read, HTTP parse, hooks and create, then the
 * next's), and a create that follows a create runs in about half the CPU of one that follows another request's HTTP
 * work (docs/benchmarks.md, perf-create8). Each create is still its own transaction, committed before it is answered;
 * only where in the turn it runs changes (after the I/O callbacks of the same turn, in arrival order). A request sent
 * without waiting for a create's answer (another HTTP/2 stream, or pipelined after a POST, which RFC 9112 tells clients
 * not to do) may be served before that create, as concurrent requests may be on kube-apiserver.
 */
let waiting: Array<() => void> | undefined;

/** Resolves once this turn's I/O callbacks have run, together with every other create that waited in it. */
export function createTurn(): Promise<void> {
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
