/**
 * kube's max-in-flight limits with a tiny budget: `kcpt start --max-requests-inflight 1
 * --max-mutating-requests-inflight 1`, a burst of concurrent reads and writes over separate connections. Past the
 * budget the answer is an immediate 429 TooManyRequests Status with `Retry-After: 1`; watches are not counted (one
 * stays open through the burst); the server serves normally once the burst is over, and nothing half-written stays.
 * Watches have a budget of their own, per user (`--max-watches-per-user 3`).
 */
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRequest, openWatch } from '../helpers/http.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { keepAliveClient, type KeepAliveClient, type RawAnswer } from './keep-alive-client.js';

let server: TestServer;
let client: KeepAliveClient;
const cms = '/clusters/root/api/v1/namespaces/default/configmaps';
const json = { 'content-type': 'application/json' };

beforeAll(async () => {
  const tokens = join(tmpdir(), `kcpt-overload-tokens-${process.pid}.csv`);
  await writeFile(tokens, 'watcher-1-token,watcher-1,4001,\nwatcher-2-token,watcher-2,4002,\n');
  server = await startServer({
    storage: 'memory://',
    extraArgs: ['--max-requests-inflight', '1', '--max-mutating-requests-inflight', '1', '--max-watches-per-user', '3', '--token-auth-file', tokens],
  });
  // One socket per request: the burst really is concurrent.
  client = keepAliveClient(server, { sockets: 64 });
}, 60_000);

afterAll(async () => {
  client?.close();
  await server?.stop();
});

function expectTooMany(res: RawAnswer): void {
  expect(res.headers['retry-after']).toBe('1');
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(JSON.parse(res.body)).toMatchObject({
    kind: 'Status',
    status: 'Failure',
    code: 429,
    reason: 'TooManyRequests',
    message: 'Too many requests, please try again later.',
    details: { retryAfterSeconds: 1 },
  });
}

describe('--max-requests-inflight / --max-mutating-requests-inflight', () => {
  it('a burst past the budget gets 429 with Retry-After: 1, watches are not counted, and the server recovers', async () => {
    const watch = await openWatch(server, `${cms}?watch=true&timeoutSeconds=60`);
    expect(watch.status).toBe(200);

    const reads = Array.from({ length: 40 }, () => client.send({ method: 'GET', path: cms }));
    const writes = Array.from({ length: 40 }, (_, i) =>
      client.send({ method: 'POST', path: cms, headers: json, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `burst-${i}` } }) }),
    );
    const [readAnswers, writeAnswers] = await Promise.all([Promise.all(reads), Promise.all(writes)]);
    for (const answers of [readAnswers, writeAnswers]) {
      const statuses = answers.map((a) => a.status);
      expect(statuses.every((s) => s === 200 || s === 201 || s === 429), statuses.join(',')).toBe(true);
      expect(statuses.filter((s) => s === 429).length, 'refused').toBeGreaterThan(0);
      expect(statuses.filter((s) => s !== 429).length, 'served').toBeGreaterThan(0);
      answers.filter((a) => a.status === 429).forEach(expectTooMany);
    }

    // Exactly the acknowledged creates exist; a refused one left nothing behind.
    const created = writeAnswers.flatMap((a, i) => (a.status === 201 ? [`burst-${i}`] : [])).sort();
    const listed = (JSON.parse((await client.send({ method: 'GET', path: cms })).body).items as { metadata: { name: string } }[])
      .map((cm) => cm.metadata.name)
      .filter((n) => n.startsWith('burst-'))
      .sort();
    expect(listed).toEqual(created);

    // The watch was never refused and saw every acknowledged create.
    await expect.poll(() => watch.events.filter((e) => e.type === 'ADDED' && e.object.metadata.name.startsWith('burst-')).length).toBe(created.length);
    expect(watch.hasEnded()).toBe(false);
    watch.close();

    // One at a time is always served.
    for (let i = 0; i < 5; i++) expect((await client.send({ method: 'GET', path: cms })).status).toBe(200);
    expect((await client.send({ method: 'GET', path: '/readyz' })).status).toBe(200);
  });
});

describe('--max-watches-per-user', () => {
  it('one user past the cap gets 429 with Retry-After: 1; other users and system:masters still watch; a closed watch frees its slot', async () => {
    const binding = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'watchers' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: ['watcher-1', 'watcher-2'].map((name) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name })),
    };
    const bound = await apiRequest(server, '/clusters/root/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', { method: 'POST', headers: json, body: JSON.stringify(binding) });
    expect(bound.status, bound.body).toBe(201);
    const path = `${cms}?watch=true&timeoutSeconds=60`;
    const open = [];
    try {
      for (let i = 0; i < 3; i++) open.push(await openWatch(server, path, { token: 'watcher-1-token' }));
      expect(open.map((w) => w.status)).toEqual([200, 200, 200]);
      const refused = await apiRequest(server, path, { token: 'watcher-1-token' });
      expect(refused.status).toBe(429);
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.json()).toMatchObject({ kind: 'Status', reason: 'TooManyRequests', code: 429 });
      open.push(await openWatch(server, path, { token: 'watcher-2-token' }));
      open.push(await openWatch(server, path));
      expect(open.slice(3).map((w) => w.status)).toEqual([200, 200]);
      // The server sees the closed stream go: wait for the slot to come back rather than for a duration.
      open.shift()!.close();
      let again = await openWatch(server, path, { token: 'watcher-1-token' });
      while (again.status === 429) {
        await again.ended;
        again = await openWatch(server, path, { token: 'watcher-1-token' });
      }
      open.push(again);
      expect(again.status).toBe(200);
    } finally {
      for (const w of open) w.close();
    }
  });
});
