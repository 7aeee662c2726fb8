/**
 * Crash safety: several clients write at once (ConfigMap creates, updates and deletes, Workspace creations) while the
 * server is SIGKILLed at a random moment, then restarted on the same SQLite file. After every round: each
 * acknowledged write is there with its resourceVersion (deleted ones gone), nothing unacknowledged is half-present (a
 * Workspace always gets its LogicalCluster and becomes Ready), resourceVersions keep growing across the restart, a
 * watch resumed from the last revision it saw replays to exactly the listed state with every event once, and the
 * database passes `PRAGMA integrity_check` without repair.
 *
 * `npm run test:crash` runs KCPT_CRASH_ROUNDS=20 and writes the figures to docs/reliability.md (KCPT_CRASH_REPORT);
 * the default `npm test` run keeps a 3-round smoke.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, openWatch, type WatchStream } from '../helpers/http.js';
import { rng } from '../helpers/seeded-random.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { keepAliveClient, type KeepAliveClient } from './keep-alive-client.js';
import { writeSection } from './report-section.js';
import { eventually } from '../helpers/eventually.js';

const rounds = Number(process.env.KCPT_CRASH_ROUNDS ?? 3);
const seed = Number(process.env.KCPT_CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
const writers = 6;
const namespace = 'crash';
const cms = `/clusters/root/api/v1/namespaces/${namespace}/configmaps`;
const workspaces = '/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces';
const json = { 'content-type': 'application/json' };

/** What the clients know about one ConfigMap: its acknowledged state, and whether a request on it was cut off. */
interface Known {
  /** Last acknowledged state: present at `rv` holding `value`, or deleted. */
  acked: { present: true; rv: number; value: string } | { present: false };
  /** A request whose answer never came (the server died): its effect may or may not have landed. */
  inDoubt: boolean;
}

let server: TestServer;
const known = new Map<string, Known>();
const ackedWorkspaces = new Set<string>();
const doubtfulWorkspaces = new Set<string>();
const figures = { rounds: 0, requests: 0, acknowledged: 0, inDoubt: 0, lost: 0, watchEvents: 0, workspaces: 0, turnWrites: 0 };
let maxAckedRv = 0;

beforeAll(async () => {
  server = await startServer();
  const c = keepAliveClient(server);
  const res = await c.send({ method: 'POST', path: '/clusters/root/api/v1/namespaces', headers: json, body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }) });
  c.close();
  expect(res.status).toBe(201);
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

/** One client's loop until `stop()`: creates, updates and deletes its own ConfigMaps, recording every answer. */
async function writer(client: KeepAliveClient, id: string, random: () => number, stopped: () => boolean): Promise<void> {
  let n = 0;
  const mine: string[] = [];
  while (!stopped()) {
    const pick = random();
    const live = mine.filter((name) => known.get(name)?.acked.present && !known.get(name)!.inDoubt);
    let name: string;
    let req: { method: string; path: string; body?: string };
    let value = '';
    let op: 'create' | 'update' | 'delete';
    if (live.length === 0 || pick < 0.5) {
      op = 'create';
      name = `${id}-${n++}`;
      value = `v${n}`;
      mine.push(name);
      known.set(name, { acked: { present: false }, inDoubt: false });
      req = { method: 'POST', path: cms, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { v: value } }) };
    } else {
      name = live[Math.floor(random() * live.length)]!;
      const state = known.get(name)!.acked as { rv: number };
      if (pick < 0.85) {
        op = 'update';
        value = `u${Math.floor(random() * 1e9)}`;
        req = {
          method: 'PUT',
          path: `${cms}/${name}`,
          body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, resourceVersion: String(state.rv) }, data: { v: value } }),
        };
      } else {
        op = 'delete';
        req = { method: 'DELETE', path: `${cms}/${name}` };
      }
    }
    const entry = known.get(name)!;
    figures.requests++;
    let res;
    try {
      res = await client.send({ ...req, headers: json }, 10_000);
    } catch {
      // No answer: the server died with the request in flight.
      entry.inDoubt = true;
      figures.inDoubt++;
      return;
    }
    if (res.status >= 300) throw new Error(`${op} ${name}: ${res.status} ${res.body}`);
    figures.acknowledged++;
    if (op === 'delete') entry.acked = { present: false };
    else {
      const rv = Number(JSON.parse(res.body).metadata.resourceVersion);
      entry.acked = { present: true, rv, value };
      maxAckedRv = Math.max(maxAckedRv, rv);
    }
  }
}

