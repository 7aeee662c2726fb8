/**
 * Issue 7, the APIExport virtual workspace as a provider's controller uses it: the endpoint slice publishes its URL
 * once a consumer binds; through it the provider lists and watches the bound resource across every consumer with
 * kubectl (`--server <url>/clusters/*`) and with a client-node informer (which keeps running, reconnecting with its
 * resourceVersion, and picks up a consumer that binds later), writes objects and status into one consumer, sees
 * consumers that did not bind as nothing, reads APIBindings but cannot write them, reaches claimed configmaps only
 * where the claim was accepted (with the claim's verbs and selector; apiexport-claims.test.ts tries every verb against
 * the selector), and is refused without `apiexports/content`.
 *
 * The virtual workspace is served by every shard for the consumers it hosts: one server lists one URL in the slice,
 * a sharded cluster one per shard hosting bindings (`<vw URL of the shard>/services/apiexport/…`). So the test
 * addresses a consumer at the URL of its shard and reads "across consumers" at every URL the slice lists, as a
 * provider does; on one server both are the one URL.
 */
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRequest, openWatch } from '../helpers/http.js';
import { uniqueName, type ClusterKubectl } from '../helpers/kubectl.js';
import { expectError } from '../helpers/suite.js';
import { apiBinding, apiExport, resourceSchema } from './apis-fixtures.js';
import { condition, create, createWorkspace, eventually, getJson, users, useTenancyServer, type Json } from './tenancy-fixtures.js';

// Watches end after 3–6 s, so the informer below reconnects (with its resourceVersion) while the test runs.
const e2e = useTenancyServer({ extraArgs: ['--min-request-timeout', '3'] });
const k = e2e.at('root');

const schema = (prefix: string, plural: string, kind: string): Json =>
  resourceSchema({
    name: `${prefix}.${plural}.example.io`,
    group: 'example.io',
    plural,
    kind,
    subresources: { status: {} },
    openAPI: {
      type: 'object',
      properties: {
        spec: { type: 'object', properties: { size: { type: 'integer' } } },
        status: { type: 'object', properties: { ready: { type: 'boolean' } } },
      },
    },
  });

const apiExportOf = (name: string, plural: string, claims: Json[] = []): Json =>
  apiExport({ name, group: 'example.io', plural, permissionClaims: claims });

const binding = (exportName: string, claims: Json[] = []): Json => apiBinding(exportName, exportName, { permissionClaims: claims });

const configmapClaim = { group: '', resource: 'configmaps', verbs: ['get', 'list', 'watch', 'create', 'update'] };
const accept = (selector: Json = { matchAll: true }) => ({ ...configmapClaim, state: 'Accepted', selector });
const reject = () => ({ ...configmapClaim, state: 'Rejected', selector: { matchAll: true } });

const widget = (name: string, size: number): Json => ({ apiVersion: 'example.io/v1', kind: 'Widget', metadata: { name, namespace: 'default' }, spec: { size } });

interface Consumer {
  path: string;
  cluster: string;
  /** The Shard hosting its logical cluster. */
  shard: string;
  k: ClusterKubectl;
}

async function consumer(name: string): Promise<Consumer> {
  const ws = await createWorkspace(k, name);
  return { path: `root:${name}`, cluster: ws.spec.cluster as string, shard: ws.metadata.annotations['core.kcp.io/shard'] as string, k: e2e.at(`root:${name}`) };
}

async function bind(c: Consumer, exportName: string, claims: Json[] = []): Promise<void> {
  await create(c.k, binding(exportName, claims));
  await c.k(['wait', '--for=jsonpath={.status.phase}=Bound', `apibinding/${exportName}`, '--timeout=60s']);
}

const endpointsOf = async (slice: string): Promise<string[]> =>
  (((await getJson(provider, ['apiexportendpointslice', slice])).status?.endpoints as Json[] | undefined) ?? []).map((e) => e.url as string).sort();

