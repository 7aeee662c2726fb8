// Load generators: wrk (C, cheap on a 2-core box; preferred, baseline B.2 in docs/benchmarks.md caveat 1) and, when wrk is not
// installed, an in-process Node generator with keep-alive https.Agent connections. Whichever is picked is used
// for both sides of a comparison.
import { execFile, execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { removeDir, tempDir } from './util.js';

let wrkPath;
export function findWrk() {
  if (wrkPath !== undefined) return wrkPath;
  try {
    wrkPath = execFileSync('sh', ['-c', 'command -v wrk'], { encoding: 'utf8' }).trim() || null;
  } catch {
    wrkPath = null;
  }
  return wrkPath;
}

export function wrkVersion() {
  const wrk = findWrk();
  if (!wrk) return undefined;
  try {
    execFileSync(wrk, ['-v'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    // wrk -v exits 1 after printing its banner
    const text = `${err.stdout ?? ''}${err.stderr ?? ''}`;
    return (text.split('\n')[0].replace(/\s*\[.*$/, '').trim() || 'wrk');
  }
  return 'wrk';
}

/** Turns wrk's "1.23ms" / "456.00us" / "1.20s" into milliseconds. */
function wrkMs(text) {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text.trim());
  if (!m) return NaN;
  const v = Number(m[1]);
  return m[2] === 'us' ? v / 1000 : m[2] === 'ms' ? v : m[2] === 's' ? v * 1000 : v * 60_000;
}

/**
 * One wrk run. `script` is Lua source (optional). Resolves {rps, p50, p99, requests, non2xx, errors}.
 */
export function runWrk({ url, connections = 8, threads = 1, durationS = 5, headers = {}, script }) {
  const args = [`-t${threads}`, `-c${connections}`, `-d${durationS}s`, '--latency'];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
  let scriptDir;
  if (script) {
    scriptDir = tempDir('kcpt-wrk-');
    const file = path.join(scriptDir, 'script.lua');
    writeFileSync(file, script);
    args.push('-s', file);
  }
  args.push(url);
  return new Promise((resolve, reject) => {
    execFile(findWrk(), args, { encoding: 'utf8', timeout: (durationS + 30) * 1000 }, (err, stdout, stderr) => {
      if (scriptDir) removeDir(scriptDir);
      if (err) return reject(new Error(`wrk failed: ${err.message}\n${stdout}\n${stderr}`));
      const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1]);
      const requests = Number(/(\d+) requests in/.exec(stdout)?.[1]);
      const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(stdout)?.[1] ?? 0);
      const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
      const errors = sock ? sock.slice(1).reduce((a, b) => a + Number(b), 0) : 0;
      const p50 = wrkMs(/^\s+50%\s+(\S+)/m.exec(stdout)?.[1] ?? '');
      const p99 = wrkMs(/^\s+99%\s+(\S+)/m.exec(stdout)?.[1] ?? '');
      resolve({ rps, requests, non2xx, errors, p50, p99, raw: stdout });
    });
  });
}

/**
 * In-process closed-loop generator: `connections` keep-alive sockets, each sending its next request as soon as the
 * previous answer is read. makeRequest(i) returns {method, path, body?, headers?}.
 */
export async function runNodeLoad({ url, connections = 8, durationS = 5, headers = {}, makeRequest }) {
  const u = new URL(url);
  const agent = new https.Agent({ keepAlive: true, maxSockets: connections, rejectUnauthorized: false });
  makeRequest ??= () => ({ method: 'GET', path: u.pathname + u.search });
  let seq = 0;
  let done = 0;
  let non2xx = 0;
  let errors = 0;
  const latencies = [];
  const deadline = performance.now() + durationS * 1000;
  const one = (spec) =>
    new Promise((resolve) => {
      const t0 = performance.now();
      const body = spec.body === undefined ? undefined : typeof spec.body === 'string' ? spec.body : JSON.stringify(spec.body);
      const req = https.request(
        {
          host: u.hostname,
          port: u.port,
          method: spec.method,
          path: spec.path,
          agent,
          rejectUnauthorized: false,
          headers: {
            ...headers,
            ...(spec.headers ?? {}),
            ...(body !== undefined
              ? { 'content-type': spec.headers?.['content-type'] ?? 'application/json', 'content-length': Buffer.byteLength(body) }
              : {}),
          },
        },
        (res) => {
          res.on('data', () => {});
          res.on('end', () => {
            if (res.statusCode < 200 || res.statusCode >= 400) non2xx++;
            latencies.push(performance.now() - t0);
            done++;
            resolve();
          });
        },
      );
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end(body);
    });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < deadline) await one(makeRequest(seq++));
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const pct = (p) => latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)];
  return { rps: done / elapsed, requests: done, non2xx, errors, p50: pct(50), p99: pct(99) };
}

/** A Lua script for wrk that POSTs `bodyTemplate` (with %s replaced by a unique name) on every request. */
export function wrkPostScript({ path: urlPath, bodyTemplate, namePrefix, headers }) {
  const esc = (s) => s.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
  const hdrs = Object.entries({ 'Content-Type': 'application/json', ...headers })
    .map(([k, v]) => `wrk.headers["${esc(k)}"] = "${esc(v)}"`)
    .join('\n');
  return `
wrk.method = "POST"
wrk.path = "${esc(urlPath)}"
${hdrs}
local counter = 0
local template = "${esc(bodyTemplate.replace(/%/g, '%%').replace('%%s', '%s'))}"
request = function()
  counter = counter + 1
  return wrk.format(nil, nil, nil, string.format(template, "${esc(namePrefix)}" .. counter))
end
`;
}

