/**
 * Issue 4: a small controller on @kubernetes/client-node runs against custom resources for minutes while a
 * driver creates, changes and deletes them. Every informer must report each object's changes in order, with no
 * gap and no duplicate, across its reconnects; the controller's status writes (optimistic concurrency, 409 retried)
 * must all land; and each informer's cache must end equal to a fresh LIST.
 *
 * The two client lines reconnect for different reasons, so each gets its own server:
 * - 1.x never gives up on a stream; that server runs with --min-request-timeout=5, so it ends every watch after
 *   5–10 s, as kube-apiserver does after its (default 30–60 min) request timeout;
 * - 2.x aborts a watch that has been silent for 30 s (TimeoutError) and resumes; its driver pauses 35 s at a time.
 *
 * KCPT_INFORMER_SOAK_MS sets how long the driver runs (both soaks at the same time): 60 s by default, the shortest run
 * in which every expectation below applies (a 2.x stream silent for 30 s, status writes that conflict); `npm run
 * test:soak` runs 3 minutes.
 */
import type * as k8s from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { clientLines, createCRD, crdManifest, kubeConfigFor, type ClientNode } from '../helpers/custom-resources.js';
import { until } from '../helpers/eventually.js';
import { uniqueClusterName } from '../helpers/kubectl.js';
import { createLogicalCluster } from '../helpers/api-setup.js';
import { startServer } from '../helpers/server.js';
import {
  countingWatch,
  Driver,
  keyOf,
  Ledger,
  mismatches,
  Observer,
  StatusController,
  type DriverOptions,
  type Resource,
  type Widget,
} from '../helpers/soak.js';

const soakMs = Number(process.env.KCPT_INFORMER_SOAK_MS ?? 60_000);
const resource: Resource = { group: 'soak.kcpt.test', version: 'v1', plural: 'widgets', kind: 'Widget' };
const collection = `/apis/${resource.group}/${resource.version}/${resource.plural}`;

interface SoakPlan {
  serverArgs: string[];
  driver: Omit<DriverOptions, 'namespaces'>;
  /** What must have ended the raw observer's streams at least once (null: no expectation at this duration). */
  expectEnd: 'server-end' | 'TimeoutError' | null;
}

const plans: Record<string, SoakPlan> = {
  'client-node 1.x': {
    serverArgs: ['--min-request-timeout', '5'],
    driver: { stepMs: 120 },
    expectEnd: soakMs >= 20_000 ? 'server-end' : null,
  },
  'client-node 2.x': {
    serverArgs: [],
    driver: { stepMs: 120, cycle: { activeMs: 20_000, idleMs: 35_000 } },
    expectEnd: soakMs >= 60_000 ? 'TimeoutError' : null,
  },
};

describe.concurrent('a status controller on custom resources, soaked', () => {
  it.each(clientLines)(
    '$name: every change in order, status written, caches equal a fresh LIST',
    async ({ name, lib }) => {
      await soak(name, lib, plans[name]!);
    },
    soakMs + 240_000,
  );
});

