/**
 * Issue 2 with @kubernetes/client-node 1.x, loaded from the admin kubeconfig: list, watch resumed after the
 * server closes the stream (every event exactly once), informers, and 410 Gone on a compacted revision.
 */
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep, uniqueName } from '../helpers/kubectl.js';
import { startCommandHasFlag, startServer, type TestServer } from '../helpers/server.js';
import { useE2EServer } from '../helpers/suite.js';
import { until } from '../helpers/eventually.js';

const e2e = useE2EServer();

/** The admin kubeconfig, loaded as a user would; for another cluster, a context whose server has its prefix. */
function kubeConfig(server: TestServer, cluster: string): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(server.kubeconfig);
  expect(kc.getCurrentContext()).toBe('root');
  if (cluster !== 'root') {
    const root = kc.getCluster('root')!;
    kc.addCluster({ ...root, name: `e2e-${cluster}`, server: `${server.url}/clusters/${cluster}` });
    kc.addContext({ name: `e2e-${cluster}`, cluster: `e2e-${cluster}`, user: 'kcp-admin' });
    kc.setCurrentContext(`e2e-${cluster}`);
  }
  return kc;
}

interface SeenEvent {
  type: string;
  name: string;
  rv: string;
  cluster: string | undefined;
}

/**
 * Follows a collection the way a careful client does: watch from `rv` with `timeoutSeconds`, and whenever the
 * server ends the stream, reconnect from the last resourceVersion seen.
 */
function resumingWatch(kc: k8s.KubeConfig, path: string, rv: string, timeoutSeconds: number) {
  const watch = new k8s.Watch(kc);
  const events: SeenEvent[] = [];
  const errors: unknown[] = [];
  let connections = 0;
  let stopped = false;
  let current: AbortController | undefined;
  let lastRv = rv;

  const loop = (async () => {
    while (!stopped) {
      connections += 1;
      const err = await new Promise<unknown>((resolveDone) => {
        void watch
          .watch(
            path,
            { resourceVersion: lastRv, timeoutSeconds },
            (type, obj: k8s.KubernetesObject) => {
              events.push({
                type,
                name: obj.metadata?.name ?? '',
                rv: obj.metadata?.resourceVersion ?? '',
                cluster: obj.metadata?.annotations?.['kcp.io/cluster'],
              });
              if (obj.metadata?.resourceVersion) lastRv = obj.metadata.resourceVersion;
            },
            (doneErr) => resolveDone(doneErr),
          )
          .then((controller) => {
            current = controller;
          });
      });
      if (stopped) break;
      if (err) {
        errors.push(err);
        break;
      }
    }
  })();

  return {
    events,
    errors,
    connections: () => connections,
    async waitFor(predicate: () => boolean, what: string, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate()) {
        if (errors.length) throw new Error(`watch failed while waiting for ${what}: ${String(errors[0])}`);
        if (Date.now() > deadline) {
          throw new Error(`timed out waiting for ${what}; saw ${JSON.stringify(events)} over ${connections} connection(s)`);
        }
        await sleep(50);
      }
    },
    async stop() {
      stopped = true;
      current?.abort();
      await Promise.race([loop, sleep(2_000)]);
    },
  };
}

/** A Watch whose every request asks the server to end the stream after `timeoutSeconds`. */
class ShortWatch extends k8s.Watch {
  connections = 0;
  constructor(
    config: k8s.KubeConfig,
    private readonly timeoutSeconds: number,
    private readonly overrideFirstResourceVersion?: string,
  ) {
    super(config);
  }
  override async watch(
    path: string,
    queryParams: Record<string, string | number | boolean | undefined>,
    callback: (phase: string, apiObj: any, watchObj?: any) => void,
    done: (err: any) => void,
  ): Promise<AbortController> {
    this.connections += 1;
    const params: Record<string, string | number | boolean | undefined> = {
      ...queryParams,
      timeoutSeconds: this.timeoutSeconds,
    };
    if (this.connections === 1 && this.overrideFirstResourceVersion !== undefined) {
      params.resourceVersion = this.overrideFirstResourceVersion;
    }
    return super.watch(path, params, callback, done);
  }
}

