/**
 * Three shards on two storages behind `kcpt front-proxy`: root and shard-1 on SQLite, shard-2 on
 * its own etcd, each started on its own (`--shard-name … --root-shard-kubeconfig …`) and one `kcpt front-proxy` in
 * front. Everything goes through the proxy's URL with the real kubectl and `kcpt ws`: workspaces land on each
 * storage, an API exported on the etcd shard is bound and used there, and the etcd shard killed answers 503 while the
 * SQLite shards go on; restarted, it serves what it had acknowledged.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { printedKubeconfig, runKcpt, spawnKcpt, useScratchDirectory } from '../helpers/cli.js';
import { kubectl, type KubectlOptions } from '../helpers/kubectl.js';
import { freePort } from '../helpers/server.js';
import { startShardedCluster, type ShardedCluster } from '../helpers/shards.js';
import { apiBinding, apiExport, resourceSchema } from './apis-fixtures.js';
import { eventually } from './tenancy-fixtures.js';

const scratch = useScratchDirectory('kcpt-front-proxy-mixed-');
let cluster: ShardedCluster;
let proxy: ResultPromise;
let proxyUrl = '';
let proxyKubeconfig = '';

beforeAll(async () => {
  cluster = await startShardedCluster({ shards: 2, etcd: (shard) => shard === 'shard-2' });
  const port = await freePort();
  const started = spawnKcpt(
    ['front-proxy', '--root-kubeconfig', cluster.root.kubeconfig, '--root-directory', await cluster.pki.rootDirectory('proxy'), '--secure-port', String(port)],
    { NO_COLOR: '1', HOME: cluster.root.env.HOME! },
  );
  proxy = started.child;
  proxyKubeconfig = await printedKubeconfig(started, 60_000);
  proxyUrl = `https://127.0.0.1:${port}`;
}, 180_000);

afterAll(async () => {
  proxy?.kill('SIGTERM');
  await proxy;
  await cluster?.stop();
}, 60_000);

/** kubectl through the proxy as kcp-admin, at `/clusters/<path>`. */
const kIn = (path: string, args: string[], opts: KubectlOptions = {}) =>
  kubectl(cluster.root, ['--server', `${proxyUrl}/clusters/${path}`, ...args], { ...opts, env: { KUBECONFIG: proxyKubeconfig, ...opts.env } });

/** `kcpt ws …` with a copy of the proxy's kubeconfig of its own. */
async function kcpt(kubeconfig: string, args: string[]): Promise<string> {
  const r = await runKcpt(args, { ...cluster.root.env, KUBECONFIG: kubeconfig });
  expect(r.exitCode, `kcpt ${args.join(' ')}\n${r.stdout}\n${r.stderr}`).toBe(0);
  return r.stdout;
}

function kubeconfigCopy(name: string): string {
  const file = join(scratch.path, `${name}.kubeconfig`);
  copyFileSync(proxyKubeconfig, file);
  return file;
}

async function shardOf(parent: string, name: string): Promise<string> {
  const ws = JSON.parse((await kIn(parent, ['get', 'workspace', name, '-o', 'json'])).stdout) as { metadata: { annotations: Record<string, string> } };
  return ws.metadata.annotations['core.kcp.io/shard']!;
}

