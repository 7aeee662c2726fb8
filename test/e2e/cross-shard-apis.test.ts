/**
 * API sharing across shards: a provider's APIExport on one shard bound by path from workspaces on the
 * others, as kcp does it with its cache server. Root + 2 shards on loopback, reached directly (each shard's URL);
 * driven with the real kubectl, `kcpt bind` and a client-node informer per APIExport virtual workspace URL.
 */
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runKcpt } from '../helpers/cli.js';
import { cleanupTempFiles, kubectl, sleep as sleepMs, tempFile, type KubectlOptions, type KubectlResult } from '../helpers/kubectl.js';
import { startShardedCluster, type ShardedCluster } from '../helpers/shards.js';
import type { TestServer } from '../helpers/server.js';
import { apiBinding, apiExport, resourceSchema } from './apis-fixtures.js';
import { eventually, type Json } from './tenancy-fixtures.js';

let cluster: ShardedCluster;
let shard1: TestServer;
let shard2: TestServer;

/** `--token-auth-file` users of root; the other shards know them through TokenReviews to root. */
const user1 = { token: 'xs-user-1-token', name: 'user-1' };

const widgets = { group: 'widgets.example.com', plural: 'widgets', kind: 'Widget' };
const gadgets = { group: 'gadgets.example.com', plural: 'gadgets', kind: 'Gadget' };

/** A workspace of root placed on `shard`, with the server hosting it and its cluster name. */
interface Placed {
  name: string;
  cluster: string;
  server: TestServer;
  k: (args: string[], opts?: KubectlOptions) => Promise<KubectlResult>;
}

const serverOf = (shard: string): TestServer => (shard === 'root' ? cluster.root : shard === 'shard-1' ? shard1 : shard2);

/** kubectl as root's kcp-admin against one logical cluster of one shard (its direct URL). */
const at = (server: TestServer, clusterName: string) => (args: string[], opts: KubectlOptions = {}) =>
  kubectl(cluster.root, ['--server', `${server.url}/clusters/${clusterName}`, ...args], opts);

async function placeWorkspace(name: string, shard: string): Promise<Placed> {
  const run = await runKcpt(['ws', 'create', name, '--location-selector', `name=${shard}`], { ...cluster.root.env, KUBECONFIG: cluster.root.kubeconfig });
  expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
  const ws = await eventually(`workspace ${name} Ready`, async () => {
    const got = JSON.parse((await at(cluster.root, 'root')(['get', 'workspace', name, '-o', 'json'])).stdout) as Json;
    return got.status?.phase === 'Ready' ? got : undefined;
  });
  expect(ws.metadata.annotations['core.kcp.io/shard']).toBe(shard);
  const server = serverOf(shard);
  return { name, cluster: ws.spec.cluster as string, server, k: at(server, ws.spec.cluster as string) };
}

const apply = (k: Placed['k'], obj: Json, opts: KubectlOptions = {}) => k(['apply', '-f', '-'], { input: JSON.stringify(obj), ...opts });

async function provide(p: Placed, api: typeof widgets, schemaName?: string): Promise<void> {
  await apply(p.k, resourceSchema({ ...api, ...(schemaName ? { name: schemaName } : {}) }));
  await apply(p.k, apiExport({ name: api.plural, ...api, ...(schemaName ? { schema: schemaName } : {}) }));
}

async function bindingOf(c: Placed, name: string): Promise<Json> {
  return JSON.parse((await c.k(['get', 'apibinding', name, '-o', 'json'])).stdout) as Json;
}

async function waitBound(c: Placed, name: string): Promise<Json> {
  return eventually(`${c.name}'s binding ${name} Bound`, async () => {
    const b = await bindingOf(c, name);
    return b.status?.phase === 'Bound' ? b : undefined;
  });
}

/** `kcpt bind <path>:<export>` run in the consumer workspace (the consumer's shard URL). */
async function bindWithKcpt(c: Placed, reference: string): Promise<void> {
  const run = await runKcpt(['bind', reference, '--server', `${c.server.url}/clusters/${c.cluster}`, '--timeout', '60s'], {
    ...cluster.root.env,
    KUBECONFIG: cluster.root.kubeconfig,
  });
  expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
}

