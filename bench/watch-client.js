// The watchers of benchmark 4, in their own process so that parsing 100 streams does not delay the writer.
// Usage: node bench/watch-client.js '<json config>' with {url, path, token, watchers, timeoutMs}.
// Opens `watchers` HTTPS watch streams, prints "ready" once every stream has its 200 headers, then reads every
// JSON line on arrival and computes now - object.data.ts (the writer's send time, epoch ms with sub-ms precision).
// A line is read for its type and ts without a full JSON.parse (every 100th line, and any line the cheap read cannot
// place, is parsed whole and checked): at 1,000 watchers x 100 writes/s this process shares the 2 cores with the
// server, and parsing 100,000 objects a second would measure the watchers, not the server's delivery.
// On "stop <expected>" from stdin (or after timeoutMs) prints one JSON line of results and exits.
import https from 'node:https';
import readline from 'node:readline';

const cfg = JSON.parse(process.argv[2]);
const u = new URL(cfg.url);
const agent = new https.Agent({ keepAlive: false, maxSockets: Infinity, rejectUnauthorized: false });
const epochMs = () => performance.timeOrigin + performance.now();

const latencies = [];
const counts = new Array(cfg.watchers).fill(0);
let parseErrors = 0;
/** Body bytes received (chunk framing aside), so a run shows both sides delivered the same bytes per event. */
let bytes = 0;
let badEvents = 0;
let opened = 0;
const requests = [];
let seen = 0;

/** data.ts of an ADDED/MODIFIED line, read in place; undefined when the line is anything else. */
function cheapTs(line) {
  if (!line.startsWith('{"type":"ADDED"') && !line.startsWith('{"type":"MODIFIED"')) return undefined;
  const at = line.indexOf('"ts":"');
  if (at < 0) return undefined;
  const end = line.indexOf('"', at + 6);
  return end < 0 ? undefined : Number(line.slice(at + 6, end));
}

function openWatcher(idx) {
  const req = https.request(
    {
      host: u.hostname,
      port: u.port,
      path: cfg.path,
      method: 'GET',
      agent,
      rejectUnauthorized: false,
      headers: { ...(cfg.token ? { authorization: `Bearer ${cfg.token}` } : {}), accept: 'application/json' },
    },
    (res) => {
      if (res.statusCode !== 200) {
        process.stderr.write(`watcher ${idx}: HTTP ${res.statusCode}\n`);
        process.exit(2);
      }
      opened++;
      if (opened === cfg.watchers) process.stdout.write('ready\n');
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        const now = epochMs();
        bytes += chunk.length;
        buf += chunk;
        let nl;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (!line.trim()) continue;
          let ts = cheapTs(line);
          if (!(++seen % 100) || ts === undefined) {
            let ev;
            try {
              ev = JSON.parse(line);
            } catch {
              parseErrors++;
              continue;
            }
            if (ev.type === 'ERROR') badEvents++;
            const full = Number(ev.object?.data?.ts);
            if (ts !== undefined && ts !== full) parseErrors++;
            ts = full;
          }
          if (!Number.isFinite(ts) || ts <= 0) continue; // objects created before the run carry ts '0'
          latencies.push(now - ts);
          counts[idx]++;
        }
      });
    },
  );
  req.on('error', (err) => {
    process.stderr.write(`watcher ${idx}: ${err.message}\n`);
  });
  req.end();
  requests.push(req);
}

for (let i = 0; i < cfg.watchers; i++) openWatcher(i);

function finish(expected, timedOut = false) {
  latencies.sort((a, b) => a - b);
  const pct = (p) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)] : NaN);
  const result = {
    events: latencies.length,
    expected: expected * cfg.watchers,
    minPerWatcher: Math.min(...counts),
    maxPerWatcher: Math.max(...counts),
    p50: pct(50),
    p90: pct(90),
    p99: pct(99),
    p999: pct(99.9),
    max: latencies.at(-1),
    bytesPerEvent: latencies.length ? bytes / latencies.length : NaN,
    parseErrors,
    badEvents,
    timedOut,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  for (const r of requests) r.destroy();
  process.exit(0);
}

const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const m = /^stop (\d+)/.exec(line);
  if (!m) return;
  const expected = Number(m[1]);
  // give in-flight events up to 2 s to arrive
  const deadline = Date.now() + 2000;
  const check = () => {
    if (counts.every((n) => n >= expected) || Date.now() > deadline) finish(expected);
    else setTimeout(check, 10);
  };
  check();
});
// A backstop for a stuck run: the driver learns it from timedOut (its own count of writes is the expectation).
setTimeout(() => finish(0, true), cfg.timeoutMs ?? 120_000).unref();
