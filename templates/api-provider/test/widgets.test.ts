/**
 * Testing the controller's logic against a real API server, one fresh kcpt workspace per test (kcpt/testing): the
 * workspace gets crd.yaml installed, the reconciler watches it, and the assertions wait for what it writes.
 *
 *   npm test
 */
import * as k8s from '@kubernetes/client-node';
import { afterEach, expect, it } from 'vitest';
import { useControlPlane, waitFor } from 'kcpt/testing/vitest';
import type { Widget } from '../src/reconcile.js';
import { reconcileWidgetsIn, type RunningReconciler } from '../src/workspace-reconciler.js';

const kcp = useControlPlane({ workspace: { crds: [new URL('../crd.yaml', import.meta.url).pathname] } });
const widgets = { group: 'demo.kcpt.dev', version: 'v1alpha1', plural: 'widgets', namespace: 'default' };

let reconciler: RunningReconciler | undefined;
afterEach(() => reconciler?.stop());

async function start() {
  const kc = await kcp.workspace.kubeConfig();
  reconciler = await reconcileWidgetsIn(kc);
  return kc.makeApiClient(k8s.CustomObjectsApi);
}

const readyCondition = (w: Widget) => w.status?.conditions?.find((c) => c.type === 'Ready');

it('marks a new Widget Ready, describing it', async () => {
  const api = await start();
  await api.createNamespacedCustomObject({
    ...widgets,
    body: { apiVersion: 'demo.kcpt.dev/v1alpha1', kind: 'Widget', metadata: { name: 'first' }, spec: { size: 3, colour: 'teal' } },
  });
  const widget = await waitFor(async () => {
    const w = (await api.getNamespacedCustomObject({ ...widgets, name: 'first' })) as Widget;
    expect(readyCondition(w)?.status).toBe('True');
    return w;
  });
  expect(readyCondition(widget)?.message).toBe('a teal widget of size 3 is ready');
  expect(widget.status?.observedGeneration).toBe(widget.metadata?.generation);
});

it('reconciles a changed Widget again (its new generation)', async () => {
  const api = await start();
  const body = { apiVersion: 'demo.kcpt.dev/v1alpha1', kind: 'Widget', metadata: { name: 'resized' }, spec: { size: 1 } };
  await api.createNamespacedCustomObject({ ...widgets, body });
  const first = await waitFor(async () => {
    const w = (await api.getNamespacedCustomObject({ ...widgets, name: 'resized' })) as Widget;
    return readyCondition(w)?.status === 'True' && w;
  });
  await api.replaceNamespacedCustomObject({ ...widgets, name: 'resized', body: { ...first, spec: { size: 7 } } });
  await waitFor(async () => {
    const w = (await api.getNamespacedCustomObject({ ...widgets, name: 'resized' })) as Widget;
    expect(w.status?.observedGeneration).toBe(2);
    expect(readyCondition(w)?.message).toBe('a plain widget of size 7 is ready');
  });
});

it('has a workspace of its own: no Widget from the other tests is here', async () => {
  const api = await start();
  const list = (await api.listNamespacedCustomObject(widgets)) as { items: Widget[] };
  expect(list.items).toEqual([]);
});
