/**
 * Issue 4, watch details on custom resources: bookmarks, watch-list (sendInitialEvents and the initial-events-end
 * bookmark) over raw HTTPS and through client-node, kube's 422s for option combinations it refuses, and the
 * lifecycle of watches and informers when a CRD is deleted and created again.
 */
import type * as k8s from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  clientLines,
  createCRD,
  crdManifest,
  deleteCRD,
  isOwnAbort,
  kubeConfigFor,
  statusOf,
} from '../helpers/custom-resources.js';
import { until } from '../helpers/eventually.js';
import { apiRequest, openWatch } from '../helpers/http.js';
import { useE2EServer } from '../helpers/suite.js';

const e2e = useE2EServer();
const group = 'watch.kcpt.test';
const [line1, line2] = clientLines as [(typeof clientLines)[0], (typeof clientLines)[0]];

const gizmo = (name: string, size = 1) => ({
  apiVersion: `${group}/v1`,
  kind: 'Gizmo',
  metadata: { name, namespace: 'gz' },
  spec: { size },
});

describe('bookmarks and initial events on a custom resource', () => {
  let base: string;
  let objects: k8s.CustomObjectsApi;
  const ids = { group, version: 'v1', plural: 'gizmos', namespace: 'gz' };

  beforeAll(async () => {
    const kc = kubeConfigFor(line1.lib, e2e.server, e2e.second);
    await kc.makeApiClient(line1.lib.CoreV1Api).createNamespace({ body: { metadata: { name: 'gz' } } });
    await createCRD(line1.lib, kc, crdManifest(group, 'gizmos', 'Gizmo', [{ name: 'v1', storage: true }]));
    objects = kc.makeApiClient(line1.lib.CustomObjectsApi);
    for (const name of ['c', 'a', 'b']) await objects.createNamespacedCustomObject({ ...ids, body: gizmo(name) });
    base = `/clusters/${e2e.second}/apis/${group}/v1/namespaces/gz/gizmos`;
  }, 60_000);

  it('allowWatchBookmarks=true gives a BOOKMARK two seconds before the timeout; none for a watch of two seconds or less, none without it', async () => {
    const listed = (await apiRequest(e2e.server, base)).json();
    const created = (await objects.createNamespacedCustomObject({ ...ids, body: gizmo('d') })) as k8s.KubernetesObject;
    const from = `${base}?watch=true&resourceVersion=${listed.metadata.resourceVersion}&allowWatchBookmarks=true`;
    // kube's cacher sends its pre-timeout bookmark two seconds before the deadline, and none when that moment has
    // already passed: a two-second watch ends with no bookmark (its close is not one).
    const short = await openWatch(e2e.server, `${from}&timeoutSeconds=2`);
    const watch = await openWatch(e2e.server, `${from}&timeoutSeconds=4`);
    await Promise.all([short.ended, watch.ended]);
    expect(short.events.map((e) => [e.type, e.object.metadata.name])).toEqual([['ADDED', 'd']]);
    expect(watch.status).toBe(200);
    expect(watch.events.map((e) => [e.type, e.object.metadata.name])).toEqual([
      ['ADDED', 'd'],
      ['BOOKMARK', undefined],
    ]);
    const bookmark = watch.events[1]!.object;
    expect(bookmark).toEqual({
      kind: 'Gizmo',
      apiVersion: `${group}/v1`,
      metadata: { resourceVersion: expect.stringMatching(/^\d+$/), creationTimestamp: null },
    });
    expect(Number(bookmark.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(created.metadata!.resourceVersion));

    const plain = await openWatch(e2e.server, `${base}?watch=true&resourceVersion=${bookmark.metadata.resourceVersion}&timeoutSeconds=1`);
    await plain.ended;
    expect(plain.events).toEqual([]);
  });

  it('sendInitialEvents: ADDED for every object, the initial-events-end BOOKMARK, then live events', async () => {
    const names = ((await apiRequest(e2e.server, base)).json().items as any[]).map((i) => i.metadata.name);
    for (const [round, rv] of ['', '&resourceVersion=1'].entries()) {
      const watch = await openWatch(
        e2e.server,
        `${base}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true${rv}`,
      );
      try {
        await until(() => watch.events.some((e) => e.type === 'BOOKMARK'), 'the initial-events-end bookmark');
        const end = watch.events.findIndex((e) => e.type === 'BOOKMARK');
        expect(watch.events.slice(0, end).map((e) => [e.type, e.object.metadata.name])).toEqual(names.map((n) => ['ADDED', n]));
        const bookmark = watch.events[end]!.object;
        expect(bookmark.metadata.annotations).toEqual({ 'k8s.io/initial-events-end': 'true' });
        const newest = Math.max(...watch.events.slice(0, end).map((e) => Number(e.object.metadata.resourceVersion)));
        expect(Number(bookmark.metadata.resourceVersion)).toBeGreaterThanOrEqual(newest);
        const patched = (await objects.patchNamespacedCustomObject({
          ...ids,
          name: 'a',
          body: [{ op: 'replace', path: '/spec/size', value: 100 + round }],
        })) as k8s.KubernetesObject;
        await until(() => watch.events.length > end + 1, 'the live MODIFIED');
        expect(watch.events.slice(end + 1).map((e) => [e.type, e.object.metadata.name, e.object.metadata.resourceVersion])).toEqual([
          ['MODIFIED', 'a', patched.metadata!.resourceVersion],
        ]);
      } finally {
        watch.close();
      }
    }
  });

  it('sendInitialEvents=false streams only what happens from now on', async () => {
    const watch = await openWatch(e2e.server, `${base}?watch=true&sendInitialEvents=false&resourceVersionMatch=NotOlderThan&timeoutSeconds=2`);
    await objects.patchNamespacedCustomObject({ ...ids, name: 'b', body: [{ op: 'replace', path: '/spec/size', value: 42 }] });
    await watch.ended;
    expect(watch.events.map((e) => [e.type, e.object.metadata.name, e.object.spec.size])).toEqual([['MODIFIED', 'b', 42]]);
  });

  it.each([
    ['sendInitialEvents=true', 'sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list'],
    ['resourceVersionMatch=NotOlderThan', 'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided'],
    ['watch=true&sendInitialEvents=true', 'resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'],
    [
      'watch=true&resourceVersion=1&resourceVersionMatch=NotOlderThan',
      'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
    ],
    [
      'watch=true&sendInitialEvents=true&resourceVersionMatch=Exact&resourceVersion=1',
      '[resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, ' +
        'resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]',
    ],
  ])('refuses %s with a 422 worded like kube', async (query, problem) => {
    const answer = await apiRequest(e2e.server, `${base}?${query}`);
    expect(answer.status).toBe(422);
    expect(answer.json()).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Invalid',
      code: 422,
      message: `ListOptions.meta.k8s.io "" is invalid: ${problem}`,
      details: { group: 'meta.k8s.io', kind: 'ListOptions' },
    });
  });

  it.each(clientLines)('$name: Watch with sendInitialEvents gets the objects, then the initial-events-end bookmark', async ({ lib }) => {
    const kc = kubeConfigFor(lib, e2e.server, e2e.second);
    const names = ((await apiRequest(e2e.server, base)).json().items as any[]).map((i) => i.metadata.name);
    const seen: [string, string | undefined][] = [];
    let ended: unknown = 'open';
    const controller = await new lib.Watch(kc).watch(
      `/apis/${group}/v1/namespaces/gz/gizmos`,
      { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true },
      (type, obj: k8s.KubernetesObject) =>
        seen.push([type, type === 'BOOKMARK' ? obj.metadata?.annotations?.['k8s.io/initial-events-end'] : obj.metadata?.name]),
      (err) => (ended = err),
    );
    try {
      await until(() => seen.some(([type]) => type === 'BOOKMARK'), () => `a bookmark (saw ${JSON.stringify(seen)}, end ${String(ended)})`);
    } finally {
      controller.abort();
    }
    expect(seen).toEqual([...names.map((n): [string, string] => ['ADDED', n]), ['BOOKMARK', 'true']]);
  });
});

