// The watchers of benchmark 4, in a process of their own (bench/watch.js may start several, each with a share of the
// watchers), so that reading the streams does not delay the writer or the server.
// Usage: node bench/watch-client.js '<json config>' with {url, path, token, watchers, first, timeoutMs}.
// Opens `watchers` HTTPS watch streams (numbered from `first`), prints "ready" once every stream has its 200 head,
// then timestamps each TLS read on arrival and computes arrival - object.data.ts (the writer's send time, epoch ms)
// for every event in it. On "stop <expected>" from stdin (or after timeoutMs) prints one JSON line of results, exits.
//
// Why this is not node's https client: at 1,000 watchers x 100 writes/s this process reads 100,000 events a second on
// the cores the server uses, and node's client (its HTTP parser, IncomingMessage stream, utf8 decoder and string
// lines) fell behind: the kernel held 20-78 MB unread on the watchers' sockets, so the p99 measured the watchers.
// Each stream here is a bare TLS socket: the response head is checked (HTTP/1.1 200, chunked), the chunked body is
// decoded on Buffers, and each line is checked in place without parsing it whole: it is a whole event
// ({"type":"ADDED|MODIFIED",...} closed by "}}"), its resourceVersion is above the stream's last one (in order, none
// repeated), and its data.ts is read as the latency's start. Every 100th line, and any line the in-place read cannot
// place, is parsed whole with JSON.parse and must agree. A watcher's count of events is checked by the driver.
import tls from 'node:tls';
import readline from 'node:readline';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const cfg = JSON.parse(process.argv[2]);
const u = new URL(cfg.url);
const epochMs = () => performance.timeOrigin + performance.now();
const first = cfg.first ?? 0;

const latencies = [];
const counts = new Array(cfg.watchers).fill(0);
/** Body bytes received (chunk framing aside), so a run shows both sides delivered the same bytes per event. */
let bytes = 0;
/** Lines that are not a whole event, that the full parse contradicts, or out of order: each one fails the run. */
let parseErrors = 0;
let outOfOrder = 0;
let badEvents = 0;
let opened = 0;
let seen = 0;
let reads = 0;
const sockets = [];
const loopDelay = monitorEventLoopDelay({ resolution: 1 });
let cpuAtReady;

const NL = 0x0a;
const CR = 0x0d;
const TS = Buffer.from('"ts":"');
const RV = Buffer.from('"resourceVersion":"');
const ADDED = Buffer.from('{"type":"ADDED","object":{');
const MODIFIED = Buffer.from('{"type":"MODIFIED","object":{');
const HEAD_END = Buffer.from('\r\n\r\n');

/**
 * The number quoted at buf[at..] (digits, at most one '.'), read from the bytes without making a string; NaN unless
 * it closes with '"' before `end`. Exact for integers (resourceVersions); a fraction can differ from Number() in the
 * last bit, which the full parse's check allows for.
 */
function quotedNumber(buf, at, end) {
  let int = 0;
  let frac = 0;
  let scale = 0;
  for (let i = at; i < end; i++) {
    const b = buf[i];
    if (b === 0x22) return i === at ? NaN : int + (scale ? frac / scale : 0);
    if (b === 0x2e && scale === 0) scale = 1;
    else if (b >= 0x30 && b <= 0x39) {
      if (scale) {
        frac = frac * 10 + (b - 0x30);
        scale *= 10;
      } else int = int * 10 + (b - 0x30);
    } else return NaN;
  }
  return NaN;
}

