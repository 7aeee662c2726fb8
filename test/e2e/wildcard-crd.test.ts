/**
 * Custom resources at the `*` wildcard (system:masters only). Three logical clusters define the same
 * group/resource on their own: the first serves v1 (stored as v1), the second serves v1 and v2 (stored as v2, another
 * schema), the third serves only v2. A wildcard read of a version returns the objects of exactly the clusters that
 * serve it, in that version, each annotated with its cluster; list, pages, watch, informers, discovery and kubectl
 * all see that, and deleting the CRD in one cluster takes that cluster out.
 */
import type * as k8s from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { clientLines, createCRD, crdManifest, deleteCRD, kubeConfigFor } from '../helpers/custom-resources.js';
import { until } from '../helpers/eventually.js';
import { apiRequest, openWatch } from '../helpers/http.js';
import { kubectl, uniqueClusterName, uniqueName } from '../helpers/kubectl.js';
import { createLogicalCluster } from '../helpers/api-setup.js';
import { parseTable } from '../helpers/table.js';
import { useE2EServer } from '../helpers/suite.js';

// The shared server: the /clusters/* wildcard serves every cluster's objects, so the file's API group (and the label
// of its ConfigMaps) is a name of its own, defined in three logical clusters of its own.
const e2e = useE2EServer();
const { lib } = clientLines[0]!;
const group = `${uniqueName('wild')}.kcpt.test`;
const first = uniqueClusterName();
const third = uniqueClusterName();
const wild = (rest: string) => `/clusters/*/apis/${group}/${rest}`;
const asMaster = { user: 'shard-admin' };

/** [cluster, namespace, name, apiVersion] of a wildcard list's items, sorted. */
const itemsOf = (list: { items: k8s.KubernetesObject[] }) =>
  list.items
    .map((i) => [i.metadata!.annotations!['kcp.io/cluster'], i.metadata!.namespace, i.metadata!.name, i.apiVersion])
    .sort();

async function createGadget(cluster: string, version: string, namespace: string, name: string): Promise<k8s.KubernetesObject> {
  const objects = kubeConfigFor(lib, e2e.server, cluster).makeApiClient(lib.CustomObjectsApi);
  const spec = cluster === first ? { colour: name } : { size: name.length };
  return (await objects.createNamespacedCustomObject({
    group,
    version,
    plural: 'gadgets',
    namespace,
    body: { apiVersion: `${group}/${version}`, kind: 'Gadget', metadata: { name }, spec },
  })) as k8s.KubernetesObject;
}

beforeAll(async () => {
  await createLogicalCluster(e2e.server, first);
  await createLogicalCluster(e2e.server, third);
  const colour = { colour: { type: 'string' } };
  const defs: [string, Parameters<typeof crdManifest>[3]][] = [
    [first, [{ name: 'v1', storage: true, specProperties: colour }]],
    [e2e.second, [{ name: 'v1', storage: false }, { name: 'v2', storage: true }]],
    [third, [{ name: 'v2', storage: true }]],
  ];
  for (const [cluster, versions] of defs) {
    const kc = kubeConfigFor(lib, e2e.server, cluster);
    const core = kc.makeApiClient(lib.CoreV1Api);
    for (const ns of ['wa', 'wb']) await core.createNamespace({ body: { metadata: { name: ns } } });
    await createCRD(lib, kc, crdManifest(group, 'gadgets', 'Gadget', versions));
  }
  await createGadget(first, 'v1', 'wa', 'root-a');
  await createGadget(first, 'v1', 'wb', 'root-b');
  await createGadget(e2e.second, 'v2', 'wa', 'second-a');
  await createGadget(e2e.second, 'v1', 'wb', 'second-b');
  await createGadget(third, 'v2', 'wa', 'third-a');
}, 120_000);