/** Creates Workspaces one after another until `stop()`. */
async function workspaceWriter(client: KeepAliveClient, round: number, stopped: () => boolean): Promise<void> {
  for (let n = 0; !stopped(); n++) {
    const name = `crash-${round}-${n}`;
    figures.requests++;
    try {
      const res = await client.send(
        { method: 'POST', path: workspaces, headers: json, body: JSON.stringify({ apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name } }) },
        10_000,
      );
      if (res.status !== 201) throw new Error(`workspace ${name}: ${res.status} ${res.body}`);
      figures.acknowledged++;
      ackedWorkspaces.add(name);
    } catch (err) {
      if (/^workspace /.test((err as Error).message)) throw err;
      doubtfulWorkspaces.add(name);
      figures.inDoubt++;
      return;
    }
  }
}

/** Events of a watch replayed onto name → resourceVersion; every revision must come once, in increasing order. */
class Replay {
  readonly state = new Map<string, number>();
  lastRv = 0;
  private consumed = 0;

  apply(stream: WatchStream): void {
    for (; this.consumed < stream.events.length; this.consumed++) {
      const { type, object } = stream.events[this.consumed]!;
      if (type === 'ERROR') throw new Error(`watch error: ${JSON.stringify(object)}`);
      if (type === 'BOOKMARK') continue;
      const rv = Number(object.metadata.resourceVersion);
      if (rv <= this.lastRv) throw new Error(`watch event at ${rv} after ${this.lastRv}: a duplicate or out of order`);
      this.lastRv = rv;
      figures.watchEvents++;
      if (type === 'DELETED') this.state.delete(object.metadata.name);
      else this.state.set(object.metadata.name, rv);
    }
  }

  /** Starts over on a new stream (the old one died with the server). */
  follow(): void {
    this.consumed = 0;
  }
}

/** The server's count of creates written inside a transaction shared with others of their turn (since it started). */
async function turnWrites(): Promise<number> {
  // /metrics is for system:masters and monitoring, not kcp-admin.
  const client = keepAliveClient(server, { token: adminToken(server.kubeconfig, 'shard-admin') });
  try {
    const res = await client.send({ method: 'GET', path: '/metrics' });
    expect(res.status, res.body).toBe(200);
    const text = res.body;
    return Number(/^kcpt_create_turn_writes_total (\d+)$/m.exec(text)?.[1] ?? 0);
  } finally {
    client.close();
  }
}

function integrityCheck(): string {
  const db = new Database(join(server.rootDir, 'kcpt.db'), { fileMustExist: true });
  try {
    return String(db.pragma('integrity_check', { simple: true }));
  } finally {
    db.close();
  }
}

