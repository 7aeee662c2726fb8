/**
 * A multi-workspace controller: one informer per URL of the export's virtual workspace, at `/clusters/*`, sees the
 * Widgets of every consumer workspace (including workspaces that bind later, without a restart) and writes each
 * Widget's status back into the workspace it lives in. A sharded deployment serves the virtual workspace once per
 * shard that hosts bindings: the export's APIExportEndpointSlice lists those URLs, and this controller follows it,
 * starting an informer for each URL that appears.
 *
 *   npm start                      # export "widgets" of the workspace your kubeconfig points at
 *   npm start -- --export widgets --url https://…/services/apiexport/<cluster>/widgets   # that one URL only
 *
 * KUBECONFIG (or ~/.kube/config) must point at the provider workspace, as a user allowed to use the export's
 * content (the workspace's admin is).
 */
import { parseArgs } from 'node:util';
import * as k8s from '@kubernetes/client-node';
import { desiredStatus, type Widget } from './reconcile.js';
import { clusterAnnotation, endpointUrls, findVirtualWorkspaceUrl, kubeConfigAt } from './virtual-workspace.js';

const resource = { group: 'demo.kcpt.dev', version: 'v1alpha1', plural: 'widgets' };
/** How often the endpoint slice is read again for URLs that appeared or went. */
const SLICE_POLL_MS = 2000;

const { values } = parseArgs({ options: { export: { type: 'string', default: 'widgets' }, url: { type: 'string' } } });
const exportName = values.export!;
const provider = new k8s.KubeConfig();
provider.loadFromDefault();

/** One client per consumer workspace and virtual workspace URL, for the writes (the wildcard URL is read-only). */
const clients = new Map<string, k8s.CustomObjectsApi>();
const clientFor = (url: string, cluster: string) => {
  let api = clients.get(`${url} ${cluster}`);
  if (!api) {
    api = kubeConfigAt(provider, `${url}/clusters/${cluster}`).makeApiClient(k8s.CustomObjectsApi);
    clients.set(`${url} ${cluster}`, api);
  }
  return api;
};

async function reconcile(url: string, widget: Widget): Promise<void> {
  const status = desiredStatus(widget, new Date());
  const cluster = widget.metadata?.annotations?.[clusterAnnotation];
  if (!status || !cluster) return;
  const { name, namespace } = widget.metadata ?? {};
  try {
    await clientFor(url, cluster).replaceNamespacedCustomObjectStatus({ ...resource, namespace: namespace!, name: name!, body: { ...widget, status } });
    console.log(`reconciled ${cluster}/${namespace}/${name} (generation ${status.observedGeneration})`);
  } catch (err) {
    // 409: the Widget changed since the informer saw it; the update event for that change reconciles it again.
    if ((err as { code?: number }).code !== 409) console.error(`reconciling ${cluster}/${namespace}/${name}: ${String(err)}`);
  }
}

/** Starts an informer on every consumer's Widgets behind one virtual workspace URL. */
async function follow(url: string): Promise<k8s.Informer<Widget & k8s.KubernetesObject>> {
  console.log(`watching ${resource.plural}.${resource.group} in every workspace bound to ${url}`);
  const everywhere = kubeConfigAt(provider, `${url}/clusters/*`);
  const listAll = everywhere.makeApiClient(k8s.CustomObjectsApi);
  const informer = k8s.makeInformer<Widget & k8s.KubernetesObject>(
    everywhere,
    `/apis/${resource.group}/${resource.version}/${resource.plural}`,
    () => listAll.listClusterCustomObject(resource) as Promise<k8s.KubernetesListObject<Widget & k8s.KubernetesObject>>,
  );
  informer.on('add', (w) => void reconcile(url, w));
  informer.on('update', (w) => void reconcile(url, w));
  informer.on('error', (err) => {
    if ((err as Error).name === 'AbortError' || !informers.has(url)) return;
    console.error(`watch of ${url} failed, restarting in 1s: ${String(err)}`);
    setTimeout(() => {
      if (informers.has(url)) void informer.start();
    }, 1000);
  });
  await informer.start();
  return informer;
}

const informers = new Map<string, Promise<k8s.Informer<Widget & k8s.KubernetesObject>>>();

/** Follows exactly `urls`: informers for new ones, none for those gone. */
async function followOnly(urls: string[]): Promise<void> {
  for (const url of urls) if (!informers.has(url)) informers.set(url, follow(url));
  for (const [url, informer] of informers) {
    if (urls.includes(url)) continue;
    informers.delete(url);
    void informer.then((i) => i.stop()).catch(() => undefined);
  }
  await Promise.all(informers.values());
}

let poll: NodeJS.Timeout | undefined;
if (values.url) {
  await followOnly([values.url]);
} else {
  // Before any workspace binds, the slice lists nothing: the URL the export's own shard serves stands in.
  const objects = provider.makeApiClient(k8s.CustomObjectsApi);
  const urls = async () => {
    const listed = await endpointUrls(objects, exportName);
    return listed.length > 0 ? listed : [await findVirtualWorkspaceUrl(provider, exportName)];
  };
  await followOnly(await urls());
  const again = () => {
    poll = setTimeout(() => {
      urls()
        .then(followOnly)
        .catch((err: unknown) => console.error(`reading the endpoint slice of ${exportName}: ${String(err)}`))
        .finally(again);
    }, SLICE_POLL_MS);
  };
  again();
}

const stop = async () => {
  clearTimeout(poll);
  const running = [...informers.values()];
  informers.clear();
  await Promise.all(running.map(async (i) => (await i).stop()));
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
