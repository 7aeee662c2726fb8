/**
 * The e2e-sharded project's own proof that its servers are sharded: workspaces created through the front-proxy with
 * no location selector land on every one of the 3 shards (root and shard-1 on SQLite, shard-2 on etcd), and each is
 * served through the proxy's one URL. The other files of the project run unchanged on the same kind of server.
 * Placement is random among the matching shards, whatever else they host, so the project's shared cluster proves it
 * as well as a cluster of the file's own: the workspaces sit under a parent of a unique name.
 */
import { describe, expect, it } from 'vitest';
import { shardedClusterShards } from '../helpers/server.js';
import { uniqueName } from '../helpers/kubectl.js';
import { createWorkspace, eventually, useTenancyServer, workspace, type Json } from '../e2e/tenancy-fixtures.js';

// The project's shared cluster: every workspace of this file sits under a parent of a unique name.
const e2e = useTenancyServer({ sharded: true });

/** Enough that a random pick among 3 shards misses one with probability 3·(2/3)^24 < 0.002 %. */
const count = 24;

describe('workspaces of a sharded cluster', () => {
  it('land on each shard, and each answers through the front-proxy', async () => {
    expect(e2e.server.etcd, 'shard-2 stores in an etcd').toBeDefined();
    const parent = uniqueName('spread');
    await createWorkspace(e2e.at('root'), parent);
    const at = `root:${parent}`;
    const names = Array.from({ length: count }, (_, i) => `spread-${i}`);
    const list = { apiVersion: 'v1', kind: 'List', items: names.map((name) => workspace(name, { name: 'universal', path: 'root' })) };
    await e2e.at(at)(['create', '-f', '-'], { input: JSON.stringify(list) });

    const ready = await eventually('every workspace to be Ready', async () => {
      const items = (JSON.parse((await e2e.at(at)(['get', 'workspaces', '-o', 'json'])).stdout) as { items: Json[] }).items;
      expect(items.map((ws) => ws.metadata.name).sort()).toEqual([...names].sort());
      return items.length === count && items.every((ws) => ws.status?.phase === 'Ready') ? items : undefined;
    }, 60_000);

    const shardOf = new Map(ready.map((ws) => [ws.metadata.name as string, ws.metadata.annotations?.['core.kcp.io/shard'] as string]));
    expect(new Set(shardOf.values())).toEqual(new Set(['root', ...Array.from({ length: shardedClusterShards - 1 }, (_, i) => `shard-${i + 1}`)]));

    // One workspace per shard: a write and a read through the proxy reach the shard that hosts it.
    for (const shard of new Set(shardOf.values())) {
      const name = [...shardOf].find(([, s]) => s === shard)![0];
      const k = e2e.at(`${at}:${name}`);
      await k(['create', 'configmap', 'where', `--from-literal=shard=${shard}`]);
      expect((await k(['get', 'configmap', 'where', '-o', 'jsonpath={.data.shard}'])).stdout).toBe(shard);
      // The workspace's URL points through the proxy (the one URL users have), at its path.
      const ws = ready.find((w) => w.metadata.name === name)!;
      expect(ws.spec.URL).toBe(`${e2e.server.url}/clusters/${at}:${name}`);
    }
  });
});
