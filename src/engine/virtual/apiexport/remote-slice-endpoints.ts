/**
 * This shard's URL in APIExportEndpointSlices that live on other shards (kcp's per-shard endpoint-slice URL
 * controller): while this shard hosts at least one Bound APIBinding to the export a slice names, the slice lists
 * `<this shard's virtualWorkspaceURL>/services/apiexport/<export cluster>/<export>`; with the last binding gone the
 * URL goes. The slice is written where it lives (its status, read fresh, other shards' URLs kept), with the
 * shard-to-shard identity; a conflict with another shard's write is retried from the queue.
 *
 * Slices are seen through the replica of the other shards' sharing objects, so which ones name an export costs a
 * scan of those few objects, never of workspaces.
 */
import { defineController, type Controller } from '../../controllers/controller.js';
import { exportClusterOf } from '../../apis/export-reference.js';
import type { KubeObject } from '../../registry/types.js';
import type { SharingReplica } from '../../shards/sharing-replica.js';
import { statusMessage, type ShardClient } from '../../shards/shard-client.js';
import { shardEndpointUrl, withShardEndpoint, type SliceEndpoint } from './endpoint-slice-controller.js';
import type { ExportBindingsReader } from './export-bindings.js';

const SLICES = 'apiexportendpointslices';

export interface RemoteSliceEndpointsDeps {
  replica: Pick<SharingReplica, 'all' | 'get' | 'onChange' | 'baseURLOf'>;
  bindings: Pick<ExportBindingsReader, 'hasBindings' | 'onChange'>;
  resolvePath(path: string): string | undefined;
  /** This shard's Shard spec.virtualWorkspaceURL. */
  virtualWorkspaceUrl(): string;
  client(): ShardClient;
  onError?(controller: string, key: string, err: unknown): void;
}

export function remoteSliceEndpointsController(deps: RemoteSliceEndpointsDeps): Controller {
  return defineController({
    name: 'remote-apiexportendpointslice',
    watches(feed) {
      const exportChanged = (cluster: string, name: string) => {
        for (const slice of deps.replica.all(SLICES)) {
          const target = exportOf(deps, slice.cluster, slice.object);
          if (target?.cluster === cluster && target.name === name) feed.add(`${slice.cluster}/${slice.name}`);
        }
      };
      feed.listen(deps.replica.onChange.bind(deps.replica), (kind, cluster, name, now) => {
        if (kind === SLICES && now) feed.add(`${cluster}/${name}`);
        if (kind === 'apiexports') exportChanged(cluster, name);
      });
      feed.listen(deps.bindings.onChange.bind(deps.bindings), exportChanged);
    },
    reconcile: (key) => publishShardEndpoint(deps, key),
  });
}

function exportOf(deps: RemoteSliceEndpointsDeps, sliceCluster: string, slice: KubeObject): { cluster: string; name: string } | undefined {
  const ref = (slice.spec as { export?: { path?: string; name?: string } } | undefined)?.export;
  const cluster = ref?.name ? exportClusterOf(ref.path, sliceCluster, deps.resolvePath) : undefined;
  return cluster && ref?.name ? { cluster, name: ref.name } : undefined;
}

/** key = `<cluster>/<name>` of a slice on another shard: this shard's URL added or removed there. */
async function publishShardEndpoint(deps: RemoteSliceEndpointsDeps, key: string) {
  const [cluster, name] = key.split('/') as [string, string];
  const replicated = deps.replica.get(SLICES, cluster, name);
  if (!replicated) return undefined;
  const target = exportOf(deps, cluster, replicated.object);
  if (!target) return undefined;
  const url = shardEndpointUrl(deps.virtualWorkspaceUrl(), target);
  const present = deps.bindings.hasBindings(target.cluster, target.name);
  if (hasEndpoint(replicated.object, url) === present) return undefined;
  const base = deps.replica.baseURLOf(replicated.shard);
  if (!base) return undefined;
  const sliceUrl = `${base}/clusters/${cluster}/apis/apis.kcp.io/v1alpha1/apiexportendpointslices/${encodeURIComponent(name)}`;
  const client = deps.client();
  const got = await client.call<KubeObject>('GET', sliceUrl);
  if (got.status === 404) return undefined;
  if (got.status !== 200) throw new Error(`reading APIExportEndpointSlice ${cluster}:${name} on shard ${replicated.shard}: ${statusMessage(got)}`);
  const slice = got.body;
  const before = endpointsOf(slice);
  const endpoints = withShardEndpoint(before, url, present);
  if (JSON.stringify(endpoints) === JSON.stringify(before)) return undefined;
  const status = { ...((slice.status as object | undefined) ?? {}), endpoints };
  if (endpoints.length === 0) delete (status as { endpoints?: unknown }).endpoints;
  const put = await client.call('PUT', `${sliceUrl}/status`, { ...slice, status });
  // Another shard wrote the slice in between: read it again.
  if (put.status === 409) return { requeueAfterMs: 50 };
  if (put.status !== 200) throw new Error(`writing APIExportEndpointSlice ${cluster}:${name} on shard ${replicated.shard}: ${statusMessage(put)}`);
  return undefined;
}

function endpointsOf(slice: KubeObject): SliceEndpoint[] {
  return (slice.status as { endpoints?: SliceEndpoint[] } | undefined)?.endpoints ?? [];
}

function hasEndpoint(slice: KubeObject, url: string): boolean {
  return endpointsOf(slice).some((e) => e?.url === url);
}