const object = (api: typeof widgets, name: string, size: number): Json => ({
  apiVersion: `${api.group}/v1`,
  kind: api.kind,
  metadata: { name, namespace: 'default' },
  spec: { size },
});

async function sliceUrls(provider: Placed, name: string): Promise<string[]> {
  const slice = JSON.parse((await provider.k(['get', 'apiexportendpointslice', name, '-o', 'json'])).stdout) as Json;
  return ((slice.status?.endpoints ?? []) as Json[]).map((e) => e.url as string).sort();
}

let provider: Placed;
let c1: Placed;
let c2: Placed;

beforeAll(async () => {
  const tokens = await tempFile('xs-tokens.csv', `${user1.token},${user1.name},1111,"team-1"\n`);
  cluster = await startShardedCluster({ shards: 2, rootArgs: ['--token-auth-file', tokens] });
  [shard1, shard2] = cluster.shards as [TestServer, TestServer];
  [provider, c1, c2] = await Promise.all([placeWorkspace('provider', 'root'), placeWorkspace('c1', 'shard-1'), placeWorkspace('c2', 'shard-2')]);
  await provide(provider, widgets);
}, 180_000);

afterAll(async () => {
  await cluster?.stop();
  await cleanupTempFiles();
}, 60_000);

describe('an APIExport on the root shard bound by path from the other shards', () => {
  it('binds with kcpt bind and kubectl, serves the replicated schema under the export identity', async () => {
    const identity = JSON.parse((await provider.k(['get', 'apiexport', 'widgets', '-o', 'json'])).stdout).status.identityHash as string;
    expect(identity).toMatch(/^[0-9a-f]{64}$/);

    await bindWithKcpt(c1, 'root:provider:widgets');
    await apply(c2.k, apiBinding('widgets', 'widgets', { exportPath: 'root:provider' }));
    for (const c of [c1, c2]) {
      const b = await waitBound(c, 'widgets');
      expect(b.status.apiExportClusterName).toBe(provider.cluster);
      expect(b.status.boundResources).toEqual([
        expect.objectContaining({ group: widgets.group, resource: 'widgets', schema: expect.objectContaining({ name: `v1.widgets.${widgets.group}`, identityHash: identity }) }),
      ]);
      expect(b.status.conditions.map((x: Json) => `${x.type}=${x.status}`).sort()).toEqual(
        expect.arrayContaining(['APIExportValid=True', 'BindingUpToDate=True', 'InitialBindingCompleted=True', 'Ready=True']),
      );
      expect(b.metadata.labels['internal.apis.kcp.io/export']).toBeTruthy();
    }
    await apply(c1.k, object(widgets, 'w1', 1));
    await apply(c2.k, object(widgets, 'w2', 2));
    expect((await c1.k(['get', 'widgets', '-o', 'jsonpath={.items[*].metadata.name}'])).stdout).toBe('w1');
    expect((await c2.k(['get', 'widgets', 'w2', '-o', 'jsonpath={.spec.size}'])).stdout).toBe('2');
    // Validated by the provider's schema, on the consumer's shard.
    const bad = await apply(c1.k, { ...object(widgets, 'bad', 1), spec: { size: 'big' } }, { reject: false });
    expect(bad.exitCode).not.toBe(0);
    expect(bad.stderr).toContain('spec.size');
    // Discovery of the consumer shows the bound resource.
    expect((await c1.k(['api-resources', '--api-group', widgets.group, '-o', 'name'])).stdout.trim()).toBe(`widgets.${widgets.group}`);
  });

  it('publishes one endpoint URL per shard hosting a binding, and drops it with the last binding', async () => {
    const url = (s: TestServer) => `${s.url}/services/apiexport/${provider.cluster}/widgets`;
    const both = [url(shard1), url(shard2)].sort();
    expect(await eventually('two endpoint URLs', async () => {
      const urls = await sliceUrls(provider, 'widgets');
      return urls.length === 2 ? urls : undefined;
    })).toEqual(both);

    // A binding of the export's own shard adds root's URL beside the others.
    const local = await placeWorkspace('c0', 'root');
    await apply(local.k, apiBinding('widgets', 'widgets', { exportPath: 'root:provider' }));
    await waitBound(local, 'widgets');
    expect(await eventually('three endpoint URLs', async () => {
      const urls = await sliceUrls(provider, 'widgets');
      return urls.length === 3 ? urls : undefined;
    })).toEqual([...both, url(cluster.root)].sort());
    await local.k(['delete', 'apibinding', 'widgets']);
    await eventually('root URL gone', async () => ((await sliceUrls(provider, 'widgets')).length === 2 ? true : undefined));
  });

  it('serves every consumer through the virtual workspace URLs: a client-node informer per URL', async () => {
    const urls = await sliceUrls(provider, 'widgets');
    const seen = new Set<string>();
    const informers: Array<k8s.Informer<Json & k8s.KubernetesObject>> = [];
    const errors: unknown[] = [];
    try {
      for (const url of urls) {
        const kc = new k8s.KubeConfig();
        kc.loadFromFile(cluster.root.kubeconfig);
        const base = kc.getCluster('root')!;
        kc.addCluster({ ...base, name: 'vw', server: `${url}/clusters/*` });
        kc.addContext({ name: 'vw', cluster: 'vw', user: 'kcp-admin' });
        kc.setCurrentContext('vw');
        const api = kc.makeApiClient(k8s.CustomObjectsApi);
        const informer = k8s.makeInformer<Json & k8s.KubernetesObject>(
          kc,
          `/apis/${widgets.group}/v1/widgets`,
          () => api.listClusterCustomObject({ group: widgets.group, version: 'v1', plural: 'widgets' }) as Promise<k8s.KubernetesListObject<Json & k8s.KubernetesObject>>,
        );
        informer.on('add', (o) => seen.add(`${o.metadata!.annotations!['kcp.io/cluster']}/${o.metadata!.name}`));
        informer.on('error', (err) => ((err as { name?: string }).name === 'AbortError' ? undefined : errors.push(err)));
        await informer.start();
        informers.push(informer);
      }
      await eventually('both consumers’ objects', async () => (seen.has(`${c1.cluster}/w1`) && seen.has(`${c2.cluster}/w2`) ? true : undefined));
      // New objects arrive through the watches.
      await apply(c2.k, object(widgets, 'w2b', 5));
      await apply(c1.k, object(widgets, 'w1b', 6));
      await eventually('objects created later', async () => (seen.has(`${c1.cluster}/w1b`) && seen.has(`${c2.cluster}/w2b`) ? true : undefined));
      expect(errors).toEqual([]);
    } finally {
      await Promise.all(informers.map((i) => i.stop()));
    }
    // One consumer through its shard's URL, every verb (the provider's controller writing a consumer's object).
    const shard1Url = urls.find((u) => u.startsWith(shard1.url))!;
    await kubectl(cluster.root, ['--server', `${shard1Url}/clusters/${c1.cluster}`, 'label', 'widget', 'w1', 'seen=yes']);
    expect((await c1.k(['get', 'widget', 'w1', '-o', 'jsonpath={.metadata.labels.seen}'])).stdout).toBe('yes');
  });

  it('refuses the virtual workspace to a user the export’s workspace does not allow', async () => {
    const url = (await sliceUrls(provider, 'widgets')).find((u) => u.startsWith(shard1.url))!;
    const refused = await kubectl(cluster.root, ['--server', `${url}/clusters/*`, '--token', user1.token, 'get', '--raw', `/apis/${widgets.group}/v1/widgets`], {
      reject: false,
    });
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain(`User "user-1" cannot list resource "widgets" in API group "${widgets.group}"`);
  });

  it('follows the export to a new schema on every shard', async () => {
    const v2 = `v2.widgets.${widgets.group}`;
    await apply(provider.k, resourceSchema({ ...widgets, name: v2, printerColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }] }));
    await apply(provider.k, apiExport({ name: 'widgets', ...widgets, schema: v2 }));
    for (const c of [c1, c2]) {
      await eventually(`${c.name} on ${v2}`, async () => ((await bindingOf(c, 'widgets')).status.boundResources[0].schema.name === v2 ? true : undefined));
    }
    // The new schema's printer column, served on shard-2; the objects stayed.
    const table = await eventually('the Size column', async () => {
      const out = (await c2.k(['get', 'widgets'])).stdout;
      return /NAME\s+SIZE/.test(out) ? out : undefined;
    });
    expect(table).toMatch(/w2\s+2/);
  });

  it('refuses bind to a user without bind on the export (kcp’s message) and allows it once granted', async () => {
    await c1.k(['create', 'clusterrolebinding', 'user-1-admin', '--clusterrole=cluster-admin', '--user=user-1']);
    const asUser1 = (args: string[], opts: KubectlOptions = {}) =>
      kubectl(cluster.root, ['--server', `${shard1.url}/clusters/${c1.cluster}`, '--token', user1.token, ...args], opts);
    const binding = apiBinding('widgets-by-user', 'widgets', { exportPath: 'root:provider' });
    const file = await tempFile('xs-binding.json', JSON.stringify(binding));
    const refused = await eventually('user-1 in c1', async () => {
      const r = await asUser1(['create', '-f', file], { reject: false });
      return r.stderr.includes('no permission') ? r : undefined;
    });
    expect(refused.stderr.trim()).toBe(
      'Error from server (Forbidden): error when creating "' +
        file +
        '": apibindings.apis.kcp.io "widgets-by-user" is forbidden: unable to create APIBinding: no permission to bind to export root:provider:widgets',
    );
    await apply(provider.k, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'bind-widgets' },
      rules: [{ apiGroups: ['apis.kcp.io'], resources: ['apiexports'], resourceNames: ['widgets'], verbs: ['bind'] }],
    });
    await provider.k(['create', 'clusterrolebinding', 'user-1-bind', '--clusterrole=bind-widgets', '--user=user-1']);
    await eventually('the grant on the root shard', async () => ((await asUser1(['create', '-f', file], { reject: false })).exitCode === 0 ? true : undefined));
    // A naming conflict with c1's own binding, reported as on one shard.
    const b = await eventually('the conflict', async () => {
      const got = await bindingOf(c1, 'widgets-by-user');
      return got.status?.conditions?.some((x: Json) => x.type === 'BindingUpToDate') ? got : undefined;
    });
    expect(b.status.conditions.find((x: Json) => x.type === 'BindingUpToDate')).toMatchObject({ status: 'False', reason: 'NamingConflicts' });
    await c1.k(['delete', 'apibinding', 'widgets-by-user']);
  });

  it('caps consumers on other shards with the maximal permission policy of the export’s workspace', async () => {
    const gizmos = { group: 'limited.example.com', plural: 'gizmos', kind: 'Gizmo' };
    await apply(provider.k, resourceSchema(gizmos));
    await apply(provider.k, apiExport({ name: 'gizmos', ...gizmos, extraSpec: { maximalPermissionPolicy: { local: {} } } }));
    // The provider lets every bound user read gizmos, and nothing else.
    await apply(provider.k, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'gizmos-read' },
      rules: [{ apiGroups: [gizmos.group], resources: ['gizmos'], verbs: ['get', 'list', 'watch'] }],
    });
    await provider.k(['create', 'clusterrolebinding', 'gizmos-read', '--clusterrole=gizmos-read', '--group=apis.kcp.io:binding:system:authenticated']);
    await apply(c1.k, apiBinding('gizmos', 'gizmos', { exportPath: 'root:provider' }));
    await waitBound(c1, 'gizmos');
    // user-1 is cluster-admin of c1 (above), on shard-1; the export's RBAC is on the root shard.
    const asUser1 = (args: string[], opts: KubectlOptions = {}) =>
      kubectl(cluster.root, ['--server', `${shard1.url}/clusters/${c1.cluster}`, '--token', user1.token, ...args], opts);
    const listed = await eventually('gizmos served to user-1', async () => {
      const r = await asUser1(['get', 'gizmos', '-n', 'default'], { reject: false });
      return r.exitCode === 0 ? r : undefined;
    });
    expect(listed.stderr).toContain('No resources found');
    const refused = await apply(asUser1, object(gizmos, 'g1', 1), { reject: false });
    expect(refused.stderr.trim()).toMatch(
      /gizmos\.limited\.example\.com is forbidden: User "user-1" cannot create resource "gizmos" in API group "limited\.example\.com" in the namespace "default": access denied$/,
    );
    // Granted in the export's workspace, on its shard: allowed on shard-1 (once the refusal's short cache expired).
    await provider.k(['create', 'clusterrolebinding', 'gizmos-user-1', '--clusterrole=cluster-admin', `--user=apis.kcp.io:binding:${user1.name}`]);
    await eventually('user-1 may create gizmos', async () => ((await apply(asUser1, object(gizmos, 'g1', 1), { reject: false })).exitCode === 0 ? true : undefined));
    expect((await asUser1(['get', 'gizmos', '-n', 'default', '-o', 'name'])).stdout.trim()).toBe(`gizmo.${gizmos.group}/g1`);
  });

  it('serves claimed built-in resources of consumers on another shard to the provider', async () => {
    const things = { group: 'things.example.com', plural: 'things', kind: 'Thing' };
    const claim = { group: '', resource: 'configmaps', verbs: ['get', 'list', 'watch'] };
    await apply(provider.k, resourceSchema(things));
    await apply(provider.k, apiExport({ name: 'things', ...things, permissionClaims: [claim] }));
    await apply(c1.k, apiBinding('things', 'things', { exportPath: 'root:provider', permissionClaims: [{ ...claim, state: 'Accepted', selector: { matchAll: true } }] }));
    // The claims controller of shard-1 reads the replicated export.
    const bound = await eventually('the export’s claims on the binding', async () => {
      const b = await waitBound(c1, 'things');
      return (b.status.exportPermissionClaims ?? []).length > 0 ? b : undefined;
    });
    expect(bound.status.exportPermissionClaims).toEqual([expect.objectContaining({ resource: 'configmaps', verbs: ['get', 'list', 'watch'] })]);
    await c1.k(['create', 'configmap', 'shared', '-n', 'default', '--from-literal=k=v']);
    const vw = `${shard1.url}/services/apiexport/${provider.cluster}/things/clusters/${c1.cluster}`;
    const read = await eventually('the claimed configmap through shard-1’s virtual workspace', async () => {
      const r = await kubectl(cluster.root, ['--server', vw, 'get', 'configmap', 'shared', '-n', 'default', '-o', 'jsonpath={.data.k}'], { reject: false });
      return r.exitCode === 0 ? r.stdout : undefined;
    });
    expect(read).toBe('v');
    // Not claimed for writes.
    const write = await kubectl(cluster.root, ['--server', vw, 'create', 'configmap', 'by-provider', '-n', 'default'], { reject: false });
    expect(write.exitCode).not.toBe(0);
    await c1.k(['delete', 'apibinding', 'things']);
  });

  it('drops a shard’s URL when its last binding goes, and its objects with the binding', async () => {
    await c2.k(['delete', 'apibinding', 'widgets']);
    expect(await eventually('one endpoint URL', async () => {
      const urls = await sliceUrls(provider, 'widgets');
      return urls.length === 1 ? urls : undefined;
    })).toEqual([`${shard1.url}/services/apiexport/${provider.cluster}/widgets`]);
    expect((await c2.k(['api-resources', '--api-group', widgets.group, '-o', 'name'])).stdout.trim()).toBe('');
  });
});