function recordInformer(informer: k8s.Informer<k8s.V1ConfigMap>) {
  const seen = { add: [] as string[], update: [] as string[], delete: [] as string[], error: [] as unknown[] };
  informer.on('add', (o) => seen.add.push(`${o.metadata!.name}:${o.data?.v ?? ''}`));
  informer.on('update', (o) => seen.update.push(`${o.metadata!.name}:${o.data?.v ?? ''}`));
  informer.on('delete', (o) => seen.delete.push(o.metadata!.name!));
  // stop() aborts the open watch, which client-node reports as an AbortError; that one is ours, not the server's.
  informer.on('error', (err) => {
    if ((err as { name?: string } | undefined)?.name !== 'AbortError') seen.error.push(err);
  });
  return seen;
}

const cm = (name: string, v: string, labels: Record<string, string> = {}): k8s.V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, labels },
  data: { v },
});

describe.each(e2e.clusters)('@kubernetes/client-node in $label', ({ name: cluster }) => {
  let kc: k8s.KubeConfig;
  let core: k8s.CoreV1Api;
  const ns = uniqueName('client');

  beforeAll(async () => {
    e2e.ensure(cluster);
    kc = kubeConfig(e2e.server, cluster);
    core = kc.makeApiClient(k8s.CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: ns } } });
  }, 60_000);

  it('lists configmaps, with selectors, each annotated with its cluster', async () => {
    const mark = uniqueName('mark');
    for (const name of ['c', 'a', 'b']) {
      const created = await core.createNamespacedConfigMap({ namespace: ns, body: cm(name, name, { mark }) });
      expect(created.metadata?.uid).toBeTruthy();
    }
    const list = await core.listNamespacedConfigMap({ namespace: ns, labelSelector: `mark=${mark}` });
    expect(list.metadata?.resourceVersion).toMatch(/^[1-9]\d*$/);
    expect(list.items.map((i) => [i.metadata?.name, i.data?.v, i.metadata?.annotations?.['kcp.io/cluster']])).toEqual([
      ['a', 'a', cluster],
      ['b', 'b', cluster],
      ['c', 'c', cluster],
    ]);
    const page = await core.listNamespacedConfigMap({ namespace: ns, labelSelector: `mark=${mark}`, limit: 2 });
    expect(page.items.map((i) => i.metadata?.name)).toEqual(['a', 'b']);
    expect(page.metadata?._continue).toBeTruthy();
    const rest = await core.listNamespacedConfigMap({
      namespace: ns,
      labelSelector: `mark=${mark}`,
      limit: 2,
      _continue: page.metadata!._continue!,
    });
    expect(rest.items.map((i) => i.metadata?.name)).toEqual(['c']);
    expect(rest.metadata?._continue || undefined).toBeUndefined();

    // Nothing of it in the other cluster.
    const otherCore = kubeConfig(e2e.server, e2e.other(cluster)).makeApiClient(k8s.CoreV1Api);
    const elsewhere = await otherCore.listConfigMapForAllNamespaces({ labelSelector: `mark=${mark}` });
    expect(elsewhere.items).toEqual([]);
  });

  it('reads a missing object as an ApiException 404 with a NotFound Status', async () => {
    const err = await core.readNamespacedConfigMap({ namespace: ns, name: 'nope' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(k8s.ApiException);
    const apiErr = err as k8s.ApiException<string>;
    expect(apiErr.code).toBe(404);
    const status = typeof apiErr.body === 'string' ? JSON.parse(apiErr.body) : apiErr.body;
    expect(status).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'NotFound', code: 404, message: 'configmaps "nope" not found' });
  });

  it('patches with JSON Patch (client-node\'s default) and merge patch', async () => {
    const name = uniqueName('patched');
    await core.createNamespacedConfigMap({ namespace: ns, body: cm(name, '1') });
    const jsonPatched = await core.patchNamespacedConfigMap({
      namespace: ns,
      name,
      body: [
        { op: 'replace', path: '/data/v', value: '2' },
        { op: 'add', path: '/data/w', value: 'x' },
      ],
    });
    expect(jsonPatched.data).toEqual({ v: '2', w: 'x' });
    const merged = await core.patchNamespacedConfigMap(
      { namespace: ns, name, body: { data: { w: null, z: 'z' } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    expect(merged.data).toEqual({ v: '2', z: 'z' });
    expect(Number(merged.metadata!.resourceVersion)).toBeGreaterThan(Number(jsonPatched.metadata!.resourceVersion));
  });

  it('Watch resumes after the server ends each stream and sees every event exactly once', async () => {
    const box = uniqueName('watch');
    await core.createNamespace({ body: { metadata: { name: box } } });
    const start = await core.listNamespacedConfigMap({ namespace: box });
    const watch = resumingWatch(kc, `/api/v1/namespaces/${box}/configmaps`, start.metadata!.resourceVersion!, 1);
    try {
      await core.createNamespacedConfigMap({ namespace: box, body: cm('a', '1') });
      await watch.waitFor(() => watch.events.length >= 1, 'ADDED a');
      // Each pause outlasts timeoutSeconds, so the following events arrive on new connections.
      await sleep(1_600);
      await core.replaceNamespacedConfigMap({ namespace: box, name: 'a', body: cm('a', '2') });
      await sleep(1_600);
      await core.createNamespacedConfigMap({ namespace: box, body: cm('b', '1') });
      await core.deleteNamespacedConfigMap({ namespace: box, name: 'a' });
      await sleep(1_600);
      await core.replaceNamespacedConfigMap({ namespace: box, name: 'b', body: cm('b', '2') });
      await watch.waitFor(() => watch.events.length >= 5, 'five events');
      await sleep(1_200); // anything duplicated on the next reconnect shows up now
    } finally {
      await watch.stop();
    }
    expect(watch.errors).toEqual([]);
    expect(watch.events.map((e) => [e.type, e.name])).toEqual([
      ['ADDED', 'a'],
      ['MODIFIED', 'a'],
      ['ADDED', 'b'],
      ['DELETED', 'a'],
      ['MODIFIED', 'b'],
    ]);
    const rvs = watch.events.map((e) => Number(e.rv));
    expect(rvs.every((rv, i) => Number.isInteger(rv) && rv > 0 && (i === 0 || rv > rvs[i - 1]!)), JSON.stringify(rvs)).toBe(true);
    expect(watch.events.every((e) => e.cluster === cluster)).toBe(true);
    expect(watch.connections(), 'the server ended streams after timeoutSeconds').toBeGreaterThanOrEqual(4);
  });

  it('an informer (ListWatch) keeps its cache exact across server-side stream ends', async () => {
    const box = uniqueName('informer');
    await core.createNamespace({ body: { metadata: { name: box } } });
    await core.createNamespacedConfigMap({ namespace: box, body: cm('seed', '0') });
    const shortWatch = new ShortWatch(kc, 1);
    const informer = new k8s.ListWatch<k8s.V1ConfigMap>(
      `/api/v1/namespaces/${box}/configmaps`,
      shortWatch,
      () => core.listNamespacedConfigMap({ namespace: box }),
      false,
    );
    const seen = recordInformer(informer);
    await informer.start();
    try {
      await until(() => seen.add.length >= 1, () => JSON.stringify(seen), 15_000);
      await core.createNamespacedConfigMap({ namespace: box, body: cm('x', '1') });
      await until(() => seen.add.length >= 2, () => JSON.stringify(seen), 15_000);
      await sleep(1_600);
      await core.replaceNamespacedConfigMap({ namespace: box, name: 'x', body: cm('x', '2') });
      await until(() => seen.update.length >= 1, () => JSON.stringify(seen), 15_000);
      await sleep(1_600);
      await core.deleteNamespacedConfigMap({ namespace: box, name: 'seed' });
      await until(() => seen.delete.length >= 1, () => JSON.stringify(seen), 15_000);
      await sleep(1_600);
    } finally {
      await informer.stop();
    }
    expect(seen).toEqual({ add: ['seed:0', 'x:1'], update: ['x:2'], delete: ['seed'], error: [] });
    expect(informer.list().map((o) => `${o.metadata!.name}:${o.data!.v}`)).toEqual(['x:2']);
    expect(shortWatch.connections).toBeGreaterThanOrEqual(4);
  });

  it('makeInformer sees adds, updates and deletes', async () => {
    const box = uniqueName('mk');
    await core.createNamespace({ body: { metadata: { name: box } } });
    await core.createNamespacedConfigMap({ namespace: box, body: cm('before', '0') });
    const informer = k8s.makeInformer<k8s.V1ConfigMap>(kc, `/api/v1/namespaces/${box}/configmaps`, () =>
      core.listNamespacedConfigMap({ namespace: box }),
    );
    const seen = recordInformer(informer);
    await informer.start();
    try {
      await until(() => seen.add.length >= 1, () => JSON.stringify(seen), 15_000);
      await core.createNamespacedConfigMap({ namespace: box, body: cm('after', '1') });
      await core.replaceNamespacedConfigMap({ namespace: box, name: 'after', body: cm('after', '2') });
      await core.deleteNamespacedConfigMap({ namespace: box, name: 'before' });
      await until(() => seen.delete.length >= 1 && seen.update.length >= 1, () => JSON.stringify(seen), 15_000);
      await sleep(300);
    } finally {
      await informer.stop();
    }
    expect(seen).toEqual({ add: ['before:0', 'after:1'], update: ['after:2'], delete: ['before'], error: [] });
  });
});

// 410 Gone needs the server to forget history on demand. The engine already has the option
// (startServer({ watchHistoryRetentionMs }) and the compactor's intervalMs); the test needs both on `kcpt start`:
//   --watch-history-retention=<duration>            keep at least this much history (default 5m)
//   --watch-history-compaction-interval=<duration>  how often the compactor runs (default 60s)
// Until the build declares both flags, the case below is a todo.
const compactionFlags = [
  '--watch-history-retention=0s',
  '--watch-history-compaction-interval=100ms',
  '--watch-history-min-revisions=1',
];
const canCompact =
  startCommandHasFlag('watch-history-retention') && startCommandHasFlag('watch-history-compaction-interval');

describe('410 Gone on a compacted revision', () => {
  if (!canCompact) {
    it.todo(
      'watch from resourceVersion "1" after compaction gets ERROR 410 Expired and the informer re-lists ' +
        `(needs kcpt start ${compactionFlags.join(' ')})`,
    );
    return;
  }

  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ extraArgs: compactionFlags });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('watch from resourceVersion "1" gets 410 Expired, then the stream ends', async () => {
    const kc = kubeConfig(server, 'root');
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const ns = uniqueName('gone');
    await core.createNamespace({ body: { metadata: { name: ns } } });
    await core.createNamespacedConfigMap({ namespace: ns, body: cm('churn', '0') });
    for (let i = 1; i <= 5; i++) {
      await core.replaceNamespacedConfigMap({ namespace: ns, name: 'churn', body: cm('churn', String(i)) });
    }

    const deadline = Date.now() + 15_000;
    let outcome: { events: { type: string; object: any }[]; err: any } | undefined;
    while (Date.now() < deadline) {
      const events: { type: string; object: any }[] = [];
      const err = await new Promise<any>((resolveDone) => {
        void new k8s.Watch(kc).watch(
          `/api/v1/namespaces/${ns}/configmaps`,
          // Bounded, so that an attempt made before compaction caught up ends and is retried.
          { resourceVersion: '1', timeoutSeconds: 1 },
          (type, object) => events.push({ type, object }),
          (doneErr) => resolveDone(doneErr),
        );
      });
      outcome = { events, err };
      if (err?.statusCode === 410 || events.some((e) => e.type === 'ERROR')) break;
      outcome = undefined;
      await sleep(250);
    }
    expect(outcome, 'no 410 within 15 s: history from revision 1 was never compacted').toBeDefined();
    const { events, err } = outcome!;
    if (err?.statusCode === 410) {
      expect(events).toEqual([]); // client-go also accepts a plain HTTP 410
    } else {
      expect(err ?? null).toBeNull(); // the server closed the stream right after the ERROR event
      expect(events.map((e) => e.type)).toEqual(['ERROR']);
      expect(events[0]!.object).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Expired', code: 410 });
      expect(events[0]!.object.message).toMatch(/^too old resource version: 1 \(\d+\)$/);
    }

    // A ListWatch whose first watch starts from the compacted revision recovers by re-listing.
    const informer = new k8s.ListWatch<k8s.V1ConfigMap>(
      `/api/v1/namespaces/${ns}/configmaps`,
      new ShortWatch(kc, 2, '1'),
      () => core.listNamespacedConfigMap({ namespace: ns }),
      false,
    );
    const seen = recordInformer(informer);
    await informer.start();
    try {
      await until(() => seen.add.length >= 1, () => JSON.stringify(seen), 15_000);
      await core.createNamespacedConfigMap({ namespace: ns, body: cm('fresh', '1') });
      await until(() => seen.add.includes('fresh:1'), () => JSON.stringify(seen), 20_000);
    } finally {
      await informer.stop();
    }
    expect(seen.error).toEqual([]);
    expect(seen.add).toEqual(['churn:5', 'fresh:1']);
  });
});
