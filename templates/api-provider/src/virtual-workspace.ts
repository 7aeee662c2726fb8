/**
 * The APIExport virtual workspace: a URL under which a provider sees the objects of its API in every workspace
 * that bound it (a sharded deployment serves one per shard hosting bindings, all listed in the export's
 * APIExportEndpointSlice). `<url>/clusters/*` lists and watches across all consumers (each object annotated `kcp.io/cluster`
 * with the consumer's logical cluster); `<url>/clusters/<cluster>` reads and writes in one consumer.
 */
import * as k8s from '@kubernetes/client-node';

export const clusterAnnotation = 'kcp.io/cluster';

/** A copy of the provider's kubeconfig (same user and CA) whose current context points at `server`. */
export function kubeConfigAt(base: k8s.KubeConfig, server: string): k8s.KubeConfig {
  const current = base.getCurrentCluster();
  if (!current) throw new Error('the kubeconfig has no current cluster: run kcpt start and use its admin.kubeconfig, or kcpt ws into the provider workspace');
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ ...current, name: 'apiexport', server }],
    users: base.users,
    contexts: [{ name: 'apiexport', cluster: 'apiexport', user: base.getCurrentUser()?.name ?? '' }],
    currentContext: 'apiexport',
  });
  return kc;
}

type CustomObjects = k8s.CustomObjectsApi;

/** The URLs the export's APIExportEndpointSlice lists: one per shard that hosts bindings (one on a single server). */
export async function endpointUrls(objects: CustomObjects, exportName: string): Promise<string[]> {
  const slice = (await objects
    .getClusterCustomObject({ group: 'apis.kcp.io', version: 'v1alpha1', plural: 'apiexportendpointslices', name: exportName })
    .catch(() => undefined)) as { status?: { endpoints?: { url: string }[] } } | undefined;
  return (slice?.status?.endpoints ?? []).map((e) => e.url);
}

/**
 * The export's virtual workspace URL, asked from the provider workspace the kubeconfig points at: the first URL
 * listed in the export's APIExportEndpointSlice, or, before any workspace has bound the export (kcp lists none then),
 * the one the server will serve: `<server>/services/apiexport/<export's logical cluster>/<export>`.
 */
export async function findVirtualWorkspaceUrl(provider: k8s.KubeConfig, exportName: string): Promise<string> {
  const objects = provider.makeApiClient(k8s.CustomObjectsApi);
  const listed = (await endpointUrls(objects, exportName))[0];
  if (listed) return listed;
  const exported = (await objects.getClusterCustomObject({ group: 'apis.kcp.io', version: 'v1alpha2', plural: 'apiexports', name: exportName })) as {
    metadata: { annotations?: Record<string, string> };
  };
  const cluster = exported.metadata.annotations?.[clusterAnnotation];
  const server = provider.getCurrentCluster()?.server ?? '';
  const base = server.includes('/clusters/') ? server.slice(0, server.indexOf('/clusters/')) : server;
  if (!cluster) throw new Error(`APIExport ${exportName} has no ${clusterAnnotation} annotation; pass the virtual workspace URL with --url`);
  return `${base}/services/apiexport/${cluster}/${exportName}`;
}
