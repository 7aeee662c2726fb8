/**
 * Nothing is spent on a request before its caller is known: slow bodies and big uploads from a client without
 * credentials (or without the right ones) are answered at once, their bodies are not read, and nobody else is
 * starved. The server runs with small in-flight budgets (4 reads, 4 writes) so a handful of dripping connections
 * would exhaust them if a slot were taken before authentication.
 */
import type { ClientRequest } from 'node:http';
import { request } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readKubeconfig } from '../helpers/http.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { keepAliveClient, type KeepAliveClient } from './keep-alive-client.js';

let server: TestServer;
let admin: KeepAliveClient;
let ca: Buffer;
const tokens: Record<string, string> = {};
const cms = '/clusters/root/api/v1/namespaces/default/configmaps';

beforeAll(async () => {
  server = await startServer({
    storage: 'memory://',
    extraArgs: ['--max-requests-inflight', '4', '--max-mutating-requests-inflight', '4', '--batteries-included', '+user'],
  });
  const config = readKubeconfig(server);
  for (const u of config.users) if (u.user.token) tokens[u.name] = u.user.token;
  ca = Buffer.from(config.clusters.find((c) => c.name === 'root')!.cluster['certificate-authority-data']!, 'base64');
  admin = keepAliveClient(server, { sockets: 8 });
}, 60_000);

afterAll(async () => {
  admin?.close();
  await server?.stop();
});

interface Upload {
  /** The answer, once it came (undefined: the server closed the connection without one). */
  answer: Promise<{ status: number; body: string } | undefined>;
  /** Bytes of the body the server took off the wire so far. */
  sent(): number;
  stop(): void;
}

/**
 * A request announcing `length` body bytes, sending them as fast as the server reads them (`chunk` bytes at a time,
 * or one byte every `dripMs`), until it answers or drops the connection.
 */
