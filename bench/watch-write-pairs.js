#!/usr/bin/env node
// Server CPU per watch delivery, in one process, for the two ways a watch stream can hand a turn's bytes to an
// HTTP/1.1 socket: node's chunked `res.write` (a size line, CRLF, the bytes and CRLF, corked to the next tick and
// sent as one gathering write: what the bare fan-out in bench/raw-server.js does) and one buffer framed once per turn
// and written straight to each socket (what kcpt's WatchResponse does). The watchers (--watchers TLS connections)
// read in a child process, so the CPU measured (process.cpuUsage) is the server side's. The modes alternate, --rounds
// times each, each --turns turns of one ~1 KB event per watcher, the sockets drained between runs; prints medians.
//
// --per-write 1,2,4,8 instead compares pre-framed writes carrying that many events each (a write every n-th turn),
// still per event delivered: what coalescing a stream's events into fewer writes would save.
// --nagle instead compares the pre-framed write with Nagle's algorithm on and off on the same sockets (setNoDelay
// before each run), the turns --every ms apart (default 10: 100 writes/s) so that a write can find its previous one
// unacknowledged, as a watch stream does.
//
//   node bench/watch-write-pairs.js [--watchers 1000] [--turns 100] [--rounds 6] [--per-write 1,2,4,8 | --nagle [--every 10]]
import https from 'node:https';
import path from 'node:path';
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { median, removeDir, tempDir } from './lib/util.js';

const { values } = parseArgs({
  options: { watchers: { type: 'string' }, turns: { type: 'string' }, rounds: { type: 'string' }, 'per-write': { type: 'string' }, nagle: { type: 'boolean' }, every: { type: 'string' } },
});
const everyMs = values.nagle ? Number(values.every ?? 10) : 0;
const watchers = Number(values.watchers ?? 1000);
const turns = Number(values.turns ?? 100);
const rounds = Number(values.rounds ?? 6);

const certDir = tempDir('kcpt-bench-watch-write-');
execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(certDir, 'tls.key'), '-out', path.join(certDir, 'tls.crt'), '-days', '1', '-subj', '/CN=localhost'], { stdio: 'ignore' });
const server = https.createServer({ key: readFileSync(path.join(certDir, 'tls.key')), cert: readFileSync(path.join(certDir, 'tls.crt')) });
const responses = [];
server.on('request', (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache, private' });
  res.flushHeaders();
  responses.push(res);
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address();
const readers = spawn(
  process.execPath,
  ['-e', `const https = require('node:https');
const agent = new https.Agent({ keepAlive: false, maxSockets: Infinity, rejectUnauthorized: false });
for (let i = 0; i < ${watchers}; i++) https.get({ host: '127.0.0.1', port: ${port}, agent, path: '/', rejectUnauthorized: false }, (res) => res.resume());`],
  { stdio: 'inherit' },
);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
while (responses.length < watchers) await sleep(50);

const line = Buffer.from(`{"type":"ADDED","object":${JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', data: { pad: 'x'.repeat(900) } })}}\n`);
const crlf = Buffer.from('\r\n');
const framedChunk = (bytes) => Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`, 'latin1'), bytes, crlf]);
const modes = {};
/** Events each write of a mode carries (1 unless --per-write): a run delivers only whole writes' events. */
const eventsPerWrite = {};
if (values['per-write']) {
  for (const n of values['per-write'].split(',').map(Number)) {
    const framed = framedChunk(Buffer.concat(Array(n).fill(line)));
    eventsPerWrite[`${n} per write`] = n;
    modes[`${n} per write`] = (turn) => {
      if (turn % n === n - 1) for (const res of responses) res.socket.write(framed);
    };
  }
} else if (values.nagle) {
  const framed = framedChunk(line);
  for (const [mode, noDelay] of [['Nagle on', false], ['Nagle off', true]]) {
    modes[mode] = (turn) => {
      if (turn === 0) for (const res of responses) res.socket.setNoDelay(noDelay);
      for (const res of responses) res.socket.write(framed);
    };
  }
} else {
  modes['res.write'] = () => {
    for (const res of responses) res.write(line);
  };
  modes['framed socket.write'] = () => {
    const framed = framedChunk(line);
    for (const res of responses) res.socket.write(framed);
  };
}
const cpuUs = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
const perDelivery = Object.fromEntries(Object.keys(modes).map((m) => [m, []]));
for (let round = 0; round < rounds; round++) {
  const order = round % 2 ? Object.keys(modes).reverse() : Object.keys(modes);
  for (const mode of order) {
    const before = cpuUs();
    for (let t = 0; t < turns; t++) {
      modes[mode](t);
      await (everyMs ? sleep(everyMs) : new Promise((resolve) => setImmediate(resolve)));
    }
    while (responses.some((res) => res.socket.writableLength > 0)) await sleep(5);
    const n = eventsPerWrite[mode] ?? 1;
    perDelivery[mode].push((cpuUs() - before) / (Math.floor(turns / n) * n * watchers));
  }
}
const summary = Object.fromEntries(Object.entries(perDelivery).map(([m, xs]) => [m, { medianUs: +median(xs).toFixed(2), runsUs: xs.map((x) => +x.toFixed(2)) }]));
process.stdout.write(`${JSON.stringify({ watchers, turns, rounds, serverCpuPerDelivery: summary })}\n`);
readers.kill();
for (const res of responses) res.destroy();
server.close();
removeDir(certDir);