async function soak(line: string, lib: ClientNode, plan: SoakPlan): Promise<void> {
  const server = await startServer({ extraArgs: plan.serverArgs });
  const informers: k8s.Informer<Widget>[] = [];
  let controller: StatusController | undefined;
  try {
    const cluster = uniqueClusterName();
    await createLogicalCluster(server, cluster);
    const kc = kubeConfigFor(lib, server, cluster);
    const namespaces = ['soak-a', 'soak-b'];
    const core = kc.makeApiClient(lib.CoreV1Api);
    for (const ns of namespaces) await core.createNamespace({ body: { metadata: { name: ns } } });
    await createCRD(lib, kc, crdManifest(resource.group, resource.plural, resource.kind, [{ name: 'v1', storage: true }]));

    const objects = kc.makeApiClient(lib.CustomObjectsApi);
    const listAll = () => objects.listClusterCustomObject({ ...resource }) as Promise<k8s.KubernetesListObject<Widget>>;
    const listA = () =>
      objects.listNamespacedCustomObject({ ...resource, namespace: 'soak-a' }) as Promise<k8s.KubernetesListObject<Widget>>;
    const ledger = new Ledger();

    // The controller's informer (all namespaces), one on a single namespace, and one whose streams are recorded raw.
    const makeInformer: InformerFactory = (config, path, list) =>
      lib.makeInformer<Widget>(config, path, list) as k8s.Informer<Widget> & k8s.ObjectCache<Widget>;
    const byController = makeObserved(makeInformer, kc, collection, listAll);
    const inA = makeObserved(makeInformer, kc, `/apis/${resource.group}/v1/namespaces/soak-a/widgets`, listA);
    const recorded = countingWatch(lib, kc);
    const rawObserved = makeObserved((_kc, path, list) => new lib.ListWatch<Widget>(path, recorded.watch, list, false), kc, collection, listAll);
    informers.push(byController.informer, inA.informer, rawObserved.informer);

    controller = new StatusController({ objects, resource }, byController.informer as k8s.ObjectCache<Widget> & k8s.Informer<Widget>, ledger);
    byController.informer.on('add', controller.enqueue);
    byController.informer.on('update', controller.enqueue);
    for (const informer of informers) await informer.start();
    controller.start();

    const driver = new Driver({ objects, resource }, ledger, { ...plan.driver, namespaces });
    await driver.run(soakMs);

    // Settle: the controller catches up, then every informer catches up with the last write of every object.
    const fresh = async () => (await listAll()).items;
    await until(
      async () => controller!.idle() && (await fresh()).every(converged),
      async () => `status to converge: ${JSON.stringify((await fresh()).filter((o) => !converged(o)).map(keyOf))}`,
      90_000,
    );
    // Informers may trail the last writes a little; wait for them before comparing (a real gap never closes).
    const inNamespaceA = (key: string) => key.startsWith('soak-a/');
    const observed: [Observer, (key: string) => boolean][] = [
      [byController.observer, () => true],
      [inA.observer, inNamespaceA],
      [rawObserved.observer, () => true],
    ];
    await until(() => observed.every(([o, include]) => mismatches(ledger, o, include).length === 0), 'informers', 60_000).catch(
      () => undefined,
    );

    const figures = {
      line,
      writes: { creates: driver.creates, updates: driver.updates, deletes: driver.deletes, status: controller.writes },
      conflicts409Retried: controller.retries409,
      eventsSeen: [byController.observer, inA.observer, rawObserved.observer].map((o) => o.eventCount()),
      connects: [byController.observer, inA.observer, rawObserved.observer].map((o) => o.connects),
      lists: [byController.observer, inA.observer, rawObserved.observer].map((o) => o.lists),
      streamEnds: tally(recorded.ends),
    };
    console.log(`informer soak ${JSON.stringify(figures)}`);

    for (const o of [byController.observer, inA.observer, rawObserved.observer]) expect(o.errors, line).toEqual([]);
    expect(controller.failures, line).toEqual([]);
    expect(mismatches(ledger, byController.observer, () => true), `${line}: controller's informer`).toEqual([]);
    expect(mismatches(ledger, inA.observer, inNamespaceA), `${line}: namespaced informer`).toEqual([]);
    expect(mismatches(ledger, rawObserved.observer, () => true), `${line}: raw-recorded informer`).toEqual([]);
    // The raw streams never repeat or reorder an object's revision, across all reconnects.
    const repeats = [...recorded.raw].filter(([, rvs]) => rvs.some((rv, i) => i > 0 && rv <= rvs[i - 1]!));
    expect(repeats, `${line}: raw events out of order or repeated`).toEqual([]);
    // No history was compacted under them, so nobody had to re-list.
    expect(figures.lists, line).toEqual([1, 1, 1]);
    if (plan.expectEnd) expect(recorded.ends, `${line}: how streams ended`).toContain(plan.expectEnd);
    if (soakMs >= 60_000) expect(controller.retries409, `${line}: the driver's double updates make status writes conflict`).toBeGreaterThan(0);

    const expectCache = async (informer: unknown, list: () => Promise<k8s.KubernetesListObject<Widget>>) => {
      const cache = (informer as k8s.ObjectCache<Widget>).list().map(summary).sort();
      expect(cache, line).toEqual((await list()).items.map(summary).sort());
    };
    await expectCache(byController.informer, listAll);
    await expectCache(inA.informer, listA);
    await expectCache(rawObserved.informer, listAll);
  } finally {
    await controller?.stop();
    for (const informer of informers) await informer.stop();
    await server.stop();
  }
}

type InformerFactory = (
  kc: k8s.KubeConfig,
  path: string,
  list: () => Promise<k8s.KubernetesListObject<Widget>>,
) => k8s.Informer<Widget> & k8s.ObjectCache<Widget>;

function makeObserved(
  factory: InformerFactory,
  kc: k8s.KubeConfig,
  path: string,
  list: () => Promise<k8s.KubernetesListObject<Widget>>,
) {
  let observer: Observer | undefined;
  const informer = factory(kc, path, () => observer!.counting(list)());
  observer = new Observer(informer);
  return { informer, observer };
}

const converged = (o: Widget) => o.status?.observedGeneration === o.metadata?.generation && o.status?.seenSize === o.spec?.size;
const summary = (o: Widget) => `${keyOf(o)}@${o.metadata?.resourceVersion} gen=${o.metadata?.generation} status=${JSON.stringify(o.status)}`;

function tally(values: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}
