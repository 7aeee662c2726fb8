import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { sendBody } from './responses.js';

describe('sendBody', () => {
  it.each([
    ['a short JSON text', '{"kind":"ConfigMap"}'],
    ['a long JSON text', `{"items":["${'x'.repeat(40_000)}"]}`],
  ])('sends %s with exactly the Content-Type given (no charset added) and the text unchanged', async (_what, text) => {
    const app = Fastify({ logger: false });
    app.get('/plain', (_request, reply) => sendBody(reply, 200, 'application/json', text));
    app.get('/discovery', (_request, reply) => sendBody(reply, 200, 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList', text));
    const plain = await app.inject({ method: 'GET', url: '/plain' });
    expect(plain.headers['content-type']).toBe('application/json');
    expect(plain.headers['content-length']).toBe(String(Buffer.byteLength(text)));
    expect(plain.body).toBe(text);
    const discovery = await app.inject({ method: 'GET', url: '/discovery' });
    expect(discovery.headers['content-type']).toBe('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
    expect(discovery.body).toBe(text);
    await app.close();
  });

  it('counts the length of a non-ASCII text in bytes', async () => {
    const app = Fastify({ logger: false });
    const text = '{"data":{"greeting":"grüße, 世界"}}';
    app.get('/', (_request, reply) => sendBody(reply, 200, 'application/json', text));
    const answer = await app.inject({ method: 'GET', url: '/' });
    expect(answer.headers['content-length']).toBe(String(Buffer.byteLength(text)));
    expect(answer.body).toBe(text);
    await app.close();
  });
});
