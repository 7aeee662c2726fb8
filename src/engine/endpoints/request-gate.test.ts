import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { StatusError } from '../machinery/status.js';
import type { Authenticator, UserInfo } from '../auth/user.js';
import { installRequestAdmission } from './request-admission.js';
import { authenticatedUser } from './request-gate.js';

const alice: UserInfo = { username: 'alice', groups: ['system:authenticated'] };

/** A gated app whose one route answers with the user the gate found. */
async function gated(authenticator: Authenticator) {
  const app = Fastify();
  installRequestAdmission(app, { authenticator, inflight: { readOnly: 0, mutating: 0, watchesPerUser: 0 }, requestTimeoutMs: 0 });
  app.setErrorHandler((err: Error, _request, reply) => reply.code(err instanceof StatusError ? err.code : 500).send({ message: err.message }));
  app.get('/clusters/root/api/v1/namespaces', (request) => ({ user: authenticatedUser(request)?.username }));
  await app.ready();
  return app;
}

const get = (app: Awaited<ReturnType<typeof gated>>, authorization?: string) =>
  app.inject({ method: 'GET', url: '/clusters/root/api/v1/namespaces', headers: authorization ? { authorization } : {} });

describe('the request gate', () => {
  it('lets a token answered synchronously (a static token) through as its user, and refuses an unknown one with 401', async () => {
    const app = await gated({ authenticate: (token) => (token === 'good' ? alice : undefined) });
    expect((await get(app, 'Bearer good')).json()).toEqual({ user: 'alice' });
    expect((await get(app, 'Bearer bad')).statusCode).toBe(401);
    expect((await get(app)).statusCode).toBe(401);
    expect((await get(app, 'Basic good')).statusCode).toBe(401);
  });

  it('waits for a token answered asynchronously (a service-account token), and a token that stopped working is refused at once', async () => {
    let valid = true;
    const app = await gated({ authenticate: async (token) => (token === 'sa' && valid ? alice : undefined) });
    expect((await get(app, 'Bearer sa')).json()).toEqual({ user: 'alice' });
    valid = false;
    expect((await get(app, 'Bearer sa')).statusCode).toBe(401);
  });

  it('answers an authenticator failure as an error, not a hang or an anonymous request', async () => {
    const app = await gated({ authenticate: async () => Promise.reject(new Error('store closed')) });
    const res = await get(app, 'Bearer sa');
    expect(res.statusCode).toBe(500);
    expect(res.json().message).toBe('store closed');
  });
});