const provider = e2e.at('root:provider');
let providerCluster: string;
/** Shard → where it serves virtual workspaces. */
const shardVirtualWorkspaces = new Map<string, string>();
let c1: Consumer;
let c2: Consumer;
let unbound: Consumer;
/** The URL of an export's virtual workspace on the shard hosting `c`. */
const vwUrlOf = (c: Consumer, exportName = 'widgets') => `${shardVirtualWorkspaces.get(c.shard)}/services/apiexport/${providerCluster}/${exportName}`;
/** kubectl at one consumer through the virtual workspace (on its shard). */
const at = (c: Consumer): ClusterKubectl => e2e.atUrl(`${vwUrlOf(c)}/clusters/${c.cluster}`);
/** kubectl at the `*` wildcard of the virtual workspace on c1's shard (discovery, refused writes). */
const atWildcard = (): ClusterKubectl => e2e.atUrl(`${vwUrlOf(c1)}/clusters/*`);
/** The items of `kubectl get <args>` at the `*` wildcard of every URL the export's slice lists. */
async function everywhere(args: string[], slice = 'widgets'): Promise<Json[]> {
  const urls = await endpointsOf(slice);
  return (await Promise.all(urls.map((url) => getJson(e2e.atUrl(`${url}/clusters/*`), args)))).flatMap((l) => l.items as Json[]);
}
/** The endpoint URLs the slice of an export bound by `consumers` lists: one per shard hosting them. */
const expectedEndpoints = (consumers: Consumer[], exportName = 'widgets') => [...new Set(consumers.map((c) => vwUrlOf(c, exportName)))].sort();

beforeAll(async () => {
  for (const shard of (await getJson(k, ['shards'])).items as Json[]) {
    shardVirtualWorkspaces.set(shard.metadata.name, shard.spec.virtualWorkspaceURL ?? shard.spec.baseURL);
  }
  providerCluster = (await createWorkspace(k, 'provider')).spec.cluster as string;
  await create(provider, schema('v1', 'widgets', 'Widget'));
  await create(provider, apiExportOf('widgets', 'widgets', [configmapClaim]));
  [c1, c2, unbound] = await Promise.all([consumer('c1'), consumer('c2'), consumer('c3')]);
}, 120_000);

describe('the endpoint slice', () => {
  it('is created with the export, owned by it, with no endpoint until a consumer binds', async () => {
    const slice = await eventually('the default endpoint slice', async () => getJson(provider, ['apiexportendpointslice', 'widgets']));
    expect(slice.spec.export).toEqual({ path: 'root:provider', name: 'widgets' });
    expect(slice.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'APIExport', name: 'widgets' })]);
    await eventually('APIExportValid', async () => condition(await getJson(provider, ['apiexportendpointslice', 'widgets']), 'APIExportValid'));
    expect(await endpointsOf('widgets')).toEqual([]);
  });

  it('publishes the virtual workspace URL once the first consumer binds', async () => {
    await bind(c1, 'widgets', [accept()]);
    const urls = await eventually('an endpoint', async () => ((await endpointsOf('widgets')).length > 0 ? endpointsOf('widgets') : undefined));
    expect(urls).toEqual([vwUrlOf(c1)]);
    // On one server: the server's own URL.
    if (shardVirtualWorkspaces.size === 1) expect(urls).toEqual([`${e2e.server.url}/services/apiexport/${providerCluster}/widgets`]);
    await bind(c2, 'widgets', [reject()]);
    await eventually('an endpoint per shard hosting a binding', async () =>
      JSON.stringify(await endpointsOf('widgets')) === JSON.stringify(expectedEndpoints([c1, c2])) ? true : undefined,
    );
  }, 90_000);
});

