/**
 * Shards on loopback: a root shard and two more (`--shard-name shard-N --root-shard-kubeconfig`), each with
 * its own root directory and store, one shared CA. Driven with the real kubectl and `kcpt ws create` as kcp-admin of
 * root, whose token the other shards accept through a TokenReview to root.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runKcpt } from '../helpers/cli.js';
import { cleanupTempFiles, kubectl, tempFile, type KubectlResult } from '../helpers/kubectl.js';
import { startShardedCluster, type ShardedCluster } from '../helpers/shards.js';
import type { TestServer } from '../helpers/server.js';
import { eventually } from '../helpers/eventually.js';

type Json = Record<string, any>;

let cluster: ShardedCluster;

/** A `--token-auth-file` user of root only: the other shards learn who it is from root. */
const user1 = { token: 'user-1-token', name: 'user-1' };

beforeAll(async () => {
  const tokens = await tempFile('tokens.csv', `${user1.token},${user1.name},1111,"team-1"\n`);
  cluster = await startShardedCluster({ shards: 2, rootArgs: ['--token-auth-file', tokens] });
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
  await cleanupTempFiles();
}, 60_000);

/** kubectl as root's kcp-admin (root's admin.kubeconfig) at any URL: a shard's `/clusters/<cluster>` or root's. */
const at = (url: string, args: string[], reject = true): Promise<KubectlResult> =>
  kubectl(cluster.root, ['--server', url, ...args], { reject });
const rootAt = (path: string, args: string[]) => at(`${cluster.root.url}/clusters/${path}`, args);
const shardAt = (shard: TestServer, clusterName: string, args: string[], reject = true) =>
  at(`${shard.url}/clusters/${clusterName}`, args, reject);

async function json(result: Promise<KubectlResult>): Promise<Json> {
  return JSON.parse((await result).stdout) as Json;
}

const workspace = (parentUrl: string, name: string) => json(at(parentUrl, ['get', 'workspace', name, '-o', 'json']));

/** `kcpt ws create NAME --location-selector name=SHARD` in root (as kcp-admin); the workspace once Ready. */
async function createInRoot(name: string, shard: string): Promise<Json> {
  const run = await runKcpt(['ws', 'create', name, '--location-selector', `name=${shard}`], { ...cluster.root.env, KUBECONFIG: cluster.root.kubeconfig });
  expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
  return eventually(
    `${name} Ready`,
    async () => {
      const w = await workspace(`${cluster.root.url}/clusters/root`, name);
      return w.status?.phase === 'Ready' ? w : undefined;
    },
    20_000,
    150,
  );
}

