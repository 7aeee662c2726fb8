/**
 * The controller under test in the kcpt/testing suite, written as a user would with @kubernetes/client-node: it
 * watches Widgets in one namespace and, for each Widget not yet ready, creates a ConfigMap `<name>-config` holding
 * its size (owned by the Widget) and then sets `status.ready: true`.
 */
import * as k8s from '@kubernetes/client-node';

export interface Widget extends k8s.KubernetesObject {
  spec: { size: number };
  status?: { ready?: boolean };
}

const widgets = { group: 'example.com', version: 'v1', plural: 'widgets' };

export interface RunningController {
  stop(): void;
}

export async function startWidgetController(kc: k8s.KubeConfig, namespace = 'default'): Promise<RunningController> {
  const objects = kc.makeApiClient(k8s.CustomObjectsApi);
  const core = kc.makeApiClient(k8s.CoreV1Api);

  async function reconcile(widget: Widget): Promise<void> {
    if (widget.status?.ready) return;
    const name = widget.metadata!.name!;
    const configMap: k8s.V1ConfigMap = {
      metadata: {
        name: `${name}-config`,
        ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Widget', name, uid: widget.metadata!.uid!, controller: true }],
      },
      data: { size: String(widget.spec.size) },
    };
    await core.createNamespacedConfigMap({ namespace, body: configMap }).catch((err: { code?: number }) => {
      if (err.code !== 409) throw err;
    });
    await objects.replaceNamespacedCustomObjectStatus({ ...widgets, namespace, name, body: { ...widget, status: { ready: true } } });
  }

  const watch = new k8s.Watch(kc);
  const request = await watch.watch(
    `/apis/example.com/v1/namespaces/${namespace}/widgets`,
    {},
    (type: string, widget: Widget) => {
      // A 409 means the Widget changed meanwhile; the event for that change reconciles it again.
      if (type === 'ADDED' || type === 'MODIFIED') reconcile(widget).catch(() => {});
    },
    () => {},
  );
  return { stop: () => request.abort() };
}
