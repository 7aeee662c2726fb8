/**
 * Issue 4, 410 recovery on custom resources: an informer is disconnected while its objects change and the server
 * compacts the watch history it would resume from (hidden knobs: no retention, compaction every 100 ms). On
 * reconnect the watch answers 410 Expired; the informer re-lists, reports what changed meanwhile (the deleted
 * object as a delete, the new one as an add, the changed one as one update) and ends equal to a fresh LIST.
 */
import type * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientLines, createCRD, crdManifest, isOwnAbort, kubeConfigFor } from '../helpers/custom-resources.js';
import { until } from '../helpers/eventually.js';
import { openWatch } from '../helpers/http.js';
import { startServer, type TestServer } from '../helpers/server.js';

const compactionFlags = [
  '--watch-history-retention=0s',
  '--watch-history-compaction-interval=100ms',
  '--watch-history-min-revisions=1',
];

interface Part extends k8s.KubernetesObject {
  spec?: { size?: number };
}

describe('an informer on a custom resource whose history was compacted while it was away', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ extraArgs: compactionFlags });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  it.each(clientLines)('$name: re-lists after 410 Expired and ends consistent', async ({ name: line, lib }) => {
    const group = `${line.includes('2') ? 'two' : 'one'}.relist.kcpt.test`;
    const ids = { group, version: 'v1', plural: 'parts', namespace: 'default' };
    const path = `/apis/${group}/v1/namespaces/default/parts`;
    const kc = kubeConfigFor(lib, server, 'root');
    await createCRD(lib, kc, crdManifest(group, 'parts', 'Part', [{ name: 'v1', storage: true }]));
    const objects = kc.makeApiClient(lib.CustomObjectsApi);
    const part = (name: string, size: number) => ({ apiVersion: `${group}/v1`, kind: 'Part', metadata: { name }, spec: { size } });
    const resize = (name: string, size: number) =>
      objects.patchNamespacedCustomObject({ ...ids, name, body: [{ op: 'replace', path: '/spec/size', value: size }] });
    for (const name of ['p1', 'p2', 'p3']) await objects.createNamespacedCustomObject({ ...ids, body: part(name, 1) });

    let lists = 0;
    const list = () => {
      lists += 1;
      return objects.listNamespacedCustomObject(ids) as Promise<k8s.KubernetesListObject<Part>>;
    };
    const informer = lib.makeInformer<Part>(kc, path, list) as k8s.Informer<Part> & k8s.ObjectCache<Part> & { latestResourceVersion(): string };
    const seen = { add: [] as string[], update: [] as string[], delete: [] as string[], errors: [] as unknown[] };
    informer.on('add', (o) => seen.add.push(`${o.metadata!.name}:${o.spec?.size}`));
    informer.on('update', (o) => seen.update.push(`${o.metadata!.name}:${o.spec?.size}`));
    informer.on('delete', (o) => seen.delete.push(o.metadata!.name!));
    informer.on('error', (err) => (isOwnAbort(err) ? undefined : seen.errors.push(err)));

    await informer.start();
    try {
      await until(() => seen.add.length === 3, () => JSON.stringify(seen));
      const away = informer.latestResourceVersion();
      await informer.stop();

      // While it is away: p1 changes several times, p2 goes, p4 comes.
      for (let size = 2; size <= 5; size++) await resize('p1', size);
      await objects.deleteNamespacedCustomObject({ ...ids, name: 'p2' });
      await objects.createNamespacedCustomObject({ ...ids, body: part('p4', 1) });
      // The history after `away` really is gone: a watch from there gets 410 Expired.
      await until(async () => {
        const probe = await openWatch(server, `/clusters/root${path}?watch=true&resourceVersion=${away}&timeoutSeconds=1`);
        await probe.ended;
        return probe.events.some((e) => e.type === 'ERROR' && e.object.code === 410);
      }, `revision ${away} to be compacted`);

      await informer.start();
      const fresh = async () => ((await objects.listNamespacedCustomObject(ids)) as k8s.KubernetesListObject<Part>).items;
      const summary = (o: Part) => `${o.metadata!.name}@${o.metadata!.resourceVersion}`;
      await until(
        async () => JSON.stringify(informer.list().map(summary).sort()) === JSON.stringify((await fresh()).map(summary).sort()),
        async () => `the cache to equal a fresh LIST: ${JSON.stringify(informer.list().map(summary))} vs ${JSON.stringify((await fresh()).map(summary))}`,
      );
      // Still following live changes after the re-list.
      await resize('p3', 9);
      await until(() => seen.update.includes('p3:9'), () => JSON.stringify(seen));
    } finally {
      await informer.stop();
    }
    expect(seen.errors).toEqual([]);
    expect(lists, 'one list at start, one after the 410').toBe(2);
    expect(seen.add).toEqual(['p1:1', 'p2:1', 'p3:1', 'p4:1']);
    expect(seen.update).toEqual(['p1:5', 'p3:9']);
    expect(seen.delete).toEqual(['p2']);
  });
});
