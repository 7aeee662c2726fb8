/**
 * The APIExport virtual workspace as a provider's controller uses it: the endpoint slice publishes its URL once a
 * consumer binds; through it the provider lists and watches the bound resource across every consumer with kubectl
 * (`--server <url>/clusters/*`) and with a client-node informer (which keeps running, resuming with its
 * resourceVersion each time the server ends its watch, and picks up a consumer that binds later), writes objects and
 * status into one consumer, sees consumers that did not bind as nothing, reads APIBindings but cannot write them,
 * reaches claimed configmaps only where the claim was accepted (with the claim's verbs and selector;
 * apiexport-claims.test.ts tries every verb against the selector), and is refused without `apiexports/content`.
 *
 * The virtual workspace is served by every shard for the consumers it hosts: one server lists one URL in the slice,
 * a sharded cluster one per shard hosting bindings (`<vw URL of the shard>/services/apiexport/…`). So the test
 * addresses a consumer at the URL of its shard and reads "across consumers" at every URL the slice lists, as a
 * provider does; on one server both are the one URL.
 *
 * The shared server: the provider and its consumers are children of an organization of this file's own, and the
 * cases build on the consumers and objects of the cases before them. The restart case is in api-sharing-restart.test.ts,
 * with a server of its own.
 */
import * as k8s from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiRequest, openWatch } from '../helpers/http.js';
import { uniqueName, type ClusterKubectl } from '../helpers/kubectl.js';
import { expectError } from '../helpers/suite.js';
import { accept, apiExportOf, configmapClaim, exportWorld, reject, schema, widget, type Consumer } from './apiexport-virtual-workspace-fixtures.js';
import { condition, create, eventually, getJson, ownOrganization, users, useTenancyServer, type Json } from './tenancy-fixtures.js';

const e2e = useTenancyServer();
const org = ownOrganization(e2e, 'apiexport-vw');
const world = exportWorld(e2e, org);
const { provider, providerPath, shardVirtualWorkspaces, consumer, bind, endpointsOf, vwUrlOf, at, everywhere, expectedEndpoints } = world;

let c1: Consumer;
let c2: Consumer;
let unbound: Consumer;
/** kubectl at the `*` wildcard of the virtual workspace on c1's shard (discovery, refused writes). */
const atWildcard = (): ClusterKubectl => e2e.atUrl(`${vwUrlOf(c1)}/clusters/*`);

beforeAll(async () => {
  await world.setUp();
  [c1, c2, unbound] = await Promise.all([consumer('c1'), consumer('c2'), consumer('c3')]);
}, 120_000);

describe('the endpoint slice', () => {
  it('is created with the export, owned by it, with no endpoint until a consumer binds', async () => {
    const slice = await eventually('the default endpoint slice', async () => getJson(provider, ['apiexportendpointslice', 'widgets']));
    expect(slice.spec.export).toEqual({ path: providerPath, name: 'widgets' });
    expect(slice.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'APIExport', name: 'widgets' })]);
    await eventually('APIExportValid', async () => condition(await getJson(provider, ['apiexportendpointslice', 'widgets']), 'APIExportValid'));
    expect(await endpointsOf('widgets')).toEqual([]);
  });

  it('publishes the virtual workspace URL once the first consumer binds', async () => {
    await bind(c1, 'widgets', [accept()]);
    const urls = await eventually('an endpoint', async () => ((await endpointsOf('widgets')).length > 0 ? endpointsOf('widgets') : undefined));
    expect(urls).toEqual([vwUrlOf(c1)]);
    // On one server: the server's own URL.
    if (shardVirtualWorkspaces.size === 1) expect(urls).toEqual([`${e2e.server.url}/services/apiexport/${world.providerCluster}/widgets`]);
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
      spec: { export: { path: providerPath, name: exportName } },
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
    expect(invalid).toBe(`False APIExportNotFound Error getting APIExport ${providerPath}|nope`);
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
    const urls = [...new Set([...shardVirtualWorkspaces.values()])].map((u) => `${u}/services/apiexport/${world.providerCluster}/widgets`);
    const ids = { group: 'example.io', version: 'v1', plural: 'widgets' };
    let lists = 0;
    const added: string[] = [];
    const errors: unknown[] = [];
    /** Per informer: how often it (re)started its watch; the first is the start. */
    const connects = urls.map(() => 0);
    const informers = urls.map((url, i) => {
      const kc = new k8s.KubeConfig();
      kc.loadFromFile(e2e.server.kubeconfig);
      const rootCluster = kc.getCluster('root')!;
      kc.addCluster({ ...rootCluster, name: `vw-${i}`, server: `${url}/clusters/*` });
      kc.addContext({ name: `vw-${i}`, cluster: `vw-${i}`, user: 'kcp-admin' });
      kc.setCurrentContext(`vw-${i}`);
      const objects = kc.makeApiClient(k8s.CustomObjectsApi);
      // Every watch asks the server to end it after 3 s, as client-go's reflector sets timeoutSeconds on each of its
      // watches: the server ends it, and the informer resumes from its resourceVersion.
      const informer = k8s.makeInformer<Json & k8s.KubernetesObject>(kc, '/apis/example.io/v1/widgets?timeoutSeconds=3', () => {
        lists += 1;
        return objects.listClusterCustomObject(ids) as Promise<k8s.KubernetesListObject<Json & k8s.KubernetesObject>>;
      });
      informer.on('add', (o) => added.push(`${o.metadata!.annotations!['kcp.io/cluster']}/${o.metadata!.name}`));
      informer.on('connect', () => (connects[i] += 1));
      informer.on('error', (err) => ((err as { name?: string }).name === 'AbortError' ? undefined : errors.push(err)));
      return informer;
    });
    await Promise.all(informers.map((informer) => informer.start()));
    try {
      await eventually('the initial list', async () => (added.length >= 2 ? true : undefined));
      expect(added.sort()).toEqual([`${c1.cluster}/w1`, `${c2.cluster}/w2`].sort());
      // Past a server-side end of every informer's watch: each has resumed at least once.
      await eventually('every informer’s watch ended by the server and resumed', async () => (connects.every((n) => n >= 2) ? true : undefined));
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
    // Four seconds: kube's pre-timeout bookmark comes two seconds before the deadline, none for a shorter watch.
    const watch = await openWatch(e2e.server, `${base}?watch=true&allowWatchBookmarks=true&timeoutSeconds=4&resourceVersion=${listed.metadata.resourceVersion}`);
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

  it('has the URL while the binding exists and none after it is deleted', async () => {
    await bind(c6, 'gadgets');
    await eventually('an endpoint', async () => ((await endpointsOf('gadgets')).length === 1 ? true : undefined));
    await c6.k(['delete', 'apibinding', 'gadgets', '--timeout=60s']);
    await eventually('no endpoint', async () => ((await endpointsOf('gadgets')).length === 0 ? true : undefined), 60_000);
  }, 120_000);
});
