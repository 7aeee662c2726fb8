// 4. Watch delivery latency: 1,000 concurrent HTTPS watchers (--watchers) on the ConfigMaps of one namespace
//    (?watch=true&resourceVersion=<rv>); a writer then alternates creates (POST) and updates (merge PATCH) at a
//    steady rate, embedding its send time in data.ts; each watcher checks every event on arrival (bench/watch-client.js)
//    and records arrival - ts. That is "request sent -> event read", an upper bound on commit -> event.
//    Baseline: the same harness against bench/raw-server.js, which commits each write to better-sqlite3
//    (WAL, NORMAL) and writes one JSON line to every open stream: the floor of HTTPS fan-out in Node. Its writer posts
//    the object as kcpt delivers it (managedFields and all), so both sides send the same bytes per event.
import { spawn } from 'node:child_process';
import https from 'node:https';
import path from 'node:path';
import { writeFileSync } from 'node:fs';
import { ensureNamespace, parallel } from './lib/kcpt.js';
import { configMap } from './lib/payload.js';
import { startRawServer } from './lib/raw.js';
import { sampleTcpQueues } from './lib/tcp-queues.js';
import { benchDir, epochMs, log, median, percentile, procCpuMs, sleep, trackChild } from './lib/util.js';

const NS = 'bench-watch';
const CM_PATH = `/clusters/root/api/v1/namespaces/${NS}/configmaps`;
const UPDATE_OBJECTS = 50;

/** One watch-client process: its "ready" line, then on stop(expected) its JSON line of results. */
function watchClientProcess(cfg) {
  const child = trackChild(
    spawn(process.execPath, [...(cfg.nodeArgs ?? []), path.join(benchDir, 'watch-client.js'), JSON.stringify(cfg)], { stdio: ['pipe', 'pipe', 'inherit'] }),
  );
  let out = '';
  const lines = [];
  const waiters = [];
  child.stdout.on('data', (d) => {
    out += d;
    let nl;
    while ((nl = out.indexOf('\n')) >= 0) {
      lines.push(out.slice(0, nl));
      out = out.slice(nl + 1);
      for (const w of waiters.splice(0)) w();
    }
  });
  const nextLine = (timeoutMs) =>
    new Promise((resolve, reject) => {
      const onClose = (code) => {
        clearTimeout(timer);
        reject(new Error(`watch client exited with ${code}`));
      };
      const timer = setTimeout(() => {
        child.off('close', onClose);
        reject(new Error('watch client did not answer'));
      }, timeoutMs);
      const take = () => {
        if (!lines.length) return waiters.push(take);
        clearTimeout(timer);
        child.off('close', onClose);
        resolve(lines.shift());
      };
      child.once('close', onClose);
      take();
    });
  return {
    ready: () => nextLine(60_000),
    stop: async (expected) => {
      child.stdin.write(`stop ${expected}\n`);
      return JSON.parse(await nextLine(60_000));
    },
  };
}

/**
 * `cfg.watchers` watchers of `cfg.url` + `cfg.path`, shared among `cfg.processes` watch-client processes (default 1),
 * and, from ready() to stop(), the kernel's queues of their connections (bench/lib/tcp-queues.js). stop(expected)
 * gives the latency percentiles over every event of every process and where the bytes waited.
 */
export function startWatchers(cfg) {
  const n = Math.max(1, Math.min(cfg.processes ?? 1, cfg.watchers));
  const procs = Array.from({ length: n }, (_, i) => {
    const first = Math.floor((cfg.watchers * i) / n);
    const watchers = Math.floor((cfg.watchers * (i + 1)) / n) - first;
    return watchClientProcess({ ...cfg, first, watchers });
  });
  let queues;
  return {
    ready: async () => {
      await Promise.all(procs.map((p) => p.ready()));
      queues = sampleTcpQueues(Number(new URL(cfg.url).port));
    },
    stop: async (expected) => {
      const parts = await Promise.all(procs.map((p) => p.stop(expected)));
      const tcp = queues?.stop();
      const latencies = parts.flatMap((p) => p.latencies).sort((x, y) => x - y);
      const pct = (q) => percentile(latencies, q);
      const sum = (k) => parts.reduce((a, p) => a + p[k], 0);
      return {
        events: latencies.length,
        expected: sum('expected'),
        minPerWatcher: Math.min(...parts.map((p) => p.minPerWatcher)),
        maxPerWatcher: Math.max(...parts.map((p) => p.maxPerWatcher)),
        p50: pct(50),
        p90: pct(90),
        p99: pct(99),
        p999: pct(99.9),
        max: latencies.length ? latencies.at(-1) : NaN,
        bytesPerEvent: latencies.length ? sum('bytes') / latencies.length : NaN,
        eventsPerRead: sum('reads') ? latencies.length / sum('reads') : NaN,
        parseErrors: sum('parseErrors'),
        outOfOrder: sum('outOfOrder'),
        badEvents: sum('badEvents'),
        timedOut: parts.some((p) => p.timedOut),
        clientCpuMs: sum('cpuMs'),
        clientCpuSystemMs: sum('cpuSystemMs'),
        clientLoopDelayP99Ms: Math.max(...parts.map((p) => p.loopDelayP99Ms)),
        clientLoopDelayMaxMs: Math.max(...parts.map((p) => p.loopDelayMaxMs)),
        tcp,
      };
    },
  };
}

