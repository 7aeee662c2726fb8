/**
 * /healthz, /livez and /readyz as kube-apiserver answers them (k8s.io/apiserver server/healthz): `ok`, or with
 * `?verbose` one `[+]<check> ok` line per check and `<endpoint> check passed`; `?exclude=<check>` skips a check; a
 * failing check makes the answer a 500 that lists every check (the reason withheld: the endpoint is public) and ends
 * `<endpoint> check failed`; `/<endpoint>/<check>` runs one check (`ok`, or a 500 `internal server error: <reason>`).
 */

/** A named check: undefined when healthy, else why not. */
export interface HealthCheck {
  name: string;
  run(): string | undefined;
}

export type HealthEndpoint = 'healthz' | 'livez' | 'readyz';

export type HealthChecks = Record<HealthEndpoint, readonly HealthCheck[]>;

export interface HealthAnswer {
  code: number;
  headers: Record<string, string>;
  body: string;
}

const PING: HealthCheck = { name: 'ping', run: () => undefined };

/** ping everywhere; `readiness` only on /readyz (and /healthz, which kube keeps as the sum of both). */
export function healthChecks(readiness: readonly HealthCheck[]): HealthChecks {
  return { healthz: [PING, ...readiness], livez: [PING], readyz: [PING, ...readiness] };
}

const TEXT = 'text/plain; charset=utf-8';

/** Go's http.Error: text, nosniff, the message and a newline. */
function httpError(code: number, message: string): HealthAnswer {
  return { code, headers: { 'content-type': TEXT, 'x-content-type-options': 'nosniff' }, body: `${message}\n` };
}

/** The answer for a health path, or undefined when it names no endpoint or check (a 404). */
export function healthAnswer(checks: HealthChecks, path: string, query: URLSearchParams): HealthAnswer | undefined {
  const slash = path.indexOf('/', 1);
  const endpoint = slash === -1 ? path.slice(1) : path.slice(1, slash);
  // Check names may hold slashes (poststarthook/<name>).
  const check = slash === -1 ? undefined : path.slice(slash + 1);
  if (!Object.hasOwn(checks, endpoint)) return undefined;
  const list = checks[endpoint as HealthEndpoint];
  if (check !== undefined) {
    const one = list.find((c) => c.name === check);
    if (!one) return undefined;
    const failure = one.run();
    if (failure !== undefined) return httpError(500, `internal server error: ${failure}`);
    return { code: 200, headers: { 'content-type': TEXT }, body: 'ok' };
  }
  const excluded = new Set(query.getAll('exclude'));
  let out = '';
  let failed = false;
  for (const c of list) {
    if (excluded.delete(c.name)) {
      out += `[+]${c.name} excluded: ok\n`;
      continue;
    }
    if (c.run() === undefined) out += `[+]${c.name} ok\n`;
    else {
      out += `[-]${c.name} failed: reason withheld\n`;
      failed = true;
    }
  }
  if (excluded.size > 0) {
    out += `warn: some health checks cannot be excluded: no matches for ${[...excluded].sort().map((n) => JSON.stringify(n)).join(',')}\n`;
  }
  if (failed) return httpError(500, `${out}${endpoint} check failed`);
  const headers = { 'content-type': TEXT, 'x-content-type-options': 'nosniff' };
  if (!query.has('verbose')) return { code: 200, headers, body: 'ok' };
  return { code: 200, headers, body: `${out}${endpoint} check passed\n` };
}
