/**
 * The same reconcile decision (reconcile.ts) applied to the Widgets of one workspace: a watch on that workspace
 * instead of the export's virtual workspace. This is what the tests run against a fresh kcpt workspace with the CRD
 * installed (test/widgets.test.ts); it also serves a single-tenant setup where the API is a plain CRD.
 */
import * as k8s from '@kubernetes/client-node';
import { desiredStatus, type Widget } from './reconcile.js';

const resource = { group: 'demo.kcpt.dev', version: 'v1alpha1', plural: 'widgets' };

export interface RunningReconciler {
  stop(): void;
}

/** Starts reconciling every Widget in the workspace `kc` points at; resolves once the watch is open. */
export async function reconcileWidgetsIn(kc: k8s.KubeConfig): Promise<RunningReconciler> {
  const api = kc.makeApiClient(k8s.CustomObjectsApi);
  const reconcile = async (widget: Widget) => {
    const status = desiredStatus(widget, new Date());
    if (!status) return;
    const { name, namespace } = widget.metadata ?? {};
    await api.replaceNamespacedCustomObjectStatus({ ...resource, namespace: namespace!, name: name!, body: { ...widget, status } }).catch((err: { code?: number }) => {
      // 409: the Widget changed since this event; the event for that change reconciles it again.
      if (err.code !== 409) console.error(`reconciling ${namespace}/${name}: ${String(err)}`);
    });
  };
  const request = await new k8s.Watch(kc).watch(
    `/apis/${resource.group}/${resource.version}/${resource.plural}`,
    {},
    (type: string, widget: Widget) => {
      if (type === 'ADDED' || type === 'MODIFIED') void reconcile(widget);
    },
    () => {},
  );
  return { stop: () => request.abort() };
}
