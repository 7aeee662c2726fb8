/**
 * A workspace tree's deletion SIGKILLed at a random moment, then restarted on the same SQLite file: the deletion
 * finishes by itself (the LogicalClusters' and Workspaces' deletion markers bring it back), every workspace of the
 * tree is gone, and no row of any of its logical clusters is left behind (objects, deletion markers, bookkeeping and
 * access-subjects rows: every key naming one of the clusters), the database sound after each kill.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { rng } from '../helpers/seeded-random.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { keepAliveClient, type KeepAliveClient } from './keep-alive-client.js';

const rounds = Number(process.env.KCPT_CRASH_ROUNDS ?? 3);
const seed = Number(process.env.KCPT_CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
const json = { 'content-type': 'application/json' };
const wsPath = (path: string) => `/clusters/${path}/apis/tenancy.kcp.io/v1alpha1/workspaces`;

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

/** Creates `name` under `parent` and waits until it is Ready; returns its logical cluster. */
async function readyWorkspace(c: KeepAliveClient, parent: string, name: string): Promise<string> {
  const res = await c.send({ method: 'POST', path: wsPath(parent), headers: json, body: JSON.stringify({ apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name } }) });
  expect(res.status, res.body).toBe(201);
  return eventually(`${parent}:${name} Ready`, async () => {
    const ws = JSON.parse((await c.send({ method: 'GET', path: `${wsPath(parent)}/${name}` })).body);
    return ws.status?.phase === 'Ready' ? (ws.spec.cluster as string) : undefined;
  }, 30_000, 50);
}

/** A top workspace with `fanout` children and `fanout` grandchildren under each; returns their logical clusters. */
async function tree(c: KeepAliveClient, top: string, fanout: number): Promise<string[]> {
  const clusters = [await readyWorkspace(c, 'root', top)];
  for (let i = 0; i < fanout; i++) {
    const child = `root:${top}`;
    clusters.push(await readyWorkspace(c, child, `c${i}`));
    clusters.push(...(await Promise.all(Array.from({ length: fanout }, (_, j) => readyWorkspace(c, `${child}:c${i}`, `g${j}`)))));
  }
  return clusters;
}

/** With the server down: every key that names one of `clusters` as a path segment, and the integrity check. */
function readDatabase(clusters: string[]): { keys: string[]; integrity: string } {
  const db = new Database(join(server.rootDir, 'kcpt.db'), { fileMustExist: true, readonly: true });
  try {
    const all = db.prepare('SELECT key FROM objects').pluck().all() as string[];
    const keys = all.filter((key) => clusters.some((cluster) => key.includes(`/${cluster}/`)));
    return { keys, integrity: String(db.pragma('integrity_check', { simple: true })) };
  } finally {
    db.close();
  }
}

describe(`a tree deletion killed midway: ${rounds} rounds (KCPT_CRASH_SEED=${seed})`, () => {
  it('finishes after the restart, leaving no row of any of its clusters', async () => {
    console.log(`deletion-crash: KCPT_CRASH_SEED=${seed} KCPT_CRASH_ROUNDS=${rounds}`);
    const random = rng(seed);
    for (let round = 1; round <= rounds; round++) {
      const top = `doomed-${round}`;
      let c = keepAliveClient(server, { sockets: 4 });
      const clusters = await tree(c, top, 4);
      const deleted = await c.send({ method: 'DELETE', path: `${wsPath('root')}/${top}` });
      expect(deleted.status, deleted.body).toBeLessThan(300);
      // The 21 workspaces take some tens of milliseconds to go: the kill lands before, during or (rarely) after.
      await new Promise((r) => setTimeout(r, Math.floor(random() * 40)));
      await server.kill();
      c.close();
      const atKill = readDatabase(clusters);
      expect(atKill.integrity, `round ${round}: integrity_check`).toBe('ok');

      console.log(`deletion-crash: round ${round}: killed with ${atKill.keys.length} rows of the tree's clusters left`);
      await server.restart();
      c = keepAliveClient(server);
      await eventually(`round ${round}: ${top} gone after the restart (${atKill.keys.length} rows of its clusters at the kill)`, async () => {
        return (await c.send({ method: 'GET', path: `${wsPath('root')}/${top}` })).status === 404;
      }, 60_000, 100);
      c.close();
      // The top goes last (its LogicalCluster waits for every child): nothing of the tree may remain.
      await server.kill();
      const after = readDatabase(clusters);
      expect(after.integrity).toBe('ok');
      expect(after.keys, `round ${round}: rows left of the tree's clusters`).toEqual([]);
      await server.restart();
    }
  });
});
