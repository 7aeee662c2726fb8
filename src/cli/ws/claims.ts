/**
 * After a switch, kcp's plugin warns about APIBindings in the new workspace whose permission claims were exported
 * but not acknowledged. Errors are reported as a line, never fatal; where the user may not list bindings (403) or
 * the server does not serve them (404) there is nothing to say.
 */
import { ApiError } from '../../client/errors.js';
import type { KubeClient } from '../../client/http-client.js';
import { parseClusterUrl } from '../../client/workspace-path.js';

interface Claim {
  group?: string;
  resource?: string;
  identityHash?: string;
  verbs?: string[];
  state?: string;
}

interface APIBinding {
  metadata: { name: string };
  spec?: { permissionClaims?: Claim[] };
  status?: { exportPermissionClaims?: Claim[] };
}

function claimName(c: Claim): string {
  const gr = c.group ? `${c.resource}.${c.group}` : (c.resource ?? '');
  return c.identityHash ? `${gr}:${c.identityHash}` : gr;
}

function sameClaim(a: Claim, b: Claim): boolean {
  return (a.group ?? '') === (b.group ?? '') && a.resource === b.resource && (a.identityHash ?? '') === (b.identityHash ?? '');
}

/** The warning lines for one list of bindings (kcp's findUnresolvedPermissionClaims). */
export function unresolvedClaimWarnings(bindings: APIBinding[]): string[] {
  const lines: string[] = [];
  for (const binding of bindings) {
    for (const exported of binding.status?.exportPermissionClaims ?? []) {
      const specClaim = (binding.spec?.permissionClaims ?? []).find((c) => sameClaim(c, exported));
      const name = claimName(exported);
      if (!specClaim) {
        lines.push(`Warning: claim for ${name} exported but not specified on APIBinding ${binding.metadata.name}\nAdd this claim to the APIBinding's Spec.\n`);
      }
      if (!specClaim || (specClaim.state !== 'Accepted' && specClaim.state !== 'Rejected')) {
        lines.push(`Warning: claim for ${name} specified on APIBinding ${binding.metadata.name} but not accepted or rejected.\n`);
      }
      const expected = new Set(exported.verbs ?? []);
      const actual = new Set(specClaim?.verbs ?? []);
      const match = expected.size === actual.size && [...expected].every((v) => actual.has(v));
      if (!match) {
        lines.push(
          `Warning: allowed verbs (${[...actual].join(',')}) on claim for ${name} on APIBinding ${binding.metadata.name} do not match expected verbs (${[...expected].join(',')}).\n`,
        );
      }
    }
  }
  return lines;
}

/** Lists the bindings at a workspace URL and returns the lines to print on stderr; never rejects. */
export async function checkPermissionClaims(client: KubeClient, url: string): Promise<string[]> {
  const parsed = parseClusterUrl(url);
  if (!parsed) return [`error checking APIBindings: current cluster URL ${url} is not pointing to a workspace\n`];
  try {
    const list = await client.get<{ items?: APIBinding[] }>(`/clusters/${parsed.path}/apis/apis.kcp.io/v1alpha2/apibindings`);
    return unresolvedClaimWarnings(list.items ?? []);
  } catch (err) {
    if (err instanceof ApiError && (err.forbidden || err.notFound)) return [];
    return [`error checking APIBindings: ${(err as Error).message}\n`];
  }
}
