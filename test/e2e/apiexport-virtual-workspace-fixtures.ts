/**
 * The world of the APIExport virtual workspace suites, built in an organization of the file's own: a `provider`
 * exporting Widgets (with a status subresource and a configmaps claim), consumers that bind it, and the URLs a
 * provider's controller uses: the virtual workspace of an export on the shard hosting a consumer, and every URL the
 * export's endpoint slice lists (one on one server, one per shard hosting bindings in a sharded cluster).
 */
import type { ClusterKubectl } from '../helpers/kubectl.js';
import { apiBinding, apiExport, resourceSchema } from './apis-fixtures.js';
import { create, createWorkspace, getJson, type Json, type ownOrganization, type TenancyE2E } from './tenancy-fixtures.js';

export const schema = (prefix: string, plural: string, kind: string): Json =>
  resourceSchema({
    name: `${prefix}.${plural}.example.io`,
    group: 'example.io',
    plural,
    kind,
    subresources: { status: {} },
    openAPI: {
      type: 'object',
      properties: {
        spec: { type: 'object', properties: { size: { type: 'integer' } } },
        status: { type: 'object', properties: { ready: { type: 'boolean' } } },
      },
    },
  });

export const apiExportOf = (name: string, plural: string, claims: Json[] = []): Json =>
  apiExport({ name, group: 'example.io', plural, permissionClaims: claims });

export const configmapClaim = { group: '', resource: 'configmaps', verbs: ['get', 'list', 'watch', 'create', 'update'] };
export const accept = (selector: Json = { matchAll: true }) => ({ ...configmapClaim, state: 'Accepted', selector });
export const reject = () => ({ ...configmapClaim, state: 'Rejected', selector: { matchAll: true } });

export const widget = (name: string, size: number): Json => ({
  apiVersion: 'example.io/v1',
  kind: 'Widget',
  metadata: { name, namespace: 'default' },
  spec: { size },
});

export interface Consumer {
  path: string;
  cluster: string;
  /** The Shard hosting its logical cluster. */
  shard: string;
  k: ClusterKubectl;
}

/**
 * The provider and its consumers in `org`: `setUp()` (in a beforeAll) creates the organization, the provider and its
 * `widgets` export; the rest reads and writes as the provider's controller and the consumers do.
 */
export function exportWorld(e2e: TenancyE2E, org: ReturnType<typeof ownOrganization>) {
  const providerPath = org.child('provider');
  const provider = e2e.at(providerPath);
  let providerCluster: string | undefined;
  /** Shard → where it serves virtual workspaces. */
  const shardVirtualWorkspaces = new Map<string, string>();

  const clusterOfProvider = () => {
    if (!providerCluster) throw new Error('the provider does not exist yet (see the beforeAll error)');
    return providerCluster;
  };
  /** The URL of an export's virtual workspace on the shard hosting `c`. */
  const vwUrlOf = (c: Consumer, exportName = 'widgets') =>
    `${shardVirtualWorkspaces.get(c.shard)}/services/apiexport/${clusterOfProvider()}/${exportName}`;
  const endpointsOf = async (slice: string): Promise<string[]> =>
    (((await getJson(provider, ['apiexportendpointslice', slice])).status?.endpoints as Json[] | undefined) ?? []).map((e) => e.url as string).sort();

  return {
    provider,
    providerPath,
    get providerCluster() {
      return clusterOfProvider();
    },
    shardVirtualWorkspaces,

    async setUp() {
      for (const shard of (await getJson(e2e.at('root'), ['shards'])).items as Json[]) {
        shardVirtualWorkspaces.set(shard.metadata.name, shard.spec.virtualWorkspaceURL ?? shard.spec.baseURL);
      }
      await org.create();
      providerCluster = (await createWorkspace(e2e.at(org.path), 'provider')).spec.cluster as string;
      await create(provider, schema('v1', 'widgets', 'Widget'));
      await create(provider, apiExportOf('widgets', 'widgets', [configmapClaim]));
    },

    /** A workspace of the organization, as a consumer of the provider's exports. */
    async consumer(name: string): Promise<Consumer> {
      const ws = await createWorkspace(e2e.at(org.path), name);
      const path = org.child(name);
      return { path, cluster: ws.spec.cluster as string, shard: ws.metadata.annotations['core.kcp.io/shard'] as string, k: e2e.at(path) };
    },

    /** Binds the provider's export `exportName` in `c` (with the claims' states) and waits until it is bound. */
    async bind(c: Consumer, exportName: string, claims: Json[] = []): Promise<void> {
      await create(c.k, apiBinding(exportName, exportName, { exportPath: providerPath, permissionClaims: claims }));
      await c.k(['wait', '--for=jsonpath={.status.phase}=Bound', `apibinding/${exportName}`, '--timeout=60s']);
    },

    endpointsOf,
    vwUrlOf,
    /** kubectl at one consumer through the virtual workspace (on its shard). */
    at: (c: Consumer): ClusterKubectl => e2e.atUrl(`${vwUrlOf(c)}/clusters/${c.cluster}`),
    /** The items of `kubectl get <args>` at the `*` wildcard of every URL the export's slice lists. */
    async everywhere(args: string[], slice = 'widgets'): Promise<Json[]> {
      const urls = await endpointsOf(slice);
      return (await Promise.all(urls.map((url) => getJson(e2e.atUrl(`${url}/clusters/*`), args)))).flatMap((l) => l.items as Json[]);
    },
    /** The endpoint URLs the slice of an export bound by `consumers` lists: one per shard hosting them. */
    expectedEndpoints: (consumers: Consumer[], exportName = 'widgets') => [...new Set(consumers.map((c) => vwUrlOf(c, exportName)))].sort(),
  };
}