/**
 * Load where every request differs: `{n}` in the path or body becomes a per-request counter and `{i}` the counter
 * modulo `objects` (to spread writes over a fixed set of objects). Uses wrk (Lua) or the Node generator, like the rest.
 */
export function runTemplated(ctx, { url, method, pathTemplate, bodyTemplate = '', contentType = 'application/json', headers = {}, connections = 8, durationS, objects = 1, start = 0 }) {
  durationS ??= ctx.durationS;
  const fill = (t, n) => t.replaceAll('{n}', String(n)).replaceAll('{i}', String(n % objects));
  if (ctx.useWrk) {
    const esc = (s) => s.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
    const hdrs = Object.entries({ 'Content-Type': contentType, ...headers })
      .map(([k, v]) => `wrk.headers["${esc(k)}"] = "${esc(v)}"`)
      .join('\n');
    const script = `
wrk.method = "${method}"
${hdrs}
local counter = ${start}
local pathT = "${esc(pathTemplate)}"
local bodyT = "${esc(bodyTemplate)}"
local function fill(t, n)
  local s = string.gsub(t, "{n}", tostring(n))
  s = string.gsub(s, "{i}", tostring(n % ${objects}))
  return s
end
request = function()
  counter = counter + 1
  local body = nil
  if bodyT ~= "" then body = fill(bodyT, counter) end
  return wrk.format(nil, fill(pathT, counter), nil, body)
end
`;
    return runWrk({ url: `${url}${fill(pathTemplate, 0)}`, connections, durationS, headers: {}, script });
  }
  return runNodeLoad({
    url: `${url}${fill(pathTemplate, 0)}`,
    connections,
    durationS,
    headers,
    makeRequest: (seq) => {
      const n = start + seq + 1;
      return {
        method,
        path: fill(pathTemplate, n),
        body: bodyTemplate ? fill(bodyTemplate, n) : undefined,
        headers: { 'content-type': contentType },
      };
    },
  });
}

let h2loadPath;
export function findH2load() {
  if (h2loadPath !== undefined) return h2loadPath;
  try {
    h2loadPath = execFileSync('sh', ['-c', 'command -v h2load'], { encoding: 'utf8' }).trim() || null;
  } catch {
    h2loadPath = null;
  }
  return h2loadPath;
}

/**
 * GET load over HTTP/2: `streams` requests in flight on each of `connections` connections (kubectl and client-go
 * multiplex one connection). h2load (nghttp2, C) when it is on PATH, else an in-process Node generator; which one
 * is used is the same for both sides of a comparison. Resolves {rps, requests, non2xx, errors, p50, p99}
 * (h2load reports no percentiles: p50 is its mean, p99 NaN).
 */
export function runH2({ url, connections = 1, streams = 8, durationS = 5, headers = {}, useTool = true }) {
  if (useTool && findH2load()) return runH2load({ url, connections, streams, durationS, headers });
  return runNodeH2({ url, connections, streams, durationS, headers });
}

function runH2load({ url, connections, streams, durationS, headers }) {
  const args = ['-c', String(connections), '-m', String(streams), '-D', String(durationS), '-t', '1'];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k.toLowerCase()}: ${v}`);
  args.push(url);
  return new Promise((resolve, reject) => {
    execFile(findH2load(), args, { encoding: 'utf8', timeout: (durationS + 30) * 1000 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`h2load failed: ${err.message}\n${stdout}\n${stderr}`));
      const m = /requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout/.exec(stdout);
      const codes = /status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx/.exec(stdout);
      const done = Number(m?.[3] ?? NaN);
      const rps = Number(/finished in [\d.]+\w*, ([\d.]+) req\/s/.exec(stdout)?.[1]);
      const mean = /time for request:\s+\S+\s+\S+\s+(\S+)/.exec(stdout)?.[1];
      resolve({
        rps,
        requests: done,
        non2xx: codes ? Number(codes[2]) + Number(codes[3]) + Number(codes[4]) : 0,
        errors: m ? Number(m[5]) + Number(m[6]) + Number(m[7]) : 0,
        p50: mean ? wrkMs(mean) : NaN,
        p99: NaN,
        raw: stdout,
      });
    });
  });
}

async function runNodeH2({ url, connections, streams, durationS, headers }) {
  const { default: http2 } = await import('node:http2');
  const u = new URL(url);
  const sessions = Array.from({ length: connections }, () => http2.connect(u.origin, { rejectUnauthorized: false }));
  let done = 0;
  let non2xx = 0;
  let errors = 0;
  const latencies = [];
  const deadline = performance.now() + durationS * 1000;
  const one = (session) =>
    new Promise((resolve) => {
      const t0 = performance.now();
      const stream = session.request({ ':path': u.pathname + u.search, ...headers });
      let status = 0;
      stream.on('response', (h) => (status = h[':status']));
      stream.on('data', () => {});
      stream.on('end', () => {
        if (status < 200 || status >= 400) non2xx++;
        latencies.push(performance.now() - t0);
        done++;
        resolve();
      });
      stream.on('error', () => {
        errors++;
        resolve();
      });
      stream.end();
    });
  const started = performance.now();
  await Promise.all(
    sessions.flatMap((s) =>
      Array.from({ length: streams }, async () => {
        while (performance.now() < deadline) await one(s);
      }),
    ),
  );
  const elapsed = (performance.now() - started) / 1000;
  for (const s of sessions) s.close();
  latencies.sort((a, b) => a - b);
  const pct = (p) => latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)];
  return { rps: done / elapsed, requests: done, non2xx, errors, p50: pct(50), p99: pct(99) };
}