describe('a slice a user creates elsewhere', () => {
  it('points at the export by path and gets the same endpoint; a slice for a missing export says so', async () => {
    const slice = (name: string, exportName: string): Json => ({
      apiVersion: 'apis.kcp.io/v1alpha1',
      kind: 'APIExportEndpointSlice',
      metadata: { name },
      spec: { export: { path: 'root:provider', name: exportName } },
    });
    await create(c1.k, slice('provider-widgets', 'widgets'));
    const urls = await eventually('the endpoints', async () => {
      const got = await getJson(c1.k, ['apiexportendpointslice', 'provider-widgets']);
      const listed = ((got.status?.endpoints as Json[] | undefined) ?? []).map((e) => e.url as string).sort();
      return JSON.stringify(listed) === JSON.stringify(expectedEndpoints([c1, c2])) ? listed : undefined;
    });
    expect(urls).toEqual(await endpointsOf('widgets'));
    await create(c1.k, slice('nothing', 'nope'));
    const invalid = await eventually('APIExportValid False', async () => condition(await getJson(c1.k, ['apiexportendpointslice', 'nothing']), 'APIExportValid'));
    expect(invalid).toBe('False APIExportNotFound Error getting APIExport root:provider|nope');
  });
});

describe('the bound resource through the virtual workspace', () => {
  beforeAll(async () => {
    await create(c1.k, widget('w1', 1));
    await create(c2.k, widget('w2', 2));
  }, 60_000);

  it('lists every consumer’s objects with kubectl at /clusters/*, each annotated with its cluster', async () => {
    const listed = await everywhere(['widgets', '-A']);
    const seen = listed.map((i) => [i.metadata.name, i.metadata.annotations['kcp.io/cluster']]).sort();
    expect(seen).toEqual([
      ['w1', c1.cluster],
      ['w2', c2.cluster],
    ]);
    for (const [c, name] of [[c1, 'w1'], [c2, 'w2']] as const) {
      const table = (await e2e.atUrl(`${vwUrlOf(c)}/clusters/*`)(['get', 'widgets', '-A'])).stdout;
      expect(table).toMatch(/^NAMESPACE\s+NAME\s+AGE/);
      expect(table).toContain(name);
    }
  });

  it('serves discovery: the export’s resources, the claimed configmaps and read-only apibindings', async () => {
    const resources = (await atWildcard()(['api-resources', '--no-headers'])).stdout;
    expect(resources).toMatch(/^widgets\s+example\.io\/v1\s+true\s+Widget$/m);
    expect(resources).toMatch(/^configmaps\s+cm\s+v1\s+true\s+ConfigMap$/m);
    expect(resources).toMatch(/^apibindings\s+apis\.kcp\.io\/v1alpha2\s+false\s+APIBinding$/m);
  });

  it('writes objects and their status into one consumer; the consumer sees them and nobody else does', async () => {
    await create(at(c1), widget('from-provider', 5));
    const there = await getJson(c1.k, ['widget', 'from-provider', '-n', 'default']);
    expect(there.spec.size).toBe(5);
    await at(c1)(['patch', 'widget', 'from-provider', '-n', 'default', '--subresource', 'status', '--type', 'merge', '-p', '{"status":{"ready":true}}']);
    expect((await getJson(c1.k, ['widget', 'from-provider', '-n', 'default'])).status).toEqual({ ready: true });
    expectError(await c2.k(['get', 'widget', 'from-provider', '-n', 'default'], { reject: false }), /NotFound|not found/);
    await at(c1)(['delete', 'widget', 'from-provider', '-n', 'default']);
    expectError(await c1.k(['get', 'widget', 'from-provider', '-n', 'default'], { reject: false }), /not found/);
  });

  it('refuses (403, as kcp) a consumer that did not bind the export, and refuses writes at the wildcard', async () => {
    expectError(
      await at(unbound)(['get', 'widgets', '-A'], { reject: false }),
      /Forbidden.*could not find suitable APIBinding in target logical cluster/s,
    );
    expectError(await create(atWildcard(), widget('nowhere', 1), { reject: false }), /MethodNotAllowed|not supported|in the `\*` logical cluster/);
  });

  it('serves the consumers’ bindings to the export read-only', async () => {
    const listed = await everywhere(['apibindings']);
    expect(listed.map((b) => b.metadata.annotations['kcp.io/cluster']).sort()).toEqual([c1.cluster, c2.cluster].sort());
    expectError(
      await at(c1)(['annotate', 'apibinding', 'widgets', 'x=y'], { reject: false }),
      /write access to APIBinding is not allowed from virtual workspace/,
    );
  });
});