function upload(method: string, path: string, opts: { token?: string; length: number; chunk?: number; dripMs?: number }): Upload {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'content-length': String(opts.length) };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let req: ClientRequest;
  let written = 0;
  let done = false;
  let timer: NodeJS.Timeout | undefined;
  const answer = new Promise<{ status: number; body: string } | undefined>((resolve) => {
    req = request({ hostname: '127.0.0.1', port: server.port, path, method, headers, ca, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => finish({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', () => finish({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    const finish = (a: { status: number; body: string } | undefined) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(a);
    };
    req.on('error', () => finish(undefined));
    req.on('close', () => setTimeout(() => finish(undefined), 200));
  });
  const piece = Buffer.alloc(opts.chunk ?? 1, 0x20);
  const pump = () => {
    while (!done && written < opts.length) {
      written += piece.length;
      if (opts.dripMs !== undefined) {
        req.write(piece);
        timer = setTimeout(pump, opts.dripMs);
        return;
      }
      if (!req.write(piece)) {
        req.once('drain', pump);
        return;
      }
    }
  };
  pump();
  return {
    answer,
    sent: () => req.socket?.bytesWritten ?? 0,
    stop: () => {
      done = true;
      clearTimeout(timer);
      req.destroy();
    },
  };
}

function expectStatus(answer: { status: number; body: string } | undefined, code: number, reason: string): void {
  expect(answer, 'an answer, not a dropped connection').toBeDefined();
  expect(answer!.status).toBe(code);
  expect(JSON.parse(answer!.body)).toMatchObject({ kind: 'Status', status: 'Failure', code, reason });
}

function configMap(name: string): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
}

describe('slow bodies before authentication', () => {
  it('unauthenticated dripping POSTs and OPTIONS are 401 at once and starve no tenant', async () => {
    const drips = [
      ...Array.from({ length: 12 }, () => upload('POST', cms, { length: 1_000_000, dripMs: 500 })),
      ...Array.from({ length: 12 }, () => upload('OPTIONS', cms, { length: 1_000_000, dripMs: 500 })),
      ...Array.from({ length: 6 }, () => upload('POST', cms, { token: 'not-a-token-anyone-issued', length: 1_000_000, dripMs: 500 })),
    ];
    try {
      for (const d of drips) expectStatus(await d.answer, 401, 'Unauthorized');
      // Answered without waiting for the body: the connections are gone, not held open by their drip.
      expect(drips.map((d) => d.sent()).every((n) => n < 64 * 1024)).toBe(true);
      const write = await admin.send({ method: 'POST', path: cms, headers: { 'content-type': 'application/json' }, body: configMap('after-drips') });
      expect(write.status, write.body).toBe(201);
      expect((await admin.send({ method: 'GET', path: cms })).status).toBe(200);
    } finally {
      drips.forEach((d) => d.stop());
    }
  });

  it('one authenticated user dripping bodies holds at most half of the write budget', async () => {
    const drips = Array.from({ length: 4 }, () => upload('POST', cms, { token: tokens.user, length: 1_000_000, dripMs: 500 }));
    try {
      // Two of them hold their slots while they drip; the other two are refused at once.
      const refused = await Promise.all(drips.map((d) => Promise.race([d.answer, new Promise((r) => setTimeout(() => r('holding'), 3_000))])));
      expect(refused.filter((a) => a === 'holding').length).toBe(2);
      for (const a of refused.filter((x) => x !== 'holding')) expectStatus(a as { status: number; body: string }, 429, 'TooManyRequests');
      // Another tenant still writes.
      const write = await admin.send({ method: 'POST', path: cms, headers: { 'content-type': 'application/json' }, body: configMap('beside-drips') });
      expect(write.status, write.body).toBe(201);
    } finally {
      drips.forEach((d) => d.stop());
    }
  });
});

describe('snapshot restore uploads', () => {
  const restore = '/kcpt/snapshot/restore?as=root:restored';
  const big = 300 * 1024 * 1024;

  it('anonymous, tenant and impersonating uploads are refused before their body is read', async () => {
    const uploads = [
      { up: upload('POST', restore, { length: big, chunk: 1024 * 1024 }), code: 401, reason: 'Unauthorized' },
      { up: upload('POST', restore, { length: big, chunk: 1024 * 1024 }), code: 401, reason: 'Unauthorized' },
      { up: upload('POST', restore, { token: 'forged', length: big, chunk: 1024 * 1024 }), code: 401, reason: 'Unauthorized' },
      { up: upload('POST', restore, { token: tokens['kcp-admin'], length: big, chunk: 1024 * 1024 }), code: 403, reason: 'Forbidden' },
      { up: upload('POST', restore, { token: tokens.user, length: big, chunk: 1024 * 1024 }), code: 403, reason: 'Forbidden' },
    ];
    try {
      for (const { up, code, reason } of uploads) expectStatus(await up.answer, code, reason);
      // What reached the server is what was in flight when it answered, not the 300 MB announced.
      for (const { up } of uploads) expect(up.sent()).toBeLessThan(32 * 1024 * 1024);
    } finally {
      uploads.forEach(({ up }) => up.stop());
    }
    expect((await admin.send({ method: 'GET', path: '/readyz' })).status).toBe(200);
  });

  it("a system:masters upload larger than the limit is 413 before it is read; one that is not a snapshot is 400 at its first line", async () => {
    const tooBig = upload('POST', restore, { token: tokens['shard-admin'], length: 600 * 1024 * 1024, chunk: 1024 * 1024 });
    const garbage = upload('POST', restore, { token: tokens['shard-admin'], length: big, chunk: 1024 * 1024 });
    try {
      expectStatus(await tooBig.answer, 413, 'RequestEntityTooLarge');
      expect(tooBig.sent()).toBeLessThan(32 * 1024 * 1024);
      const answer = await garbage.answer;
      expectStatus(answer, 400, 'BadRequest');
      expect(JSON.parse(answer!.body).message).toMatch(/invalid snapshot/);
      expect(garbage.sent()).toBeLessThan(big / 2);
    } finally {
      tooBig.stop();
      garbage.stop();
    }
  });
});
