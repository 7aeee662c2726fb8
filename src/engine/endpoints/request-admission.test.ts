import http from 'node:http';
import http2 from 'node:http2';
import net, { type AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createTurn } from './create-turn.js';
import { installRequestAdmission } from './request-admission.js';
import { sendStatusError, toStatusError } from './responses.js';

type Answered = { url: string; code: number; elapsedMs: number };

/** An app behind the admission hook whose `answered` reports are collected; each user's token is their name. */
async function admitted(app: FastifyInstance, reports: Answered[], inflight = { readOnly: 0, mutating: 0, watchesPerUser: 1 }) {
  installRequestAdmission(app, {
    authenticator: { authenticate: (name) => (name === 'nobody' ? undefined : { username: name, groups: [] }) },
    inflight,
    requestTimeoutMs: 60_000,
    answered: (request, reply, elapsedMs) => reports.push({ url: request.url, code: reply.statusCode, elapsedMs }),
  });
  app.setErrorHandler((err, _request, reply) => sendStatusError(reply, toStatusError(err)));
  const ends: Array<() => void> = [];
  app.get('/slow', async () => {
    await new Promise((resolve) => setTimeout(resolve, 40));
    return { ok: true };
  });
  app.get('/hang', async () => {
    await new Promise((resolve) => setTimeout(resolve, 5000).unref());
    return { ok: true };
  });
  // An answer larger than what flow control and the socket buffers take in while its client does not read.
  const big = Buffer.alloc(32 * 1024 * 1024, 'a');
  app.get('/big', (_request, reply) => reply.type('text/plain').send(big));
  app.get('/watch', (_request, reply) => {
    reply.raw.writeHead(200, { 'content-type': 'application/json' });
    reply.raw.write('\n');
    ends.push(() => reply.raw.end());
    return reply;
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { port: (app.server.address() as AddressInfo).port, endWatches: () => ends.splice(0).forEach((end) => end()) };
}

/** The status of one GET over an HTTP/2 session, as `user` (the body is read and dropped). */
const h2Status = (session: http2.ClientHttp2Session, path: string, user: string) =>
  new Promise<number>((resolve, reject) => {
    const stream = session.request({ ':path': path, authorization: `Bearer ${user}` });
    stream.on('response', (headers) => resolve(Number(headers[':status'])));
    stream.on('error', reject);
    stream.resume();
  });

const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
};

describe('what the admission hook reports once a request is answered', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('reports every request once, refusals included, with its code and time (HTTP/1.1)', async () => {
    const reports: Answered[] = [];
    app = Fastify();
    const { port, endWatches } = await admitted(app, reports);
    const get = (path: string, token?: string) =>
      new Promise<number>((resolve, reject) => {
        http.get({ host: '127.0.0.1', port, path, headers: token ? { authorization: `Bearer ${token}` } : {} }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        }).on('error', reject);
      });
    expect(await get('/slow', 'alice')).toBe(200);
    expect(await get('/slow', 'nobody')).toBe(401);
    expect(await get('/watch?watch=true', 'alice')).toBe(200);
    expect(await get('/watch?watch=true', 'alice')).toBe(429);
    await until(() => reports.length === 3);
    // The open watch is not answered yet; it is once it ends.
    expect(reports.map((r) => [r.url, r.code])).toEqual([
      ['/slow', 200],
      ['/slow', 401],
      ['/watch?watch=true', 429],
    ]);
    expect(reports[0]!.elapsedMs).toBeGreaterThanOrEqual(35);
    endWatches();
    await until(() => reports.length === 4);
    expect(reports.at(-1)).toMatchObject({ url: '/watch?watch=true', code: 200 });
  });

  it('counts the requests being served for create-turn.ts: not watches nor refusals, each given back once answered', async () => {
    const reports: Answered[] = [];
    app = Fastify();
    const { port, endWatches } = await admitted(app, reports);
    const get = (path: string, token: string) =>
      new Promise<number>((resolve, reject) => {
        http.get({ host: '127.0.0.1', port, path, headers: { authorization: `Bearer ${token}` } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        }).on('error', reject);
      });
    // A watch stays open and a refusal is answered: neither is in flight as far as creates are concerned.
    expect(await get('/watch?watch=true', 'alice')).toBe(200);
    expect(await get('/slow', 'nobody')).toBe(401);
    expect(createTurn()).toBeUndefined();
    // Two requests being served: a create would wait for its turn's end.
    const both = Promise.all([get('/slow', 'alice'), get('/slow', 'bob')]);
    await until(() => createTurn() !== undefined);
    const turn = createTurn();
    expect(turn).toBeInstanceOf(Promise);
    await turn;
    expect(await both).toEqual([200, 200]);
    await until(() => reports.filter((r) => r.url === '/slow').length === 3);
    expect(createTurn()).toBeUndefined();
    endWatches();
    await until(() => reports.length === 4);
    expect(createTurn()).toBeUndefined();
  });

  it('reports an HTTP/2 answer once, and a stream the client cancels before its answer', async () => {
    const reports: Answered[] = [];
    app = Fastify({ http2: true }) as unknown as FastifyInstance;
    const { port } = await admitted(app, reports);
    const session = http2.connect(`http://127.0.0.1:${port}`);
    try {
      expect(await h2Status(session, '/slow', 'alice')).toBe(200);
      const cancelled = session.request({ ':path': '/slow', authorization: 'Bearer bob' });
      cancelled.on('error', () => {});
      setTimeout(() => cancelled.close(http2.constants.NGHTTP2_CANCEL), 5);
      await until(() => reports.length === 2);
      await new Promise((resolve) => setTimeout(resolve, 100)); // the cancelled handler finishes after 40 ms
      expect(reports.map((r) => r.url)).toEqual(['/slow', '/slow']);
      expect(reports[0]!.code).toBe(200);
    } finally {
      session.close();
    }
  });

  it("takes the client's ?timeout= as kube's WithRequestDeadline does: shorter deadlines, 400 for what Go cannot parse", async () => {
    const reports: Answered[] = [];
    app = Fastify();
    const { port, endWatches } = await admitted(app, reports);
    const get = (path: string) =>
      new Promise<{ code: number; body: string }>((resolve, reject) => {
        http.get({ host: '127.0.0.1', port, path, headers: { authorization: 'Bearer alice' } }, (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve({ code: res.statusCode ?? 0, body }));
        }).on('error', reject);
      });
    const bad = await get('/slow?timeout=abc');
    expect(bad.code).toBe(400);
    expect(JSON.parse(bad.body)).toMatchObject({
      reason: 'BadRequest',
      message: 'invalid timeout specified in the request URL - time: invalid duration "abc"',
    });
    expect((await get('/slow?timeout=10')).body).toContain('invalid timeout specified in the request URL - time: missing unit in duration \\"10\\"');
    // A request that outlives the client's timeout (well below the server's 60 s) is answered 504 at it.
    const late = await get('/hang?timeout=50ms');
    expect(late.code).toBe(504);
    expect(JSON.parse(late.body)).toMatchObject({ reason: 'Timeout', message: 'Timeout: request did not complete within the allotted timeout' });
    // 0s (and anything not above 0) means the server's own deadline; long-running requests ignore the parameter.
    expect((await get('/slow?timeout=0s')).code).toBe(200);
    expect((await get('/slow?timeout=-1s')).code).toBe(200);
    const watchCode = await new Promise<number>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port, path: '/watch?watch=true&timeout=abc', headers: { authorization: 'Bearer alice' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }).on('error', reject);
    });
    endWatches();
    expect(watchCode).toBe(200);
  });

  describe('an answer its client does not read is dropped at the deadline, giving its in-flight slot back', () => {
    // Two identities of one tenant asked for big answers and never read them: the answers stayed buffered and the
    // slots taken for as long as the connections lasted, and every other user got 429 (live: 220 LISTs of 1 MB).
    const budget = { readOnly: 2, mutating: 1, watchesPerUser: 1 }; // one slot per user, two in all

    it('over HTTP/2: the stream is cancelled', async () => {
      const reports: Answered[] = [];
      app = Fastify({ http2: true }) as unknown as FastifyInstance;
      const { port } = await admitted(app, reports, budget);
      const session = http2.connect(`http://127.0.0.1:${port}`);
      session.on('error', () => {});
      try {
        const resets: number[] = [];
        const answered: number[] = [];
        for (const user of ['tenant-a', 'tenant-a-sa']) {
          const stream = session.request({ ':path': '/big?timeout=300ms', authorization: `Bearer ${user}` });
          stream.on('response', (headers) => answered.push(Number(headers[':status'])));
          stream.on('error', () => {});
          stream.on('close', () => resets.push(stream.rstCode ?? -1));
          stream.pause();
        }
        await until(() => answered.length === 2);
        expect(answered).toEqual([200, 200]);
        await until(() => resets.length === 2);
        expect(resets).toEqual([http2.constants.NGHTTP2_CANCEL, http2.constants.NGHTTP2_CANCEL]);
        expect(await h2Status(session, '/slow', 'tenant-b')).toBe(200);
        await until(() => reports.length === 3);
        expect(reports.map((r) => [r.url, r.code])).toEqual([['/big?timeout=300ms', 200], ['/big?timeout=300ms', 200], ['/slow', 200]]);
      } finally {
        session.destroy();
      }
    });

    it('over HTTP/1.1: the connection is closed', async () => {
      const reports: Answered[] = [];
      app = Fastify();
      const { port } = await admitted(app, reports, budget);
      const sockets = ['tenant-a', 'tenant-a-sa'].map((user) => {
        const socket = net.connect(port, '127.0.0.1', () => {
          socket.write(`GET /big?timeout=300ms HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${user}\r\n\r\n`);
          socket.pause(); // never read
        });
        socket.on('error', () => {});
        return socket;
      });
      try {
        // The server's end: both responses closed (their connections dropped), each reported once.
        await until(() => reports.length === 2);
        expect(reports.map((r) => [r.url, r.code])).toEqual([['/big?timeout=300ms', 200], ['/big?timeout=300ms', 200]]);
        const other = await new Promise<number>((resolve, reject) => {
          http.get({ host: '127.0.0.1', port, path: '/slow', headers: { authorization: 'Bearer tenant-b' } }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          }).on('error', reject);
        });
        expect(other).toBe(200);
      } finally {
        for (const socket of sockets) socket.destroy();
      }
    });
  });
});