describe('a client-node informer on the virtual workspace across consumers', () => {
  it('lists, watches across reconnects, and sees a consumer that binds later without a restart', async () => {
    // One informer per shard's URL of the virtual workspace (one on one server): a consumer that binds later may
    // land on a shard that hosted no binding yet.
    const urls = [...new Set([...shardVirtualWorkspaces.values()])].map((u) => `${u}/services/apiexport/${providerCluster}/widgets`);
    const ids = { group: 'example.io', version: 'v1', plural: 'widgets' };
    let lists = 0;
    const added: string[] = [];
    const errors: unknown[] = [];
    const informers = urls.map((url, i) => {
      const kc = new k8s.KubeConfig();
      kc.loadFromFile(e2e.server.kubeconfig);
      const rootCluster = kc.getCluster('root')!;
      kc.addCluster({ ...rootCluster, name: `vw-${i}`, server: `${url}/clusters/*` });
      kc.addContext({ name: `vw-${i}`, cluster: `vw-${i}`, user: 'kcp-admin' });
      kc.setCurrentContext(`vw-${i}`);
      const objects = kc.makeApiClient(k8s.CustomObjectsApi);
      const informer = k8s.makeInformer<Json & k8s.KubernetesObject>(kc, '/apis/example.io/v1/widgets', () => {
        lists += 1;
        return objects.listClusterCustomObject(ids) as Promise<k8s.KubernetesListObject<Json & k8s.KubernetesObject>>;
      });
      informer.on('add', (o) => added.push(`${o.metadata!.annotations!['kcp.io/cluster']}/${o.metadata!.name}`));
      informer.on('error', (err) => ((err as { name?: string }).name === 'AbortError' ? undefined : errors.push(err)));
      return informer;
    });
    await Promise.all(informers.map((informer) => informer.start()));
    try {
      await eventually('the initial list', async () => (added.length >= 2 ? true : undefined));
      expect(added.sort()).toEqual([`${c1.cluster}/w1`, `${c2.cluster}/w2`].sort());
      // Past at least one server-side watch timeout: the informer resumes from its resourceVersion.
      await new Promise((r) => setTimeout(r, 7_000));
      const late = await consumer('c4');
      await bind(late, 'widgets');
      await create(late.k, widget('late', 4));
      await eventually('the late consumer’s object', async () => (added.includes(`${late.cluster}/late`) ? true : undefined));
      await create(c1.k, widget('w1b', 1));
      await eventually('a new object in an early consumer', async () => (added.includes(`${c1.cluster}/w1b`) ? true : undefined));
      expect(errors).toEqual([]);
      // Resumed, never re-listed: one LIST per informer at start.
      expect(lists).toBe(informers.length);
    } finally {
      await Promise.all(informers.map((informer) => informer.stop()));
    }
  }, 120_000);
});

describe('a watch across consumers', () => {
  it('resumes from a resourceVersion and sends bookmarks when asked', async () => {
    // c2's shard serves c2's objects (on one server: the server).
    const base = `${vwUrlOf(c2).slice(e2e.server.url.length)}/clusters/*/apis/example.io/v1/widgets`;
    const listed = (await apiRequest(e2e.server, base)).json();
    const watch = await openWatch(e2e.server, `${base}?watch=true&allowWatchBookmarks=true&timeoutSeconds=2&resourceVersion=${listed.metadata.resourceVersion}`);
    await create(c2.k, widget('w2b', 7));
    await watch.ended;
    expect(watch.status).toBe(200);
    expect(watch.events.map((e) => [e.type, e.object.metadata.name, e.object.metadata.annotations?.['kcp.io/cluster']])).toEqual([
      ['ADDED', 'w2b', c2.cluster],
      ['BOOKMARK', undefined, undefined],
    ]);
  });
});