describe('shards', () => {
  it('register as Shards in root with their URLs', async () => {
    const list = await json(rootAt('root', ['get', 'shards', '-o', 'json']));
    const byName = Object.fromEntries((list.items as Json[]).map((s) => [s.metadata.name, s]));
    expect(Object.keys(byName).sort()).toEqual(['root', 'shard-1', 'shard-2']);
    for (const [i, shard] of cluster.shards.entries()) {
      const s = byName[`shard-${i + 1}`]!;
      expect(s.metadata.labels).toMatchObject({ name: `shard-${i + 1}` });
      expect(s.spec).toEqual({ baseURL: shard.url, externalURL: shard.url, virtualWorkspaceURL: shard.url });
    }
    const table = (await rootAt('root', ['get', 'shards'])).stdout;
    expect(table).toMatch(/^NAME\s+REGION\s+URL\s+EXTERNAL URL\s+AGE/);
    expect(table).toContain(cluster.shards[0]!.url);
  });

  it('place a workspace on the shard its location selector names, which serves its content', async () => {
    const [shard1] = cluster.shards;
    const ws = await createInRoot('on-one', 'shard-1');
    expect(ws.metadata.annotations['core.kcp.io/shard']).toBe('shard-1');
    expect(ws.spec.URL).toBe(`${shard1!.url}/clusters/root:on-one`);
    const name = ws.spec.cluster as string;
    expect(name).toMatch(/^[a-z0-9]{16}$/);

    // The LogicalCluster lives on shard-1 (not on root), initialized there.
    const lc = await json(shardAt(shard1!, name, ['get', 'logicalcluster', 'cluster', '-o', 'json']));
    expect(lc.status.phase).toBe('Ready');
    expect(lc.metadata.annotations).toMatchObject({ 'kcp.io/path': 'root:on-one', 'core.kcp.io/shard': 'shard-1' });
    expect(lc.spec.owner).toMatchObject({ cluster: 'root', name: 'on-one', uid: ws.metadata.uid });
    expect((await shardAt(shard1!, name, ['get', 'namespaces', '-o', 'name'])).stdout.split('\n').sort()).toEqual([
      'namespace/default',
      'namespace/kube-system',
    ]);

    // kcp-admin's token (root's) works on shard-1; what is created there is not on root.
    await shardAt(shard1!, name, ['create', 'configmap', 'only-on-shard-1', '--from-literal=k=v']);
    expect((await shardAt(shard1!, name, ['get', 'configmap', 'only-on-shard-1', '-o', 'jsonpath={.data.k}'])).stdout).toBe('v');
    const onRoot = await at(`${cluster.root.url}/clusters/${name}`, ['get', 'configmap', 'only-on-shard-1'], false);
    expect(onRoot.exitCode).not.toBe(0);
    const onShard2 = await shardAt(cluster.shards[1]!, name, ['get', 'configmap', 'only-on-shard-1'], false);
    expect(onShard2.exitCode).not.toBe(0);
    // A user of root's token file is known on shard-1 too; RBAC there (on the hosting shard) decides what it may do.
    const asUser1 = (args: string[]) =>
      kubectl(cluster.root, ['--server', `${shard1!.url}/clusters/${name}`, '--token', user1.token, ...args], { reject: false });
    const before = await asUser1(['get', 'configmaps']);
    expect(before.exitCode).not.toBe(0);
    expect(before.stderr).toContain('User "user-1" cannot list resource "configmaps"');
    // kcp's two steps: `access` to enter the workspace, then RBAC inside it.
    await kubectl(cluster.root, ['--server', `${shard1!.url}/clusters/${name}`, 'apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'enter' },
        rules: [{ nonResourceURLs: ['/'], verbs: ['access'] }],
      }),
    });
    await shardAt(shard1!, name, ['create', 'clusterrolebinding', 'user-1-enter', '--clusterrole=enter', '--user=user-1']);
    await shardAt(shard1!, name, ['create', 'clusterrolebinding', 'user-1-view', '--clusterrole=view', '--user=user-1']);
    const after = await eventually(
      'user-1 let in on shard-1',
      async () => {
        const r = await asUser1(['get', 'configmaps', '-o', 'name']);
        return r.exitCode === 0 ? r : undefined;
      },
      10_000,
      150,
    );
    expect(after.stdout).toContain('configmap/only-on-shard-1');
    // A token nobody issued is refused by the shard, after asking root.
    const stranger = await kubectl(cluster.root, ['--server', `${shard1!.url}/clusters/${name}`, '--token', 'not-a-token', 'get', 'configmaps'], { reject: false });
    expect(stranger.stderr).toMatch(/Unauthorized|must be logged in/);
  });

  it('explain a selector no shard matches on the workspace', async () => {
    await kubectl(cluster.root, ['--server', `${cluster.root.url}/clusters/root`, 'apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'tenancy.kcp.io/v1alpha1',
        kind: 'Workspace',
        metadata: { name: 'nowhere' },
        spec: { location: { selector: { matchLabels: { name: 'shard-9' } } } },
      }),
    });
    const ws = await eventually(
      'a WorkspaceScheduled condition on nowhere',
      async () => {
        const w = await workspace(`${cluster.root.url}/clusters/root`, 'nowhere');
        return (w.status?.conditions ?? []).some((c: Json) => c.type === 'WorkspaceScheduled') ? w : undefined;
      },
      20_000,
      150,
    );
    expect(ws.status.phase).toBe('Scheduling');
    expect(ws.status.conditions.find((c: Json) => c.type === 'WorkspaceScheduled')).toMatchObject({
      status: 'False',
      reason: 'Unschedulable',
      message: 'No available shards to schedule the workspace',
    });
    await rootAt('root', ['delete', 'workspace', 'nowhere']);
  }, 60_000);

  it('let the shard hosting a workspace create its children, on itself or on another shard', async () => {
    const [shard1] = cluster.shards;
    const parent = await createInRoot('parent', 'shard-1');
    const parentUrl = `${shard1!.url}/clusters/${parent.spec.cluster}`;
    for (const [child, target] of [['local-child', 'shard-1'], ['on-two', 'shard-2'], ['on-root', 'root']] as const) {
      await kubectl(cluster.root, ['--server', parentUrl, 'apply', '-f', '-'], {
        input: JSON.stringify({
          apiVersion: 'tenancy.kcp.io/v1alpha1',
          kind: 'Workspace',
          metadata: { name: child },
          spec: { location: { selector: { matchLabels: { name: target } } } },
        }),
      });
    }
    const servers: Record<string, TestServer> = { 'shard-1': shard1!, 'shard-2': cluster.shards[1]!, root: cluster.root };
    for (const [child, target] of [['local-child', 'shard-1'], ['on-two', 'shard-2'], ['on-root', 'root']] as const) {
      const ws = await eventually(
        `${child} Ready`,
        async () => {
          const w = await workspace(parentUrl, child);
          return w.status?.phase === 'Ready' ? w : undefined;
        },
        20_000,
        150,
      );
      expect(ws.metadata.annotations['core.kcp.io/shard']).toBe(target);
      expect(ws.spec.type).toEqual({ name: 'universal', path: 'root' });
      expect(ws.spec.URL).toBe(`${servers[target]!.url}/clusters/root:parent:${child}`);
      const lc = await json(shardAt(servers[target]!, ws.spec.cluster, ['get', 'logicalcluster', 'cluster', '-o', 'json']));
      expect(lc.metadata.annotations['kcp.io/path']).toBe(`root:parent:${child}`);
      expect(lc.status.phase).toBe('Ready');
    }
    // The child list lives with the parent, on shard-1; root knows only `parent`.
    const names = (await at(parentUrl, ['get', 'workspaces', '-o', 'name'])).stdout.split('\n').sort();
    expect(names).toEqual(['workspace.tenancy.kcp.io/local-child', 'workspace.tenancy.kcp.io/on-root', 'workspace.tenancy.kcp.io/on-two']);
  }, 120_000);

  it('delete the LogicalCluster on its shard when its workspace is deleted', async () => {
    const shard2 = cluster.shards[1]!;
    const ws = await createInRoot('doomed', 'shard-2');
    const name = ws.spec.cluster as string;
    await shardAt(shard2, name, ['create', 'namespace', 'content']);
    await rootAt('root', ['delete', 'workspace', 'doomed']);
    expect((await rootAt('root', ['get', 'workspace', 'doomed', '--ignore-not-found', '-o', 'name'])).stdout).toBe('');
    const lc = await shardAt(shard2, name, ['get', 'logicalcluster', 'cluster'], false);
    expect(lc.exitCode).not.toBe(0);
    const ns = await shardAt(shard2, name, ['get', 'namespace', 'content'], false);
    expect(ns.exitCode).not.toBe(0);
  }, 60_000);

  it('keep a restarted shard’s workspaces, and let a shard start while root is down', async () => {
    const [shard1] = cluster.shards;
    const ws = await createInRoot('survivor', 'shard-1');
    await shardAt(shard1!, ws.spec.cluster, ['create', 'configmap', 'kept']);
    await shard1!.restart();
    expect((await shardAt(shard1!, ws.spec.cluster, ['get', 'configmap', 'kept', '-o', 'name'])).stdout).toBe('configmap/kept');

    // Root down: shard-2 restarts anyway and serves what it hosts to its own admin; once root is back, root's
    // tokens work again and the Shard is current.
    await cluster.root.kill();
    // kcp-admin's token was reviewed by root moments ago: shard-1 still knows it from its cache.
    expect((await shardAt(shard1!, ws.spec.cluster, ['get', 'configmap', 'kept', '-o', 'name'])).stdout).toBe('configmap/kept');
    const shard2 = cluster.shards[1]!;
    await shard2.restart();
    const own = await kubectl(shard2, ['--context', 'shard-base', 'get', '--raw', '/readyz']);
    expect(own.stdout).toBe('ok');
    await cluster.root.restart();
    const shards = await eventually(
      'three Shards in root',
      async () => {
        const l = await json(rootAt('root', ['get', 'shards', '-o', 'json']));
        return (l.items as Json[]).length === 3 ? l : undefined;
      },
      20_000,
      150,
    );
    expect((shards.items as Json[]).map((s) => s.metadata.name).sort()).toEqual(['root', 'shard-1', 'shard-2']);
    await createInRoot('after-restarts', 'shard-2');
  }, 120_000);
});
