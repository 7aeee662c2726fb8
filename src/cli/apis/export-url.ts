/**
 * Where a provider's controller reaches an export's virtual workspace. kcp lists the URL in the export's
 * APIExportEndpointSlice only once a workspace has bound it (a fresh export's slice is empty, as in kcp,
 * the chicken-and-egg that multicluster-provider#61 is about), so before that the URL is computed the way the
 * server builds it: `<server>/services/apiexport/<export's logical cluster>/<export>`.
 */
import { CliError } from '../common/errors.js';
import type { KubeClient } from '../../client/http-client.js';
import { clusterOf, computedVirtualWorkspaceUrl, getEndpointSlice, type APIExport } from '../../client/apis-api.js';

export async function exportVirtualWorkspaceUrl(client: KubeClient, path: string, exported: APIExport): Promise<string> {
  const slice = await getEndpointSlice(client, path, exported.metadata.name);
  const listed = slice?.status?.endpoints?.[0]?.url;
  if (listed) return listed;
  return computedVirtualWorkspaceUrl(client.baseUrl, await exportCluster(client, path, exported), exported.metadata.name);
}

/** The logical cluster name of the export's workspace: its `kcp.io/cluster` annotation, else the workspace's LogicalCluster. */
export async function exportCluster(client: KubeClient, path: string, exported: APIExport): Promise<string> {
  const annotated = clusterOf(exported);
  if (annotated) return annotated;
  const lc = await client.get<{ metadata: { name: string; annotations?: Record<string, string> }; status?: { URL?: string } }>(
    `/clusters/${path}/apis/core.kcp.io/v1alpha1/logicalclusters/cluster`,
  );
  const fromUrl = lc.status?.URL?.split('/clusters/')[1];
  const name = clusterOf(lc) ?? fromUrl;
  if (!name) throw new CliError(`cannot tell the logical cluster of workspace ${path}`);
  return name;
}
