#!/usr/bin/env node
// Does the form of an answer's body cost server CPU? A bare fastify server over TLS (HTTP/2 with HTTP/1.1 by ALPN,
// as kcpt's listener) answers GET /obj with the same ~1 KB JSON and the same Content-Type and Cache-Control
// headers kcpt sends, as a Buffer (`buf`) or as a string (`str`); the two forms run in alternating order, one server
// process per run, and each run prints the server's CPU (user+sys) per request in the timed window (after a 1 s
// warm-up) under wrk (8 connections, HTTP/1.1) or h2load (one connection, 8 streams).
//
//   node bench/body-form-pairs.js [--rounds 8] [--tool wrk|h2load] [--duration 4]
//   (the server side: node bench/body-form-pairs.js --serve buf|str PORT CERTDIR)
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { freePort, median, removeDir, tempDir } from './lib/util.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { serve: { type: 'string' }, rounds: { type: 'string' }, tool: { type: 'string' }, duration: { type: 'string' } },
});

if (values.serve) await serve(values.serve, Number(positionals[0]), positionals[1]);
else await compare();

async function serve(form, port, certDir) {
  const { default: Fastify } = await import('fastify');
  const text = JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'bench-get', namespace: 'default', uid: '6f0e4c3a-1b2d-4e5f-8a9b-0c1d2e3f4a5b', resourceVersion: '12', creationTimestamp: '2026-11-29T05:00:00Z' },
    data: { k: 'v'.repeat(800) },
  });
  const app = Fastify({
    logger: false,
    http2: true,
    https: { key: readFileSync(path.join(certDir, 'tls.key')), cert: readFileSync(path.join(certDir, 'tls.crt')), allowHTTP1: true },
  });
  const asIs = (s) => s;
  app.get('/obj', (_request, reply) => {
    reply.code(200).header('content-type', 'application/json').header('cache-control', 'no-cache, private');
    if (form === 'buf') return reply.send(Buffer.from(text));
    return reply.serializer(asIs).send(text);
  });
  await app.listen({ port, host: '127.0.0.1' });
  let base = process.cpuUsage();
  process.on('SIGUSR2', () => (base = process.cpuUsage()));
  process.on('SIGTERM', () => {
    const used = process.cpuUsage(base);
    process.stdout.write(`cpu ${used.user + used.system}\n`);
    process.exit(0);
  });
  process.stdout.write('listening\n');
}

async function compare() {
  const rounds = Number(values.rounds ?? 8);
  const tool = values.tool ?? 'wrk';
  const duration = Number(values.duration ?? 4);
  const certDir = tempDir('kcpt-bench-body-');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(certDir, 'tls.key'), '-out', path.join(certDir, 'tls.crt'), '-days', '1', '-subj', '/CN=localhost'], { stdio: 'ignore' });
  const self = fileURLToPath(import.meta.url);
  const results = { buf: [], str: [] };
  try {
    for (let r = 0; r < rounds; r++) {
      for (const form of r % 2 ? ['str', 'buf'] : ['buf', 'str']) {
        const port = await freePort();
        const server = spawn(process.execPath, [self, '--serve', form, String(port), certDir], { stdio: ['ignore', 'pipe', 'inherit'] });
        let out = '';
        server.stdout.on('data', (d) => (out += d));
        while (!out.includes('listening')) await new Promise((resolve) => setTimeout(resolve, 50));
        const url = `https://127.0.0.1:${port}/obj`;
        const load = (s) => (tool === 'wrk' ? execFileSync('wrk', ['-t1', '-c8', `-d${s}s`, url]) : execFileSync('h2load', ['-c1', '-m8', `-D${s}`, url])).toString();
        load(1);
        server.kill('SIGUSR2');
        await new Promise((resolve) => setTimeout(resolve, 50));
        const report = load(duration);
        server.kill('SIGTERM');
        await once(server, 'exit');
        const cpuUs = Number(/cpu (\d+)/.exec(out)[1]);
        const requests = Number((tool === 'wrk' ? /(\d+) requests in/ : /requests: (\d+) total/).exec(report)[1]);
        results[form].push(cpuUs / requests);
        console.log(`round ${r + 1} ${form}: ${(cpuUs / requests).toFixed(1)} µs per request (${requests} requests)`);
      }
    }
  } finally {
    removeDir(certDir);
  }
  const ratios = results.buf.map((b, i) => b / results.str[i]);
  console.log(`buf ${results.buf.map((v) => v.toFixed(1)).join(' / ')} µs (median ${median(results.buf).toFixed(1)})`);
  console.log(`str ${results.str.map((v) => v.toFixed(1)).join(' / ')} µs (median ${median(results.str).toFixed(1)})`);
  console.log(`median buf/str per round ${median(ratios).toFixed(2)}; str cheaper in ${ratios.filter((x) => x > 1).length} of ${rounds}`);
}
