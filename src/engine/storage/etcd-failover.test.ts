/**
 * The etcd store on a three-member etcd under a steady stream of commits: one member down changes nothing a user
 * would notice (no acknowledged write lost, writes keep succeeding); two down (no quorum) makes writes fail with an
 * etcd error while reads keep being served; with the members back, writes succeed again and everything that was
 * acknowledged is in etcd, as a fresh store loading the keyspace shows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cm, inCluster } from './contract-support.js';
import { startLocalEtcdCluster, type LocalEtcdCluster } from './etcd-launcher.js';
import { openEtcdStore, type EtcdStore } from './etcd-store.js';

let cluster: LocalEtcdCluster;
beforeAll(async () => {
  cluster = await startLocalEtcdCluster(3);
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('etcd store: failover on a three-member etcd', () => {
  it('survives one member down, fails writes without quorum, recovers, and loses nothing acknowledged', async () => {
    const open = () => openEtcdStore({ endpoints: cluster.endpoints, prefix: '/failover', timeoutMs: 3000 });
    const store: EtcdStore = open();
    const acknowledged = new Map<string, number>();
    const failures: string[] = [];
    let next = 0;
    /** One create; remembers it only if commit() returned (i.e. etcd acknowledged it). */
    const write = () => {
      const key = cm('load', `k${next++}`);
      try {
        const [result] = store.commit([{ type: 'create', key, value: `v${next}` }]);
        acknowledged.set(key, result!.revision);
        return true;
      } catch (error) {
        failures.push((error as Error).message);
        return false;
      }
    };
    /** Writes with the event loop turning in between (etcd's client needs it), until `count` succeeded. */
    const writeSucceeding = async (count: number, withinMs: number) => {
      const deadline = Date.now() + withinMs;
      let done = 0;
      while (done < count) {
        if (Date.now() > deadline) throw new Error(`only ${done}/${count} writes succeeded in ${withinMs} ms: ${failures.slice(-3).join(' | ')}`);
        if (write()) done++;
        else await sleep(200);
        await sleep(5);
      }
    };

    try {
      await writeSucceeding(20, 10_000);

      // One member down (possibly the leader): after at most an election, writes go on.
      await cluster.members[0]!.stop();
      await writeSucceeding(30, 20_000);
      const failuresWithOneDown = failures.length;

      // Two down: no quorum. Writes fail (after the timeout) with an etcd error and change nothing; reads still work.
      await cluster.members[1]!.stop();
      const before = store.currentRevision();
      const listed = store.list(inCluster('load')).items.length;
      expect(write()).toBe(false);
      expect(failures.at(-1)).toMatch(/etcd/);
      // The first write waited its timeout; the next ones are refused without sending etcd a transaction (the server
      // is not blocked a timeout on each), until the worker's background probe reads etcd again.
      expect(write()).toBe(false);
      expect(write()).toBe(false);
      expect(failures.at(-1)).toMatch(/etcd at .* is unavailable .*refuses writes until it answers again/);
      expect(store.currentRevision()).toBe(before);
      expect(store.list(inCluster('load')).items).toHaveLength(listed);

      // Members back: writes succeed again.
      await Promise.all([cluster.members[0]!.start(), cluster.members[1]!.start()]);
      await writeSucceeding(20, 30_000);

      // Everything acknowledged is in etcd with its revision, as a fresh load of the keyspace shows.
      const reloaded = open();
      try {
        for (const [key, revision] of acknowledged) expect(reloaded.get(key)?.revision, key).toBe(revision);
        expect(reloaded.currentRevision()).toBe(store.currentRevision());
        expect(reloaded.list(inCluster('load')).items.map((kv) => kv.key).sort()).toEqual(
          store.list(inCluster('load')).items.map((kv) => kv.key).sort(),
        );
      } finally {
        reloaded.close();
      }
      expect(acknowledged.size).toBeGreaterThanOrEqual(70);
      // Informational for the report when it fails: how many writes the election cost.
      expect(failuresWithOneDown).toBeLessThan(30);
    } finally {
      store.close();
    }
  }, 120_000);
});