describe(`crash safety: ${rounds} SIGKILL rounds (KCPT_CRASH_SEED=${seed})`, () => {
  it('keeps every acknowledged write, nothing half-written, revisions monotonic, watches exact, the database sound', async () => {
    console.log(`crash: KCPT_CRASH_SEED=${seed} KCPT_CRASH_ROUNDS=${rounds}`);
    const random = rng(seed);
    const replay = new Replay();
    let watch = await openWatch(server, `${cms}?watch=true&resourceVersion=0`);
    let rvBeforeKill = 0;
    for (let round = 1; round <= rounds; round++) {
      // Write from several clients, and kill the server at a random moment.
      const client = keepAliveClient(server, { sockets: writers + 1 });
      let stop = false;
      const running = [
        ...Array.from({ length: writers }, (_, i) => writer(client, `r${round}w${i}`, rng(seed + round * 31 + i), () => stop)),
        workspaceWriter(client, round, () => stop),
      ];
      await new Promise((r) => setTimeout(r, 400 + Math.floor(random() * 2000)));
      // Concurrent creates are committed several to a transaction (create-turn.ts): the kill lands on that path too.
      figures.turnWrites += await turnWrites();
      await server.kill();
      stop = true;
      await Promise.all(running);
      client.close();
      replay.apply(watch);
      watch.close();
      expect(integrityCheck(), `round ${round}: integrity_check`).toBe('ok');

      await server.restart();
      const after = keepAliveClient(server);
      // The first write after the restart gets a revision above everything acknowledged before it.
      const marker = await after.send({
        method: 'POST',
        path: cms,
        headers: json,
        body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `marker-${round}` } }),
      });
      expect(marker.status).toBe(201);
      const markerRv = Number(JSON.parse(marker.body).metadata.resourceVersion);
      expect(markerRv, `round ${round}: revision after restart`).toBeGreaterThan(Math.max(maxAckedRv, rvBeforeKill));
      rvBeforeKill = markerRv;

      // A watch resumed from the last revision it saw delivers the rest exactly once, up to the marker.
      watch = await openWatch(server, `${cms}?watch=true&resourceVersion=${Math.max(1, replay.lastRv)}`);
      expect(watch.status).toBe(200);
      replay.follow();
      await eventually('the marker in the resumed watch', async () => {
        replay.apply(watch);
        return replay.state.has(`marker-${round}`) ? true : undefined;
      }, 30_000, 100);

      // The list at this moment is what the watch replays to, and holds every acknowledged write.
      const list = JSON.parse((await after.send({ method: 'GET', path: cms })).body) as { items: { metadata: { name: string; resourceVersion: string }; data?: { v?: string } }[] };
      const listed = new Map(list.items.map((cm) => [cm.metadata.name, cm]));
      expect(new Map([...listed].map(([name, cm]) => [name, Number(cm.metadata.resourceVersion)])), `round ${round}: watch replay = list`).toEqual(replay.state);
      for (const [name, entry] of known) {
        const cm = listed.get(name);
        if (entry.inDoubt) {
          // Cut off mid-request: either outcome, but never older than what was acknowledged.
          if (cm && entry.acked.present) expect(Number(cm.metadata.resourceVersion)).toBeGreaterThanOrEqual(entry.acked.rv);
          // Settle what the server kept, so the next round starts from certainty.
          entry.inDoubt = false;
          entry.acked = cm ? { present: true, rv: Number(cm.metadata.resourceVersion), value: cm.data?.v ?? '' } : { present: false };
          continue;
        }
        if (!entry.acked.present) {
          if (cm) figures.lost++;
          expect(cm, `round ${round}: ${name} was deleted`).toBeUndefined();
        } else {
          if (!cm || Number(cm.metadata.resourceVersion) !== entry.acked.rv || cm.data?.v !== entry.acked.value) figures.lost++;
          expect(cm?.metadata.resourceVersion, `round ${round}: ${name}`).toBe(String(entry.acked.rv));
          expect(cm?.data?.v, `round ${round}: ${name}`).toBe(entry.acked.value);
        }
      }

      // Every acknowledged Workspace is there; every Workspace that is there (cut off or not) becomes Ready with its
      // LogicalCluster: none is left half-created.
      const wsList = JSON.parse((await after.send({ method: 'GET', path: workspaces })).body) as { items: { metadata: { name: string } }[] };
      const present = new Set(wsList.items.map((w) => w.metadata.name));
      for (const name of ackedWorkspaces) {
        if (!present.has(name)) figures.lost++;
        expect(present.has(name), `round ${round}: workspace ${name}`).toBe(true);
      }
      const mine = [...present].filter((n) => n.startsWith(`crash-${round}-`));
      figures.workspaces += mine.length;
      await Promise.all(
        mine.map((name) =>
          eventually(`workspace ${name} Ready with its LogicalCluster`, async () => {
            const ws = JSON.parse((await after.send({ method: 'GET', path: `${workspaces}/${name}` })).body);
            if (ws.status?.phase !== 'Ready' || !ws.spec?.cluster) return undefined;
            const lc = await after.send({ method: 'GET', path: `/clusters/${ws.spec.cluster}/apis/core.kcp.io/v1alpha1/logicalclusters/cluster` });
            return lc.status === 200 ? true : undefined;
          }, 30_000, 100),
        ),
      );
      doubtfulWorkspaces.clear();
      after.close();
      figures.rounds = round;
    }
    watch.close();
    console.log(`crash: ${JSON.stringify(figures)}`);
    expect(figures.lost).toBe(0);
    expect(figures.turnWrites, 'creates committed together with others of their turn').toBeGreaterThan(0);
    if (process.env.KCPT_CRASH_REPORT) writeReport(process.env.KCPT_CRASH_REPORT);
  }, 900_000);
});

const BEGIN = '<!-- crash-safety: generated by npm run test:crash -->';
const END = '<!-- end crash-safety -->';

/** Rewrites the crash-safety section of docs/reliability.md (between its markers), leaving the rest as written. */
function writeReport(path: string): void {
  const section = `${BEGIN}
## Crash safety (SIGKILL during concurrent writes, SQLite storage)

Regenerated by \`npm run test:crash\` (test/reliability/crash.test.ts) on ${new Date().toISOString().slice(0, 10)}, seed ${seed}.

| figure | value |
| --- | --- |
| rounds (SIGKILL at a random moment, restart on the same file) | ${figures.rounds} |
| requests sent (ConfigMap create/update/delete, Workspace create; ${writers} + 1 clients) | ${figures.requests} |
| acknowledged writes | ${figures.acknowledged} |
| requests cut off by the kill (either outcome allowed, then settled) | ${figures.inDoubt} |
| creates committed in a transaction shared with others of their turn (counted before each kill) | ${figures.turnWrites} |
| Workspaces checked Ready with their LogicalCluster | ${figures.workspaces} |
| watch events replayed across restarts (each exactly once) | ${figures.watchEvents} |
| acknowledged writes lost or changed | **${figures.lost}** |
| \`PRAGMA integrity_check\` after each kill | ok every round |

Checked after every restart: each acknowledged write present with its exact resourceVersion and value (deletes
absent); the first write after the restart above every revision acknowledged before it; a watch resumed from its
last revision replaying to exactly the listed state (revisions strictly increasing, none twice); every Workspace that
exists, acknowledged or cut off, becoming Ready with its LogicalCluster.
${END}`;
  writeSection(path, BEGIN, END, section);
}
