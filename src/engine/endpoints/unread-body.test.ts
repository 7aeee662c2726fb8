import net from 'node:net';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installUnreadBodyCutoff } from './unread-body.js';

/** Sends raw HTTP/1.1 bytes and collects what comes back until the server closes or `ms` pass. */
function exchange(port: number, bytes: string, ms = 1000): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
    let text = '';
    socket.on('data', (d) => (text += d));
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closed: false });
    }, ms);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closed: true });
    });
  });
}

describe('the unread-body cutoff', () => {
  const app = Fastify();
  let port = 0;
  beforeAll(async () => {
    installUnreadBodyCutoff(app);
    // Answered synchronously from the headers (no await on the way), before Node marks the request complete.
    app.addHook('onRequest', (_request, reply, done) => {
      if (_request.url === '/refuse') return void reply.code(401).send('no');
      done();
    });
    app.get('/sync', (_request, reply) => void reply.send('ok'));
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as AddressInfo).port;
  });
  afterAll(() => app.close());

  it('keeps the connection of a bodyless request answered synchronously (the next request on it is served)', async () => {
    const req = 'GET /sync HTTP/1.1\r\nHost: x\r\n\r\n';
    const { text, closed } = await exchange(port, req + req, 800);
    expect(text.match(/HTTP\/1\.1 200/g)).toHaveLength(2);
    expect(text.toLowerCase()).not.toContain('connection: close');
    expect(closed).toBe(false);
  });

  it('answers an injected request whose body was read as any other (no close, no error from the fake socket)', async () => {
    const logged: string[] = [];
    const injected = Fastify({ logger: { level: 'error', stream: { write: (line: string) => void logged.push(line) } } });
    installUnreadBodyCutoff(injected);
    injected.post('/echo', async (request) => request.body);
    const res = await injected.inject({ method: 'POST', url: '/echo', payload: { a: 1 } });
    // fastify logs what its onResponse hooks throw once the answer is out.
    await new Promise((resolve) => setImmediate(resolve));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ a: 1 });
    expect(res.headers.connection).not.toBe('close');
    expect(logged).toEqual([]);
    await injected.close();
  });

  it('still closes the connection of a request whose body is still arriving when it is answered', async () => {
    const { text, closed } = await exchange(port, 'POST /refuse HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\npartial', 3000);
    expect(text).toMatch(/^HTTP\/1\.1 401/);
    expect(text.toLowerCase()).toContain('connection: close');
    expect(closed).toBe(true);
  });
});
