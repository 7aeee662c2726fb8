import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import type { UserInfo } from '../auth/user.js';
import { defaultHomeOptions, homePath } from '../tenancy/home-workspaces.js';
import { installRequestAdmission } from './request-admission.js';
import { tenantShare } from './tenant-share.js';

const home = (user: string) => homePath(user, defaultHomeOptions);
const paths: Record<string, string> = {
  'c-mallory': home('mallory'),
  'c-mallory-ci': `${home('mallory')}:ci:nightly`,
  'c-bob': home('bob'),
  'c-org-team': 'root:org-a:team',
  'c-org': 'root:org-a',
  root: 'root',
};
const sa = (cluster: string, name = 'default'): UserInfo => ({
  username: `system:serviceaccount:default:${name}`,
  groups: ['system:serviceaccounts', 'system:authenticated'],
  extra: { 'authentication.kcp.io/cluster-name': [cluster] },
});
const share = tenantShare((cluster) => paths[cluster], defaultHomeOptions);

describe('tenantShare', () => {
  it("counts a user with their home tree's service accounts, an organisation's accounts together", () => {
    expect(share({ username: 'mallory', groups: [] })).toBe(home('mallory'));
    expect(share(sa('c-mallory'))).toBe(home('mallory'));
    expect(share(sa('c-mallory', 'drip'))).toBe(home('mallory'));
    expect(share(sa('c-mallory-ci', 'bot'))).toBe(home('mallory'));
    expect(share({ username: 'bob', groups: [] })).toBe(home('bob'));
    expect(share(sa('c-bob'))).toBe(home('bob'));
    expect(share(sa('c-org-team'))).toBe('root:org-a');
    expect(share(sa('c-org', 'x'))).toBe('root:org-a');
    expect(share(sa('root'))).toBe('root');
    // A workspace this shard cannot place: its accounts together.
    expect(share(sa('c-elsewhere', 'a'))).toBe(share(sa('c-elsewhere', 'b')));
    expect(share(sa('c-elsewhere'))).not.toBe(share(sa('c-other')));
    // The shards' own clients keep their own.
    expect(share({ username: 'shard-admin', groups: ['system:masters'] })).toBe('shard-admin');
  });
});

describe("a tenant's identities take one share of the in-flight budget", () => {
  it('so two service accounts and their user cannot take every read slot from another tenant', async () => {
    // 4 read slots, 2 per share. Tokens: the user, or `sa:<cluster>:<name>`.
    const users = (token: string): UserInfo => {
      const [kind, cluster, name] = token.split(':');
      return kind === 'sa' ? sa(cluster!, name) : { username: token, groups: ['system:authenticated'] };
    };
    const app = Fastify();
    const held: Array<() => void> = [];
    installRequestAdmission(app, { authenticator: { authenticate: users }, inflight: { readOnly: 4, mutating: 0, watchesPerUser: 0 }, requestTimeoutMs: 0, shareKey: share });
    app.get('/hold', (_request, reply) => {
      held.push(() => reply.send('{}'));
      return reply;
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as AddressInfo).port;
    const agent = new http.Agent({ keepAlive: false });
    const statuses: Array<Promise<number>> = [];
    const get = (token: string) => {
      const status = new Promise<number>((resolve, reject) => {
        http.get({ host: '127.0.0.1', port, path: '/hold', agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        }).on('error', reject);
      });
      statuses.push(status);
      return status;
    };
    // What a request got: its status, or 'held' once the handler holds it (it took a slot).
    const outcome = async (token: string): Promise<number | 'held'> => {
      const before = held.length;
      const status = get(token);
      for (;;) {
        const settled = await Promise.race([status, new Promise<undefined>((r) => setTimeout(() => r(undefined), 5))]);
        if (settled !== undefined) return settled;
        if (held.length > before) return 'held';
      }
    };
    try {
      expect(await outcome('mallory')).toBe('held');
      expect(await outcome('sa:c-mallory:drip')).toBe('held');
      // mallory's share is full: her other accounts, in her home and below it, wait like her (each its own share
      // before: 'held', and then bob's 429).
      expect(await outcome('sa:c-mallory:drip2')).toBe(429);
      expect(await outcome('sa:c-mallory-ci:bot')).toBe(429);
      // bob's share is whole.
      expect(await outcome('bob')).toBe('held');
      expect(await outcome('sa:c-bob:ci')).toBe('held');
      for (const release of held) release();
      expect((await Promise.allSettled(statuses)).map((r) => (r.status === 'fulfilled' ? r.value : 0))).toEqual([200, 200, 429, 429, 200, 200]);
    } finally {
      for (const release of held) release();
      await Promise.allSettled(statuses);
      await app.close();
    }
  });
});