describe('exports on a non-root shard', () => {
  it('are bound by path from root and from another shard', async () => {
    const p1 = await placeWorkspace('provider-1', 'shard-1');
    await provide(p1, gadgets);
    const onRoot = await placeWorkspace('r1', 'root');
    await bindWithKcpt(onRoot, 'root:provider-1:gadgets');
    // shard-2 learns of the export from shard-1's watch (replica lag, milliseconds).
    await eventually('shard-2 admits the binding', async () =>
      (await apply(c2.k, apiBinding('gadgets', 'gadgets', { exportPath: 'root:provider-1' }), { reject: false })).exitCode === 0 ? true : undefined,
    );
    for (const c of [onRoot, c2]) {
      const b = await waitBound(c, 'gadgets');
      expect(b.status.apiExportClusterName).toBe(p1.cluster);
      await apply(c.k, object(gadgets, `g-${c.name}`, 7));
      expect((await c.k(['get', 'gadgets', '-o', 'jsonpath={.items[*].metadata.name}'])).stdout).toBe(`g-${c.name}`);
    }
    expect(await eventually('root and shard-2 URLs', async () => {
      const urls = await sliceUrls(p1, 'gadgets');
      return urls.length === 2 ? urls : undefined;
    })).toEqual([`${cluster.root.url}/services/apiexport/${p1.cluster}/gadgets`, `${shard2.url}/services/apiexport/${p1.cluster}/gadgets`].sort());
  });

  it('report a missing export by path as on one shard', async () => {
    await apply(c2.k, apiBinding('nope', 'nope', { exportPath: 'root:provider-1' }));
    const b = await eventually('APIExportValid', async () => {
      const got = await bindingOf(c2, 'nope');
      return got.status?.conditions?.some((x: Json) => x.type === 'APIExportValid') ? got : undefined;
    });
    expect(b.status.conditions.find((x: Json) => x.type === 'APIExportValid')).toMatchObject({
      status: 'False',
      reason: 'APIExportNotFound',
      message: 'APIExport root:provider-1|nope not found',
    });
  });
});