describe('permission claims', () => {
  it('shows claimed configmaps only where the claim was accepted', async () => {
    await c1.k(['create', 'configmap', 'shared', '-n', 'default', '--from-literal=a=1']);
    await c2.k(['create', 'configmap', 'private', '-n', 'default', '--from-literal=a=2']);
    const listed = await everywhere(['configmaps', '-A']);
    const names = listed.map((i) => `${i.metadata.annotations['kcp.io/cluster']}/${i.metadata.name}`);
    expect(names).toContain(`${c1.cluster}/shared`);
    expect(names.some((n) => n.startsWith(`${c2.cluster}/`))).toBe(false);
    // Rejected: kcp's authorizer finds no reason to allow it.
    expectError(
      await at(c2)(['get', 'configmap', 'private', '-n', 'default'], { reject: false }),
      /configmaps "private" is forbidden: User "kcp-admin" cannot get resource "configmaps" in API group "" in the namespace "default": failed to find suitable reason to allow access in APIBinding/,
    );
  });

  it('allows the verbs both sides list, and no others', async () => {
    await at(c1)(['create', 'configmap', 'by-provider', '-n', 'default', '--from-literal=b=2']);
    expect((await getJson(c1.k, ['configmap', 'by-provider', '-n', 'default'])).data).toEqual({ b: '2' });
    expectError(
      await at(c1)(['delete', 'configmap', 'by-provider', '-n', 'default'], { reject: false }),
      /configmaps "by-provider" is forbidden: User "kcp-admin" cannot delete resource "configmaps" in API group "" in the namespace "default": failed to find suitable reason to allow access in APIBinding/,
    );
  });

  it('reports the claims in the binding status', async () => {
    const b = await eventually('applied claims', async () => {
      const got = await getJson(c1.k, ['apibinding', 'widgets']);
      return got.status?.appliedPermissionClaims ? got : undefined;
    });
    expect(b.status.exportPermissionClaims).toEqual([configmapClaim]);
    expect(b.status.appliedPermissionClaims).toEqual([{ ...configmapClaim, selector: { matchAll: true } }]);
    expect(condition(b, 'PermissionClaimsValid')).toBe('True');
    expect(condition(b, 'PermissionClaimsApplied')).toBe('True');
    const rejected = await eventually('claims status in c2', async () => {
      const got = await getJson(c2.k, ['apibinding', 'widgets']);
      return condition(got, 'PermissionClaimsValid') ? got : undefined;
    });
    expect(rejected.status.appliedPermissionClaims).toBeUndefined();
  });

  it('respects the accepted selector', async () => {
    const c5 = await consumer('c5');
    await bind(c5, 'widgets', [accept({ matchLabels: { share: 'provider' } })]);
    await c5.k(['create', 'configmap', 'labelled', '-n', 'default']);
    await c5.k(['label', 'configmap', 'labelled', '-n', 'default', 'share=provider']);
    await c5.k(['create', 'configmap', 'unlabelled', '-n', 'default']);
    const names = ((await getJson(at(c5), ['configmaps', '-n', 'default'])).items as Json[]).map((i) => i.metadata.name);
    expect(names).toEqual(['labelled']);
    expectError(await at(c5)(['get', 'configmap', 'unlabelled', '-n', 'default'], { reject: false }), /configmaps "unlabelled" not found/);
  }, 90_000);
});