/** Fires `rate` writes per second for `seconds`, at steady spacing; write(i, ts) sends one request. */
export async function writeSteadily({ rate, seconds, write }) {
  const n = Math.round(rate * seconds);
  const spacing = 1000 / rate;
  const start = performance.now();
  const inflight = [];
  /** Each write's time from its data.ts to its answer: how long the commit took to be acknowledged. */
  const answered = [];
  let failures = 0;
  for (let i = 0; i < n; i++) {
    const due = start + i * spacing;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait - 0.5);
    while (performance.now() < due) {
      /* spin the last half millisecond for an even rate */
    }
    const ts = epochMs();
    inflight.push(
      write(i, ts).then(
        (status) => {
          answered.push(epochMs() - ts);
          if (status >= 300) failures++;
        },
        () => failures++,
      ),
    );
  }
  await Promise.all(inflight);
  const elapsed = (performance.now() - start) / 1000;
  return { n, failures, achievedRate: n / elapsed, answerP50: percentile(answered, 50), answerP99: percentile(answered, 99) };
}

export function writer(baseUrl, token) {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 8, rejectUnauthorized: false });
  const u = new URL(baseUrl);
  const send = (method, p, body, contentType = 'application/json') =>
    new Promise((resolve, reject) => {
      const payload = JSON.stringify(body);
      const req = https.request(
        {
          host: u.hostname,
          port: u.port,
          method,
          path: p,
          agent,
          rejectUnauthorized: false,
          headers: {
            ...(token ? { authorization: `Bearer ${token}` } : {}),
            'content-type': contentType,
            'content-length': Buffer.byteLength(payload),
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode));
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  return { send, close: () => agent.destroy() };
}

/**
 * The watch path and the writes of one side. Both sides deliver the same bytes per event: the bare fan-out's writer
 * posts `delivered` (the object as kcpt's watchers receive it: uid, creationTimestamp, the cluster annotation and
 * managedFields included) with only its name and data.ts changed, and the bare server adds its resourceVersion.
 */
export function watchWrites(ctx, side, tag, delivered, watchPath) {
  const pad = ctx.calibration.pad;
  if (side === 'kcpt') {
    const w = writer(ctx.server.url, ctx.server.token);
    const write = (i, ts) =>
      i % 2 === 0
        ? w.send('POST', CM_PATH, configMap(`w-${tag}-${i}`, NS, pad, { ts: String(ts) }))
        : w.send('PATCH', `${CM_PATH}/upd-${i % UPDATE_OBJECTS}`, { data: { ts: String(ts) } }, 'application/merge-patch+json');
    return { url: ctx.server.url, token: ctx.server.token, path: watchPath, write, close: () => w.close() };
  }
  const w = writer(ctx.rawServer.url);
  const body = (name, ts) => ({ ...delivered, metadata: { ...delivered.metadata, name }, data: { ...delivered.data, ts: String(ts) } });
  const write = (i, ts) => w.send('POST', '/write', body(i % 2 === 0 ? `w-${tag}-${i}` : `upd-${i % UPDATE_OBJECTS}`, ts));
  return { url: ctx.rawServer.url, token: undefined, path: '/watch', write, close: () => w.close() };
}

async function oneRun(ctx, side, runIdx, rate) {
  const { seconds, watchers } = ctx.watch;
  const watchPath = side === 'kcpt' ? await kcptWatchPath(ctx.c) : undefined;
  const { url, token, path: p, write, close } = watchWrites(ctx, side, `${rate}-${runIdx}`, ctx.deliveredObject, watchPath);
  const clients = startWatchers({ url, path: p, token, watchers, processes: ctx.watch.processes, timeoutMs: (seconds * 30 + 60) * 1000 });
  await clients.ready();
  await sleep(200);
  const pid = side === 'kcpt' ? ctx.server.child.pid : ctx.rawServer.child.pid;
  const cpu0 = procCpuMs(pid);
  const wr = await writeSteadily({ rate, seconds, write });
  const res = await clients.stop(wr.n);
  // On a loaded box the writes can take many times `seconds`: the client's backstop may have ended it first.
  res.expected = wr.n * watchers;
  if (res.timedOut) log(`  ${side}: the watch client's backstop ended the run before the last write (the box is overloaded)`);
  const cpuUsPerWrite = ((procCpuMs(pid) - cpu0) * 1000) / wr.n;
  close();
  return { ...res, writes: wr.n, writeFailures: wr.failures, achievedRate: wr.achievedRate, answerP50: wr.answerP50, answerP99: wr.answerP99, cpuUsPerWrite };
}

/**
 * The namespace and the objects the writer updates, made once per server; returns the object kcpt's watchers receive
 * for such an update (what the bare side must send too).
 */
export async function prepareWatchObjects(c, pad) {
  await ensureNamespace(c, NS);
  await parallel(
    Array.from({ length: UPDATE_OBJECTS }, (_, i) => `upd-${i}`),
    8,
    async (name) => {
      const res = await c.request('POST', CM_PATH, configMap(name, NS, pad, { ts: '0' }));
      if (res.status !== 201 && res.status !== 409) throw new Error(`create ${name}: HTTP ${res.status}`);
    },
  );
  return c.json('GET', `${CM_PATH}/upd-0`);
}

/** The kcpt side's watch path: from the namespace's current resourceVersion on. */
export async function kcptWatchPath(c) {
  const list = await c.json('GET', CM_PATH);
  return `${CM_PATH}?watch=true&resourceVersion=${list.metadata.resourceVersion}`;
}

export async function run(ctx) {
  const { c } = ctx;
  ctx.deliveredObject = await prepareWatchObjects(c, ctx.calibration.pad);
  const objFile = path.join(ctx.tmp, 'watch-object.json');
  writeFileSync(objFile, JSON.stringify(configMap('x', NS, ctx.calibration.pad)));
  ctx.rawServer = await startRawServer({ certDir: ctx.server.certDir, objFile });
  const rows = [];
  try {
    for (const rate of ctx.watch.rates) rows.push(...(await atRate(ctx, rate)));
  } finally {
    await ctx.rawServer.stop();
  }
  return rows;
}

/** One run's figures: latency, completeness, the writer's rate, both processes' CPU and where bytes waited. */
export function describeRun(x) {
  const kb = (b) => `${(b / 1024).toFixed(0)} KiB`;
  const q = x.tcp ? `; queued (mean/max): readers' rx ${kb(x.tcp.clientRx.mean)}/${kb(x.tcp.clientRx.max)}, server's tx ${kb(x.tcp.serverTx.mean)}/${kb(x.tcp.serverTx.max)}, writes unread ${kb(x.tcp.serverRx.mean)}/${kb(x.tcp.serverRx.max)}` : '';
  const bad = x.parseErrors || x.outOfOrder || x.badEvents ? `, BAD: ${x.parseErrors} malformed, ${x.outOfOrder} out of order, ${x.badEvents} ERROR events` : '';
  return (
    `p50 ${x.p50.toFixed(2)} / p99 ${x.p99.toFixed(2)} ms (${x.events}/${x.expected} events of ${x.bytesPerEvent.toFixed(0)} B${bad}, ${x.achievedRate.toFixed(0)} writes/s answered in p50 ${x.answerP50?.toFixed(1)} / p99 ${x.answerP99?.toFixed(1)} ms, ` +
    `server ${x.cpuUsPerWrite.toFixed(0)} µs CPU/write, watchers ${((x.clientCpuMs * 1000) / Math.max(1, x.events)).toFixed(1)} µs CPU/event (${((x.clientCpuSystemMs * 1000) / Math.max(1, x.events)).toFixed(1)} system), ${x.eventsPerRead.toFixed(2)} events/read, ` +
    `watchers' loop delay p99 ${x.clientLoopDelayP99Ms.toFixed(1)} ms${x.writeFailures ? `, ${x.writeFailures} failed writes` : ''}${q})`
  );
}

async function atRate(ctx, rate) {
  const k = [];
  const r = [];
  log(`  ${rate} writes/s (alternating create and update) for ${ctx.watch.seconds} s, ${ctx.watch.watchers} watchers`);
  for (let i = 0; i < ctx.watchRuns; i++) {
    r.push(await oneRun(ctx, 'raw', i, rate));
    k.push(await oneRun(ctx, 'kcpt', i, rate));
    log(`  run ${i + 1}: raw ${describeRun(r.at(-1))}`);
    log(`         kcpt ${describeRun(k.at(-1))}`);
  }
  const missing = k.reduce((a, x) => a + (x.expected - x.events), 0);
  if (missing) log(`  WARNING: kcpt watchers missed ${missing} events`);
  const broken = k.reduce((a, x) => a + x.parseErrors + x.outOfOrder + x.badEvents, 0);
  if (broken) log(`  WARNING: kcpt watchers got ${broken} malformed, out-of-order or ERROR events`);
  const label = `${ctx.watch.watchers} watchers, ${rate} writes/s`;
  const extra = {
    kcptP50: median(k.map((x) => x.p50)),
    kcptP99: median(k.map((x) => x.p99)),
    kcptMax: Math.max(...k.map((x) => x.max)),
    rawP50: median(r.map((x) => x.p50)),
    rawP99: median(r.map((x) => x.p99)),
    missing,
    writeFailures: k.reduce((a, x) => a + x.writeFailures, 0),
    achievedRate: median(k.map((x) => x.achievedRate)),
    kcptCpuUsPerWrite: median(k.map((x) => x.cpuUsPerWrite)),
    rawCpuUsPerWrite: median(r.map((x) => x.cpuUsPerWrite)),
    kcptBytesPerEvent: median(k.map((x) => x.bytesPerEvent)),
    rawBytesPerEvent: median(r.map((x) => x.bytesPerEvent)),
    kcptAnswerP99: median(k.map((x) => x.answerP99)),
    rawAnswerP99: median(r.map((x) => x.answerP99)),
  };
  const noVerdict = saturation(r, k, rate, ctx.watch.watchers);
  if (noVerdict) log(`  not a verdict: ${noVerdict}`);
  return [
    {
      name: `WATCH p50, ${label}`,
      unit: 'ms',
      kcpt: extra.kcptP50,
      baseline: extra.rawP50,
      baselineName: 'raw fastify fan-out',
      target: { kind: 'info' },
      runs: { kcpt: k.map((x) => x.p50), baseline: r.map((x) => x.p50) },
      extra,
    },
    {
      name: `WATCH p99, ${label}`,
      unit: 'ms',
      kcpt: extra.kcptP99,
      baseline: extra.rawP99,
      baselineName: 'raw fastify fan-out',
      target: { kind: 'over', max: 5 },
      noVerdict,
      ...(broken ? { failed: `${broken} events malformed, out of order or ERROR` } : {}),
      runs: { kcpt: k.map((x) => x.p99), baseline: r.map((x) => x.p99) },
      extra,
    },
  ];
}

/**
 * Why a rate's runs cannot decide "p99 <= the bare fan-out's + 5 ms", or undefined when they can. The latency
 * measured is then the box's, not the server's: the watchers held more than one write's events unread in the kernel on
 * average (their process was behind), or the bare server itself did not keep up with the writes (it reached under
 * 95 % of the rate, or answered a write's request only after 100 ms at p99: writes queued before their commit). A
 * kcpt that falls behind where the bare server keeps up is a miss, not this.
 */
export function saturation(raw, kcpt, rate, watchers) {
  const why = [];
  const behind = [...raw, ...kcpt].filter((x) => x.tcp && x.tcp.clientRx.mean > watchers * x.bytesPerEvent);
  if (behind.length) why.push(`the watchers fell behind in ${behind.length} run(s) (more than one write's events unread in the kernel on average)`);
  const slow = raw.filter((x) => x.achievedRate < 0.95 * rate || x.answerP99 > 100);
  if (slow.length) {
    const worst = slow.map((x) => `${x.achievedRate.toFixed(0)} writes/s, answered p99 ${x.answerP99.toFixed(0)} ms`).join('; ');
    why.push(`the bare fan-out did not keep up with ${rate} writes/s in ${slow.length} of ${raw.length} run(s) (${worst})`);
  }
  return why.length ? `${why.join('; ')}: the box is short of CPU for this load` : undefined;
}
