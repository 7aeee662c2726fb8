/** Checks that a deleted workspace left nothing behind, for the workspace-deletion files. */
import { expectError } from '../helpers/suite.js';
import type { Json, TenancyE2E } from './tenancy-fixtures.js';

export function deletionChecks(e2e: TenancyE2E) {
  const k = e2e.at('root');
  /** What the wildcard still holds of `clusters`, per resource, as the shard admin sees it. */
  async function leftovers(clusters: string[]): Promise<Record<string, string[]>> {
    const out: Record<string, string[]> = {};
    for (const resource of ['workspaces', 'logicalclusters', 'namespaces', 'configmaps', 'secrets', 'clusterrolebindings']) {
      const list = JSON.parse((await e2e.asShardAdmin('*')(['get', resource, '-A', '-o', 'json'])).stdout) as { items: Json[] };
      const found = list.items
        .filter((o) => clusters.includes(o.metadata.annotations?.['kcp.io/cluster']))
        .map((o) => `${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`);
      if (found.length > 0) out[resource] = found;
    }
    return out;
  }

  async function expectPathGone(path: string): Promise<void> {
    const result = await k(['get', '--raw', `/clusters/${path}/api/v1/namespaces`], { reject: false });
    expectError(result, `Error from server (NotFound): workspaces.tenancy.kcp.io "${path}" not found`);
  }

  return { leftovers, expectPathGone };
}