describe('a claim on another export’s resource', () => {
  it('shows that export’s objects, by identity, in consumers that accepted the claim', async () => {
    const identityHash = (await getJson(provider, ['apiexport', 'widgets'])).status.identityHash as string;
    expect(identityHash).toMatch(/^[0-9a-f]{64}$/);
    const widgetClaim = { group: 'example.io', resource: 'widgets', identityHash, verbs: ['get', 'list', 'watch'] };
    await create(provider, schema('v1', 'sprockets', 'Sprocket'));
    await create(provider, apiExportOf('sprockets', 'sprockets', [widgetClaim]));
    await bind(c1, 'sprockets', [{ ...widgetClaim, state: 'Accepted', selector: { matchAll: true } }]);
    await bind(c2, 'sprockets', [{ ...widgetClaim, state: 'Rejected', selector: { matchAll: true } }]);
    await eventually('an endpoint per shard hosting a sprockets binding', async () =>
      JSON.stringify(await endpointsOf('sprockets')) === JSON.stringify(expectedEndpoints([c1, c2], 'sprockets')) ? true : undefined,
    );
    const listed = await everywhere(['widgets', '-A'], 'sprockets');
    const clusters = new Set(listed.map((i) => i.metadata.annotations['kcp.io/cluster']));
    expect([...clusters]).toEqual([c1.cluster]);
    expect(listed.map((i) => i.metadata.name)).toContain('w1');
    expectError(
      await create(e2e.atUrl(`${vwUrlOf(c1, 'sprockets')}/clusters/${c1.cluster}`), widget('not-allowed', 1), { reject: false }),
      /cannot create resource "widgets" in API group "example.io" in the namespace "default": failed to find suitable reason to allow access in APIBinding/,
    );
  }, 90_000);
});

describe('authorization', () => {
  // At c1's shard (w1 is there).
  const asUser1 = (cluster: string): ClusterKubectl => (args, o) =>
    e2e.atUrl(`${vwUrlOf(c1)}/clusters/${cluster}`)(['--token', users.user1.token, ...args], o);

  it('refuses a user without apiexports/content in the export’s workspace', async () => {
    expectError(await asUser1('*')(['get', 'widgets', '-A'], { reject: false }), /forbidden: User "user-1" cannot list resource "widgets" in API group "example.io"/);
  });

  it('lets a user in with the verbs RBAC grants on apiexports/content', async () => {
    const role = uniqueName('content');
    await create(provider, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: role },
      rules: [
        { nonResourceURLs: ['/'], verbs: ['access'] },
        { apiGroups: ['apis.kcp.io'], resources: ['apiexports/content'], resourceNames: ['widgets'], verbs: ['get', 'list', 'watch'] },
      ],
    });
    await provider(['create', 'clusterrolebinding', role, `--clusterrole=${role}`, `--user=${users.user1.name}`]);
    await eventually('user-1 may list', async () => ((await asUser1('*')(['get', 'widgets', '-A', '-o', 'name'])).stdout.includes('w1') ? true : undefined));
    expectError(await create(asUser1(c1.cluster), widget('by-user-1', 1), { reject: false }), /forbidden: User "user-1" cannot create resource "widgets"/);
  });
});

describe('the endpoint slice of an export whose last binding goes', () => {
  let c6: Consumer;
  beforeAll(async () => {
    await create(provider, schema('v1', 'gadgets', 'Gadget'));
    await create(provider, apiExportOf('gadgets', 'gadgets'));
    c6 = await consumer('c6');
  }, 60_000);
  afterAll(async () => {});

  it('has the URL while the binding exists and none after it is deleted', async () => {
    await bind(c6, 'gadgets');
    await eventually('an endpoint', async () => ((await endpointsOf('gadgets')).length === 1 ? true : undefined));
    await c6.k(['delete', 'apibinding', 'gadgets', '--timeout=60s']);
    await eventually('no endpoint', async () => ((await endpointsOf('gadgets')).length === 0 ? true : undefined), 60_000);
  }, 120_000);
});

describe('after a restart', () => {
  it('serves the same consumers and keeps the published endpoint', async () => {
    const seen = async () => (await everywhere(['widgets', '-A'])).map((i) => `${i.metadata.annotations['kcp.io/cluster']}/${i.metadata.name}`).sort();
    const before = await seen();
    const endpoints = await endpointsOf('widgets');
    await e2e.server.restart();
    expect(await seen()).toEqual(before);
    expect(await endpointsOf('widgets')).toEqual(endpoints);
    await create(at(c2), widget('after-restart', 9));
    expect((await getJson(c2.k, ['widget', 'after-restart', '-n', 'default'])).spec.size).toBe(9);
  }, 90_000);
});
