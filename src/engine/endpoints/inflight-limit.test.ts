import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { budgetKey, isLongRunning, isReadOnly } from './inflight-limit.js';
import { installRequestAdmission } from './request-admission.js';
import type { UserInfo } from '../auth/user.js';

describe('which requests the in-flight limits count', () => {
  it('leaves watches out, by query or by the deprecated /watch/ path, and counts everything else', () => {
    expect(isLongRunning('GET', '/clusters/root/api/v1/configmaps?watch=true')).toBe(true);
    expect(isLongRunning('GET', '/clusters/root/api/v1/configmaps?labelSelector=a&watch=1')).toBe(true);
    expect(isLongRunning('GET', '/api/v1/watch/namespaces/default/configmaps')).toBe(true);
    expect(isLongRunning('GET', '/clusters/root/api/v1/configmaps?watch=false')).toBe(false);
    expect(isLongRunning('GET', '/clusters/root/api/v1/namespaces/default/configmaps/watcher')).toBe(false);
    expect(isLongRunning('POST', '/clusters/root/api/v1/configmaps?watch=true')).toBe(false);
  });

  it('splits reads from writes like kube (GET, HEAD, OPTIONS read; the rest mutate)', () => {
    expect(['GET', 'HEAD', 'OPTIONS'].every(isReadOnly)).toBe(true);
    expect(['POST', 'PUT', 'PATCH', 'DELETE'].some(isReadOnly)).toBe(false);
  });
});

/**
 * A server with the admission hook and one endpoint that holds every request open as a watch; `watch(token)` opens
 * one. `close()` ends the open ones and the server.
 */
async function watchServer(authenticate: (token: string) => UserInfo, watchesPerUser: number) {
  const app = Fastify();
  const open: Array<() => void> = [];
  installRequestAdmission(app, { authenticator: { authenticate }, inflight: { readOnly: 0, mutating: 0, watchesPerUser }, requestTimeoutMs: 0 });
  app.get('/w', (_request, reply) => {
    reply.raw.writeHead(200, { 'content-type': 'application/json' });
    reply.raw.write('\n');
    open.push(() => reply.raw.end());
    return reply;
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as AddressInfo).port;
  const watch = (token: string) =>
    new Promise<{ status: number; retryAfter?: string; body: Promise<string> }>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port, path: '/w?watch=true', headers: { authorization: `Bearer ${token}` } }, (res) => {
        const chunks: Buffer[] = [];
        const body = new Promise<string>((done) => res.on('end', () => done(Buffer.concat(chunks).toString())));
        res.on('data', (c: Buffer) => chunks.push(c));
        resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined, body });
      }).on('error', reject);
    });
  const close = async () => {
    for (const end of open) end();
    await app.close();
  };
  return { watch, open, close };
}

describe('watches one user holds open', () => {
  it('are capped per user with a 429 Status and Retry-After, leaving other users and closed watches’ slots free', async () => {
    // Each user's token is their name.
    const { watch, open, close } = await watchServer((name) => ({ username: name, groups: name === 'admin' ? ['system:masters'] : [] }), 2);
    try {
      expect((await watch('alice')).status).toBe(200);
      expect((await watch('alice')).status).toBe(200);
      const third = await watch('alice');
      expect(third.status).toBe(429);
      expect(third.retryAfter).toBe('1');
      expect(JSON.parse(await third.body)).toMatchObject({ kind: 'Status', reason: 'TooManyRequests', code: 429 });
      expect((await watch('bob')).status).toBe(200);
      expect((await watch('admin')).status).toBe(200);
      expect((await watch('admin')).status).toBe(200);
      expect((await watch('admin')).status).toBe(200);
      // A watch that ends gives its slot back.
      open.shift()!();
      let again = await watch('alice');
      while (again.status === 429) again = await watch('alice');
      expect(again.status).toBe(200);
    } finally {
      await close();
    }
  });
});

describe('whose share a request counts against', () => {
  // Every workspace has a system:serviceaccount:default:default: keyed by name alone, one tenant's account holding
  // its watches (or half the read budget) left every other workspace's namesake none.
  it('a service account is counted with its workspace, so a namesake elsewhere keeps its own watches', async () => {
    const sa = 'system:serviceaccount:default:default';
    // The token names the account's workspace.
    const { watch, close } = await watchServer((cluster) => ({ username: sa, groups: [], extra: { 'authentication.kcp.io/cluster-name': [cluster] } }), 1);
    try {
      expect((await watch('tenant-a')).status).toBe(200);
      expect((await watch('tenant-a')).status).toBe(429);
      expect((await watch('tenant-b')).status).toBe(200);
    } finally {
      await close();
    }
    expect(budgetKey({ username: 'alice', groups: [] })).toBe('alice');
  });
});