describe('front-proxy over root and shard-1 on SQLite and shard-2 on etcd', () => {
  it('places workspaces on both storages and serves kubectl in each through the one URL', async () => {
    expect(cluster.shards[1]!.etcd, 'shard-2 stores in etcd').toBeDefined();
    expect(cluster.shards[0]!.etcd, 'shard-1 stores in SQLite').toBeUndefined();
    const kc = kubeconfigCopy('session');
    await eventually('the proxy to route root', async () => ((await kIn('root', ['get', 'shards', '-o', 'name'], { reject: false })).exitCode === 0 ? true : undefined));
    await kcpt(kc, ['ws', ':root']);
    await kcpt(kc, ['ws', 'create', 'on-sqlite', '--type', 'universal', '--location-selector', 'name=shard-1']);
    await kcpt(kc, ['ws', 'create', 'on-etcd', '--type', 'universal', '--location-selector', 'name=shard-2', '--enter']);
    // A child of the etcd shard's workspace placed back on SQLite: the path crosses storages.
    await kcpt(kc, ['ws', 'create', 'back-on-sqlite', '--type', 'universal', '--location-selector', 'name=shard-1']);
    expect(await shardOf('root', 'on-sqlite')).toBe('shard-1');
    expect(await shardOf('root', 'on-etcd')).toBe('shard-2');
    expect(await shardOf('root:on-etcd', 'back-on-sqlite')).toBe('shard-1');

    for (const path of ['root:on-sqlite', 'root:on-etcd', 'root:on-etcd:back-on-sqlite']) {
      await kIn(path, ['create', 'configmap', 'marker', `--from-literal=path=${path}`]);
      const cm = JSON.parse((await kIn(path, ['get', 'configmap', 'marker', '-o', 'json'])).stdout) as { data: { path: string } };
      expect(cm.data.path).toBe(path);
    }
    expect(await kcpt(kc, ['ws', '.'])).toContain("'root:on-etcd'");
  }, 120_000);

  it('exports an API on the etcd shard, binds it there and serves its objects through the proxy', async () => {
    const kc = kubeconfigCopy('apis');
    await kcpt(kc, ['ws', ':root']);
    await kcpt(kc, ['ws', 'create', 'provider', '--type', 'universal', '--location-selector', 'name=shard-2']);
    await kcpt(kc, ['ws', 'create', 'consumer', '--type', 'universal', '--location-selector', 'name=shard-2']);
    const api = { group: 'widgets.example.com', plural: 'widgets', kind: 'Widget' };
    await kIn('root:provider', ['apply', '-f', '-'], { input: JSON.stringify(resourceSchema(api)) });
    await kIn('root:provider', ['apply', '-f', '-'], { input: JSON.stringify(apiExport({ name: 'widgets', ...api })) });
    // By the provider's logical cluster name: a shard resolves workspace paths only through root's tree, which lives on
    // the root shard (cross-shard path resolution is not built yet; kcp uses its cache server for it).
    const providerCluster = (await kIn('root', ['get', 'workspace', 'provider', '-o', 'jsonpath={.spec.cluster}'])).stdout;
    await kIn('root:consumer', ['apply', '-f', '-'], { input: JSON.stringify(apiBinding('widgets', 'widgets', { exportPath: providerCluster })) });
    await eventually('the binding to be Bound', async () => {
      const r = await kIn('root:consumer', ['get', 'apibinding', 'widgets', '-o', 'jsonpath={.status.phase}'], { reject: false });
      return r.stdout === 'Bound' ? true : undefined;
    }, 30_000);
    await eventually('widgets to be served in the consumer', async () =>
      (await kIn('root:consumer', ['get', 'widgets'], { reject: false })).exitCode === 0 ? true : undefined,
    );
    await kIn('root:consumer', ['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'widgets.example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'default' }, spec: { size: 3 } }) });
    expect((await kIn('root:consumer', ['get', 'widget', 'w1', '-o', 'jsonpath={.spec.size}'])).stdout).toBe('3');
  }, 120_000);

  it('the etcd shard killed: its workspaces answer 503, the SQLite ones go on; restarted, it serves what it acknowledged', async () => {
    const etcdShard = cluster.shards[1]!;
    await etcdShard.kill();
    const down = await eventually('503 for the etcd shard\'s workspace', async () => {
      const r = await kIn('root:on-etcd', ['get', 'configmap', 'marker'], { reject: false });
      return r.stderr.includes('ServiceUnavailable') ? r : undefined;
    }, 30_000);
    expect(down.exitCode).not.toBe(0);
    expect((await kIn('root:on-sqlite', ['get', 'configmap', 'marker', '-o', 'name'])).stdout.trim()).toBe('configmap/marker');
    await etcdShard.restart();
    await eventually('the restarted etcd shard to serve again', async () => {
      const r = await kIn('root:on-etcd', ['get', 'configmap', 'marker', '-o', 'jsonpath={.data.path}'], { reject: false });
      return r.stdout === 'root:on-etcd' ? r : undefined;
    }, 60_000);
    expect((await kIn('root:consumer', ['get', 'widget', 'w1', '-o', 'jsonpath={.spec.size}'])).stdout).toBe('3');
    expect((await kIn('root:on-etcd:back-on-sqlite', ['get', 'configmap', 'marker', '-o', 'name'])).stdout.trim()).toBe('configmap/marker');
  }, 120_000);
});