/** Whether buf[at..end) starts with `prefix`. */
function startsWith(buf, at, end, prefix) {
  if (end - at < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (buf[at + i] !== prefix[i]) return false;
  return true;
}

/** The first `needle` in buf[at..end), or -1. */
function find(buf, needle, at, end) {
  const i = buf.indexOf(needle, at);
  return i >= 0 && i + needle.length <= end ? i : -1;
}

/** One event line, buf[start..end) without its newline, checked and timed. */
function onLine(w, buf, start, end, now) {
  if (end === start) return;
  const typed = startsWith(buf, start, end, ADDED) || startsWith(buf, start, end, MODIFIED);
  const whole = buf[end - 1] === 0x7d && buf[end - 2] === 0x7d; // "}}": the event closes
  const rvAt = typed ? find(buf, RV, start, end) : -1;
  const tsAt = typed ? find(buf, TS, rvAt < 0 ? start : rvAt, end) : -1; // data.ts comes after metadata.resourceVersion
  let ts = tsAt < 0 ? NaN : quotedNumber(buf, tsAt + TS.length, end);
  let rv = rvAt < 0 ? NaN : quotedNumber(buf, rvAt + RV.length, end);
  if (!(++seen % 100) || !typed || !whole || !Number.isFinite(ts) || !Number.isFinite(rv)) {
    let ev;
    try {
      ev = JSON.parse(buf.toString('utf8', start, end));
    } catch {
      parseErrors++;
      return;
    }
    if (ev.type === 'ERROR') badEvents++;
    const fullTs = Number(ev.object?.data?.ts);
    const fullRv = Number(ev.object?.metadata?.resourceVersion);
    if (typed && (Math.abs(fullTs - ts) > 1e-6 || fullRv !== rv)) parseErrors++;
    ts = fullTs;
    rv = fullRv;
  }
  if (Number.isFinite(rv)) {
    if (rv <= w.rv) outOfOrder++;
    w.rv = rv;
  }
  if (!Number.isFinite(ts) || ts <= 0) return; // objects created before the run carry ts '0'
  latencies.push(now - ts);
  counts[w.idx]++;
}

/** The bytes of a chunk's payload, data[at..end): split into lines, a line cut by a TLS read or a chunk kept for the next. */
function onPayload(w, data, at, end, now) {
  bytes += end - at;
  let from = at;
  let nl;
  while ((nl = data.indexOf(NL, from)) >= 0 && nl < end) {
    if (w.partial) {
      const line = Buffer.concat([w.partial, data.subarray(from, nl)]);
      w.partial = undefined;
      onLine(w, line, 0, line.length, now);
    } else onLine(w, data, from, nl, now);
    from = nl + 1;
  }
  if (from < end) w.partial = w.partial ? Buffer.concat([w.partial, data.subarray(from, end)]) : Buffer.from(data.subarray(from, end));
}

/**
 * HTTP/1.1 chunked decoding over one TLS read: `w.left` bytes of the current chunk's payload still to come (then its
 * CRLF), or 0 when a size line comes next. A size line cut by the read waits in `w.carry`.
 */
function onBody(w, data, now) {
  if (w.carry) {
    data = Buffer.concat([w.carry, data]);
    w.carry = undefined;
  }
  let at = 0;
  while (at < data.length) {
    if (w.left > 0) {
      const take = Math.min(w.left, data.length - at);
      onPayload(w, data, at, at + take, now);
      w.left -= take;
      at += take;
      if (w.left === 0) w.crlf = 2;
      continue;
    }
    if (w.crlf > 0) {
      // the CRLF after a payload
      const b = data[at++];
      if ((w.crlf === 2 && b !== CR) || (w.crlf === 1 && b !== NL)) return fail(w, 'bad chunk end');
      w.crlf--;
      continue;
    }
    const eol = data.indexOf(NL, at);
    if (eol < 0) {
      w.carry = Buffer.from(data.subarray(at));
      return;
    }
    const size = parseInt(data.latin1Slice(at, eol), 16);
    if (!Number.isFinite(size)) return fail(w, 'bad chunk size');
    at = eol + 1;
    if (size === 0) return fail(w, 'the stream ended');
    w.left = size;
  }
}

function onHead(w, data, now) {
  w.head = w.head ? Buffer.concat([w.head, data]) : data;
  const end = w.head.indexOf(HEAD_END);
  if (end < 0) return;
  const head = w.head.latin1Slice(0, end);
  const rest = w.head.subarray(end + 4);
  w.head = undefined;
  if (!/^HTTP\/1\.1 200 /.test(head)) {
    process.stderr.write(`watcher ${w.idx + first}: ${head.split('\r\n')[0]}\n`);
    process.exit(2);
  }
  if (!/\r\ntransfer-encoding: *chunked/i.test(head)) return fail(w, 'not chunked');
  w.inBody = true;
  opened++;
  if (opened === cfg.watchers) {
    cpuAtReady = process.cpuUsage();
    loopDelay.enable();
    process.stdout.write('ready\n');
  }
  if (rest.length) onBody(w, rest, now);
}

function fail(w, why) {
  process.stderr.write(`watcher ${w.idx + first}: ${why}\n`);
  parseErrors++;
  w.socket.destroy();
}

/**
 * Every socket reads into this one buffer (node's `onread`: no stream, no 'data' event, no allocation per read). A
 * read is handled before the next, and whatever must outlive it (a cut line, size line or head) is copied.
 */
const readBuffer = Buffer.allocUnsafe(256 * 1024);

function openWatcher(idx) {
  const w = { idx, rv: -1, inBody: false, head: undefined, left: 0, crlf: 0, carry: undefined, partial: undefined, socket: undefined };
  const onread = {
    buffer: readBuffer,
    callback: (nread, buf) => {
      const now = epochMs();
      const data = buf.subarray(0, nread);
      if (w.inBody) {
        reads++;
        onBody(w, data, now);
      } else onHead(w, Buffer.from(data), now);
    },
  };
  const socket = tls.connect({ host: u.hostname, port: Number(u.port), rejectUnauthorized: false, ALPNProtocols: ['http/1.1'], onread }, () => {
    const auth = cfg.token ? `authorization: Bearer ${cfg.token}\r\n` : '';
    socket.write(`GET ${cfg.path} HTTP/1.1\r\nhost: ${u.host}\r\naccept: application/json\r\n${auth}\r\n`);
  });
  w.socket = socket;
  socket.setNoDelay(true);
  socket.on('error', (err) => process.stderr.write(`watcher ${idx + first}: ${err.message}\n`));
  sockets.push(socket);
}

for (let i = 0; i < cfg.watchers; i++) openWatcher(i);

function finish(expected, timedOut = false) {
  const cpu = process.cpuUsage(cpuAtReady);
  loopDelay.disable();
  const result = {
    events: latencies.length,
    expected: expected * cfg.watchers,
    minPerWatcher: Math.min(...counts),
    maxPerWatcher: Math.max(...counts),
    bytes,
    reads,
    parseErrors,
    outOfOrder,
    badEvents,
    timedOut,
    /** This process's CPU from "ready" to the stop, and its event loop's delay then (ms): its own share of a run. */
    cpuMs: (cpu.user + cpu.system) / 1000,
    cpuSystemMs: cpu.system / 1000,
    loopDelayP99Ms: loopDelay.percentile(99) / 1e6,
    loopDelayMaxMs: loopDelay.max / 1e6,
    latencies: latencies.map((x) => Math.round(x * 1000) / 1000),
  };
  for (const s of sockets) s.destroy();
  // The line is megabytes (every latency): exit once the pipe has taken it all, not as the write starts.
  process.stdout.write(`${JSON.stringify(result)}\n`, () => process.exit(0));
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
