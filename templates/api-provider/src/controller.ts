/**
 * A multi-workspace controller: one informer on the export's virtual workspace at `/clusters/*` sees the Widgets of
 * every consumer workspace (including workspaces that bind later, without a restart) and writes each Widget's status
 * back into the workspace it lives in.
 *
 *   npm start                      # export "widgets" of the workspace your kubeconfig points at
 *   npm start -- --export widgets --url https://…/services/apiexport/<cluster>/widgets
 *
 * KUBECONFIG (or ~/.kube/config) must point at the provider workspace, as a user allowed to use the export's
 * content (the workspace's admin is).
 */
import { parseArgs } from 'node:util';
import * as k8s from '@kubernetes/client-node';
import { desiredStatus, type Widget } from './reconcile.js';
import { clusterAnnotation, findVirtualWorkspaceUrl, kubeConfigAt } from './virtual-workspace.js';

const resource = { group: 'demo.kcpt.dev', version: 'v1alpha1', plural: 'widgets' };

const { values } = parseArgs({ options: { export: { type: 'string', default: 'widgets' }, url: { type: 'string' } } });
const provider = new k8s.KubeConfig();
provider.loadFromDefault();
const url = values.url ?? (await findVirtualWorkspaceUrl(provider, values.export!));
console.log(`watching ${resource.plural}.${resource.group} in every workspace bound to ${url}`);

const everywhere = kubeConfigAt(provider, `${url}/clusters/*`);
const listAll = everywhere.makeApiClient(k8s.CustomObjectsApi);
const informer = k8s.makeInformer<Widget & k8s.KubernetesObject>(
  everywhere,
  `/apis/${resource.group}/${resource.version}/${resource.plural}`,
  () => listAll.listClusterCustomObject(resource) as Promise<k8s.KubernetesListObject<Widget & k8s.KubernetesObject>>,
);

/** One client per consumer workspace, for the writes (the wildcard URL is read-only). */
const clients = new Map<string, k8s.CustomObjectsApi>();
const clientFor = (cluster: string) => {
  let api = clients.get(cluster);
  if (!api) {
    api = kubeConfigAt(provider, `${url}/clusters/${cluster}`).makeApiClient(k8s.CustomObjectsApi);
    clients.set(cluster, api);
  }
  return api;
};

async function reconcile(widget: Widget): Promise<void> {
  const status = desiredStatus(widget, new Date());
  const cluster = widget.metadata?.annotations?.[clusterAnnotation];
  if (!status || !cluster) return;
  const { name, namespace } = widget.metadata ?? {};
  try {
    await clientFor(cluster).replaceNamespacedCustomObjectStatus({ ...resource, namespace: namespace!, name: name!, body: { ...widget, status } });
    console.log(`reconciled ${cluster}/${namespace}/${name} (generation ${status.observedGeneration})`);
  } catch (err) {
    // 409: the Widget changed since the informer saw it; the update event for that change reconciles it again.
    if ((err as { code?: number }).code !== 409) console.error(`reconciling ${cluster}/${namespace}/${name}: ${String(err)}`);
  }
}

informer.on('add', (w) => void reconcile(w));
informer.on('update', (w) => void reconcile(w));
informer.on('error', (err) => {
  if ((err as Error).name === 'AbortError') return;
  console.error(`watch failed, restarting in 1s: ${String(err)}`);
  setTimeout(() => void informer.start(), 1000);
});
await informer.start();

const stop = async () => {
  await informer.stop();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
