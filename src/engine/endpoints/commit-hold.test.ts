import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../storage/sqlite-store.js';
import type { Store } from '../storage/store.js';
import { holdForCommit } from './commit-hold.js';

const directory = mkdtempSync(join(tmpdir(), 'kcpt-commit-hold-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

function appOver(store: Pick<Store, 'settled' | 'commit'>, log: string[] = []) {
  const app = Fastify({ logger: false });
  app.addHook('onSend', (_request, reply, payload, done) => holdForCommit(store, reply, payload, done, (line) => log.push(line)));
  let n = 0;
  app.post('/write', (_request, reply) => {
    store.commit([{ type: 'create', key: `/registry/core/configmaps/c1/default/cm-${n++}`, value: '{}' }]);
    reply.header('content-type', 'application/json').send('{"written":true}');
  });
  app.get('/read', (_request, reply) => reply.send('read'));
  return app;
}

describe('answers wait for the turn they were made in', () => {
  it('sends a write answer only after its turn is committed (watchers hear first)', async () => {
    const store = openSqliteStore(join(directory, 'hold.db'), { turnCommits: true });
    const order: string[] = [];
    store.watch('/registry/core/configmaps/c1/', store.currentRevision(), () => order.push('committed'));
    const app = appOver(store);
    const answers = await Promise.all([app.inject({ method: 'POST', url: '/write' }), app.inject({ method: 'POST', url: '/write' })]);
    order.push('answered');
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200]);
    expect(order[0]).toBe('committed');
    expect(order.at(-1)).toBe('answered');
    // Nothing pending: an answer goes out without waiting.
    expect(store.settled()).toBeUndefined();
    expect((await app.inject({ method: 'GET', url: '/read' })).body).toBe('read');
    await app.close();
    store.close();
  });

  it('turns the answer into a 500 Status when the turn could not be committed', async () => {
    const failing = { settled: () => Promise.reject(new Error('disk I/O error')), commit: () => [] };
    const log: string[] = [];
    const app = appOver(failing, log);
    const answer = await app.inject({ method: 'POST', url: '/write' });
    expect(answer.statusCode).toBe(500);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.json()).toMatchObject({ kind: 'Status', status: 'Failure', code: 500, reason: 'InternalError' });
    expect(answer.json().message).toContain('disk I/O error');
    expect(log.join('\n')).toContain('disk I/O error');
    await app.close();
  });
});