describe('custom resources at the * wildcard', () => {
  it('lists, per version, the objects of the clusters serving it, converted and annotated', async () => {
    const v1 = await apiRequest(e2e.server, wild('v1/gadgets'), asMaster);
    expect(v1.status).toBe(200);
    expect(v1.json()).toMatchObject({ kind: 'GadgetList', apiVersion: `${group}/v1`, metadata: { resourceVersion: expect.stringMatching(/^\d+$/) } });
    expect(itemsOf(v1.json())).toEqual([
      [first, 'wa', 'root-a', `${group}/v1`],
      [first, 'wb', 'root-b', `${group}/v1`],
      [e2e.second, 'wa', 'second-a', `${group}/v1`],
      [e2e.second, 'wb', 'second-b', `${group}/v1`],
    ].sort());
    const v2 = (await apiRequest(e2e.server, wild('v2/gadgets'), asMaster)).json();
    expect(itemsOf(v2)).toEqual([
      [e2e.second, 'wa', 'second-a', `${group}/v2`],
      [e2e.second, 'wb', 'second-b', `${group}/v2`],
      [third, 'wa', 'third-a', `${group}/v2`],
    ].sort());
    const inWa = (await apiRequest(e2e.server, wild('v1/namespaces/wa/gadgets'), asMaster)).json();
    expect(itemsOf(inWa)).toEqual([
      [first, 'wa', 'root-a', `${group}/v1`],
      [e2e.second, 'wa', 'second-a', `${group}/v1`],
    ].sort());
  });

  it('keeps a namespaced wildcard list to its namespace for built-ins too', async () => {
    for (const [cluster, ns] of [[first, 'wa'], [e2e.second, 'wb'], [third, 'wa']] as const) {
      const core = kubeConfigFor(lib, e2e.server, cluster).makeApiClient(lib.CoreV1Api);
      await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'wild-cm', labels: { wild: group } } } });
    }
    const list = (await apiRequest(e2e.server, `/clusters/*/api/v1/namespaces/wa/configmaps?labelSelector=wild%3D${group}`, asMaster)).json();
    expect(list.items.map((i: k8s.V1ConfigMap) => [i.metadata!.annotations!['kcp.io/cluster'], i.metadata!.namespace]).sort()).toEqual(
      [[first, 'wa'], [third, 'wa']].sort(),
    );
  });

  it('pages across clusters with limit and continue', async () => {
    const all = (await apiRequest(e2e.server, wild('v1/gadgets'), asMaster)).json();
    const paged: string[] = [];
    let token = '';
    for (let page = 0; page < 10; page++) {
      const answer = (await apiRequest(e2e.server, wild(`v1/gadgets?limit=1${token ? `&continue=${token}` : ''}`), asMaster)).json();
      expect(answer.items.length).toBeLessThanOrEqual(1);
      paged.push(...answer.items.map((i: k8s.KubernetesObject) => i.metadata!.uid));
      token = answer.metadata.continue ?? '';
      if (!token) break;
    }
    expect(paged).toEqual(all.items.map((i: k8s.KubernetesObject) => i.metadata!.uid));
    expect(paged).toHaveLength(4);
  });

  it('watches every cluster serving the version, and only those', async () => {
    const rv = (await apiRequest(e2e.server, wild('v1/gadgets'), asMaster)).json().metadata.resourceVersion;
    const watch = await openWatch(e2e.server, `${wild('v1/gadgets')}?watch=true&resourceVersion=${rv}`, asMaster);
    try {
      await createGadget(e2e.second, 'v2', 'wb', 'second-w');
      await createGadget(third, 'v2', 'wb', 'third-w'); // third does not serve v1
      await createGadget(first, 'v1', 'wb', 'root-w');
      await until(() => watch.events.some((e) => e.object.metadata?.name === 'root-w'), () => JSON.stringify(watch.events));
    } finally {
      watch.close();
    }
    expect(watch.events.map((e) => [e.type, e.object.metadata.annotations['kcp.io/cluster'], e.object.metadata.name, e.object.apiVersion])).toEqual([
      ['ADDED', e2e.second, 'second-w', `${group}/v1`],
      ['ADDED', first, 'root-w', `${group}/v1`],
    ]);

    const initial = await openWatch(e2e.server, `${wild('v2/gadgets')}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`, asMaster);
    try {
      await until(() => initial.events.some((e) => e.type === 'BOOKMARK'), 'the initial-events-end bookmark');
    } finally {
      initial.close();
    }
    const listed = (await apiRequest(e2e.server, wild('v2/gadgets'), asMaster)).json();
    const end = initial.events.findIndex((e) => e.type === 'BOOKMARK');
    expect(initial.events.slice(0, end).map((e) => e.object.metadata.uid)).toEqual(listed.items.map((i: k8s.KubernetesObject) => i.metadata!.uid));
    expect(initial.events[end]!.object.metadata.annotations).toEqual({ 'k8s.io/initial-events-end': 'true' });
  });

  it('feeds a client-node informer at /clusters/*', async () => {
    const kc = kubeConfigFor(lib, e2e.server, '*', 'shard-admin');
    const objects = kc.makeApiClient(lib.CustomObjectsApi);
    const informer = lib.makeInformer<k8s.KubernetesObject>(kc, `/apis/${group}/v1/gadgets`, () =>
      objects.listClusterCustomObject({ group, version: 'v1', plural: 'gadgets' }) as Promise<k8s.KubernetesListObject<k8s.KubernetesObject>>,
    );
    const added: string[] = [];
    const errors: unknown[] = [];
    informer.on('add', (o) => added.push(`${o.metadata!.annotations!['kcp.io/cluster']}/${o.metadata!.name}`));
    informer.on('error', (err) => ((err as Error).name === 'AbortError' ? undefined : errors.push(err)));
    await informer.start();
    try {
      await until(() => added.length === 6, () => JSON.stringify(added));
      await createGadget(e2e.second, 'v1', 'wa', 'second-i');
      await until(() => added.includes(`${e2e.second}/second-i`), () => JSON.stringify(added));
    } finally {
      await informer.stop();
    }
    expect(errors).toEqual([]);
    expect(added.filter((a) => a.startsWith(`${third}/`))).toEqual([]);
  });

  it('lists the custom resources in wildcard discovery', async () => {
    const groups = (await apiRequest(e2e.server, '/clusters/*/apis', asMaster)).json();
    expect(groups.groups.find((g: { name: string }) => g.name === group)).toEqual({
      name: group,
      versions: [
        { groupVersion: `${group}/v2`, version: 'v2' },
        { groupVersion: `${group}/v1`, version: 'v1' },
      ],
      preferredVersion: { groupVersion: `${group}/v2`, version: 'v2' },
    });
    const v1 = (await apiRequest(e2e.server, `/clusters/*/apis/${group}/v1`, asMaster)).json();
    expect(v1.resources.map((r: { name: string }) => r.name)).toEqual(['gadgets', 'gadgets/status']);
  });

  it('serves kubectl get -A with the system:admin context at …/clusters/*', async () => {
    const run = (resource: string) =>
      kubectl(e2e.server, ['--context', 'system:admin', '--server', `${e2e.server.url}/clusters/*`, 'get', resource, '-A']);
    const v1 = parseTable((await run(`gadgets.v1.${group}`)).stdout);
    expect(v1.header).toEqual(['NAMESPACE', 'NAME', 'AGE']);
    expect(v1.records.map((r) => r.NAME).sort()).toEqual(['root-a', 'root-b', 'root-w', 'second-a', 'second-b', 'second-i', 'second-w']);
    // The group's preferred version (a bare `gadgets` would name any group's gadgets on the shared server).
    const preferred = parseTable((await run(`gadgets.${group}`)).stdout);
    expect(preferred.records.map((r) => r.NAME).sort()).toEqual(['second-a', 'second-b', 'second-i', 'second-w', 'third-a', 'third-w']);
  });

  it('refuses users outside system:masters', async () => {
    for (const query of ['', '?watch=true']) {
      const answer = await apiRequest(e2e.server, `${wild('v1/gadgets')}${query}`);
      expect(answer.status).toBe(403);
      expect(answer.json().message).toBe(
        `gadgets.${group} is forbidden: User "kcp-admin" cannot ${query ? 'watch' : 'list'} resource "gadgets" in API group "${group}" at the cluster scope: access denied`,
      );
    }
  });

  it('drops a cluster whose CRD is deleted; a wildcard watch ends once no cluster serves the version', async () => {
    const rv = (await apiRequest(e2e.server, wild('v1/gadgets'), asMaster)).json().metadata.resourceVersion;
    const watch = await openWatch(e2e.server, `${wild('v1/gadgets')}?watch=true&resourceVersion=${rv}`, asMaster);
    await deleteCRD(lib, kubeConfigFor(lib, e2e.server, first), `gadgets.${group}`);
    const afterRoot = (await apiRequest(e2e.server, wild('v1/gadgets'), asMaster)).json();
    expect([...new Set(afterRoot.items.map((i: k8s.KubernetesObject) => i.metadata!.annotations!['kcp.io/cluster']))]).toEqual([e2e.second]);
    await createGadget(e2e.second, 'v2', 'wa', 'second-late');
    await until(() => watch.events.some((e) => e.object.metadata?.name === 'second-late'), () => JSON.stringify(watch.events));
    expect(watch.hasEnded()).toBe(false);

    await deleteCRD(lib, kubeConfigFor(lib, e2e.server, e2e.second), `gadgets.${group}`);
    await until(() => watch.hasEnded(), 'the wildcard watch to end');
    expect(watch.events.map((e) => `${e.type} ${e.object.metadata.name}`).sort()).toEqual(
      [
        ...['root-a', 'root-b', 'root-w'].map((n) => `DELETED ${n}`),
        'ADDED second-late',
        ...['second-a', 'second-b', 'second-i', 'second-late', 'second-w'].map((n) => `DELETED ${n}`),
      ].sort(),
    );
    expect((await apiRequest(e2e.server, wild('v1/gadgets'), asMaster)).status).toBe(404);
    expect(itemsOf((await apiRequest(e2e.server, wild('v2/gadgets'), asMaster)).json())).toEqual([
      [third, 'wa', 'third-a', `${group}/v2`],
      [third, 'wb', 'third-w', `${group}/v2`],
    ]);
  });
});
