/**
 * kcpt/testing used as its users use it: one control plane for the file, a fresh workspace per test with the
 * Widget CRD installed from a file, a controller started against that workspace, and assertions with waitFor.
 * 200 tests, each fully isolated from the others by its workspace.
 */
import * as k8s from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { useControlPlane, waitFor } from 'kcpt/testing/vitest';
import { startWidgetController, type RunningController, type Widget } from './widget-controller.js';

const crdFile = new URL('./widget-crd.yaml', import.meta.url).pathname;
const kcp = useControlPlane({ workspace: { crds: [crdFile] } });
const widgets = { group: 'example.com', version: 'v1', plural: 'widgets', namespace: 'default' };

let controller: RunningController | undefined;
afterEach(() => controller?.stop());

describe('a Widget controller tested in a workspace per test', () => {
  for (let i = 1; i <= 200; i++) {
    it(`reconciles widget ${i} (size ${i})`, async () => {
      const kc = await kcp.workspace.kubeConfig();
      controller = await startWidgetController(kc);
      const objects = kc.makeApiClient(k8s.CustomObjectsApi);
      const core = kc.makeApiClient(k8s.CoreV1Api);

      await objects.createNamespacedCustomObject({
        ...widgets,
        body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: `w${i}` }, spec: { size: i } },
      });

      const ready = await waitFor(async () => {
        const w = (await objects.getNamespacedCustomObject({ ...widgets, name: `w${i}` })) as Widget;
        expect(w.status?.ready).toBe(true);
        return w;
      });
      expect(ready.spec.size).toBe(i);
      const config = await core.readNamespacedConfigMap({ namespace: 'default', name: `w${i}-config` });
      expect(config.data).toEqual({ size: String(i) });
      expect(config.metadata?.ownerReferences?.[0]?.uid).toBe(ready.metadata?.uid);
      // The workspace is this test's alone: exactly one Widget, whatever the other 199 tests created.
      const list = (await objects.listNamespacedCustomObject(widgets)) as { items: Widget[] };
      expect(list.items.map((w) => w.metadata?.name)).toEqual([`w${i}`]);
    });
  }
});