describe('a restarted consumer shard', () => {
  it('serves its bindings to another shard’s export again, without reporting the export missing meanwhile', async () => {
    const before = (await bindingOf(c1, 'widgets')).status.conditions.find((x: Json) => x.type === 'APIExportValid');
    expect(before).toMatchObject({ status: 'True' });
    await shard1.restart();
    const names = await eventually('widgets served on the restarted shard-1', async () => {
      const r = await c1.k(['get', 'widgets', '-o', 'name'], { reject: false });
      return r.exitCode === 0 && r.stdout.includes('widget.widgets.example.com/w1') ? r.stdout : undefined;
    });
    expect(names).toContain('widget.widgets.example.com/w1b');
    // Once the replica caught up the binding is reconciled again; its condition never went False on the way.
    await sleepMs(1500);
    const after = (await bindingOf(c1, 'widgets')).status.conditions.find((x: Json) => x.type === 'APIExportValid');
    expect(after).toEqual(before);
    // Its virtual workspace URL serves c1 again.
    const url = `${shard1.url}/services/apiexport/${provider.cluster}/widgets`;
    const listed = await eventually('the virtual workspace on shard-1', async () => {
      const r = await kubectl(cluster.root, ['--server', `${url}/clusters/*`, 'get', 'widgets', '-A', '-o', 'name'], { reject: false });
      return r.exitCode === 0 ? r.stdout : undefined;
    });
    expect(listed).toContain('widget.widgets.example.com/w1');
  });
});

describe('a shard gone for good', () => {
  it('leaves no URL behind in the slices of the other shards', async () => {
    const p1Cluster = JSON.parse((await at(cluster.root, 'root')(['get', 'workspace', 'provider-1', '-o', 'json'])).stdout).spec.cluster as string;
    const p1 = at(shard1, p1Cluster);
    const urls = async () => ((JSON.parse((await p1(['get', 'apiexportendpointslice', 'gadgets', '-o', 'json'])).stdout).status?.endpoints ?? []) as Json[]).map((e) => e.url);
    expect(await urls()).toContain(`${shard2.url}/services/apiexport/${p1Cluster}/gadgets`);
    // Decommissioned: stopped, and its Shard deleted from root.
    await shard2.stop();
    await at(cluster.root, 'root')(['delete', 'shard', 'shard-2']);
    expect(await eventually('shard-2’s URL gone', async () => {
      const now = await urls();
      return now.some((u) => u.startsWith(shard2.url)) ? undefined : now;
    })).toEqual([`${cluster.root.url}/services/apiexport/${p1Cluster}/gadgets`]);
  });
});