describe('a custom resource whose CRD is deleted and created again', () => {
  const lifeGroup = 'life.kcpt.test';
  const manifest = crdManifest(lifeGroup, 'sprockets', 'Sprocket', [{ name: 'v1', storage: true }]);
  const ids = { group: lifeGroup, version: 'v1', plural: 'sprockets', namespace: 'default' };
  const path = `/apis/${lifeGroup}/v1/namespaces/default/sprockets`;
  const sprocket = (name: string) => ({ apiVersion: `${lifeGroup}/v1`, kind: 'Sprocket', metadata: { name }, spec: { size: 1 } });

  it('open watches end cleanly after the DELETED of every object; an informer then reports the 404', async () => {
    const kc = kubeConfigFor(line1.lib, e2e.server, e2e.second);
    await createCRD(line1.lib, kc, manifest);
    const objects = kc.makeApiClient(line1.lib.CustomObjectsApi);
    for (const name of ['one', 'two']) await objects.createNamespacedCustomObject({ ...ids, body: sprocket(name) });
    const listed = (await objects.listNamespacedCustomObject(ids)) as k8s.KubernetesListObject<k8s.KubernetesObject>;

    const events: string[] = [];
    let ended: unknown = 'open';
    await new line1.lib.Watch(kc).watch(
      path,
      { resourceVersion: listed.metadata!.resourceVersion },
      (type, obj: k8s.KubernetesObject) => events.push(`${type} ${obj.metadata?.name}`),
      (err) => (ended = err),
    );

    // client-node 2.x: its informer reconnects after the stream ends and meets the 404.
    const kc2 = kubeConfigFor(line2.lib, e2e.server, e2e.second);
    const objects2 = kc2.makeApiClient(line2.lib.CustomObjectsApi);
    const informer = line2.lib.makeInformer<k8s.KubernetesObject>(kc2, path, () =>
      objects2.listNamespacedCustomObject(ids) as Promise<k8s.KubernetesListObject<k8s.KubernetesObject>>,
    );
    const seen = { add: [] as string[], delete: [] as string[], errors: [] as unknown[] };
    informer.on('add', (o) => seen.add.push(o.metadata!.name!));
    informer.on('delete', (o) => seen.delete.push(o.metadata!.name!));
    informer.on('error', (err) => (isOwnAbort(err) ? undefined : seen.errors.push(err)));
    await informer.start();
    try {
      await until(() => seen.add.length === 2, () => JSON.stringify(seen));
      await deleteCRD(line1.lib, kc, manifest.metadata.name);
      await until(() => ended !== 'open', () => `the watch to end (events ${JSON.stringify(events)})`);
      await until(() => seen.errors.length > 0, () => `the informer's error (${JSON.stringify(seen)})`);
    } finally {
      await informer.stop();
    }
    expect(ended).toBeNull();
    expect(events.sort()).toEqual(['DELETED one', 'DELETED two']);
    expect(seen.delete.sort()).toEqual(['one', 'two']);
    expect(seen.errors.map(statusOf)).toEqual([404]);
  });

  it('an informer on the CRD created again (another schema) works without a restart', async () => {
    const kc = kubeConfigFor(line1.lib, e2e.server, e2e.second);
    const again = crdManifest(lifeGroup, 'sprockets', 'Sprocket', [
      { name: 'v1', storage: true, specProperties: { size: { type: 'integer' }, colour: { type: 'string' } } },
    ]);
    await createCRD(line1.lib, kc, again);
    const objects = kc.makeApiClient(line1.lib.CustomObjectsApi);
    await objects.createNamespacedCustomObject({ ...ids, body: { ...sprocket('three'), spec: { size: 3, colour: 'red' } } });
    const informer = line1.lib.makeInformer<k8s.KubernetesObject & { spec?: { colour?: string } }>(kc, path, () =>
      objects.listNamespacedCustomObject(ids) as Promise<k8s.KubernetesListObject<k8s.KubernetesObject>>,
    );
    const added: string[] = [];
    informer.on('add', (o) => added.push(`${o.metadata!.name}:${o.spec?.colour ?? ''}`));
    await informer.start();
    try {
      await objects.createNamespacedCustomObject({ ...ids, body: { ...sprocket('four'), spec: { size: 4, colour: 'blue' } } });
      await until(() => added.length === 2, () => JSON.stringify(added));
    } finally {
      await informer.stop();
    }
    expect(added).toEqual(['three:red', 'four:blue']);
  });
});
