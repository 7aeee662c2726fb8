/**
 * `kcpt bind <path>:<export>` (and `kubectl kcp bind apiexport …`): kcp's bind plugin. Creates an APIBinding in the
 * current workspace (the server's preferred version), with the claims the flags accept or reject (recorded as the
 * export makes them: its verbs and default selector, where kcp's plugin writes `*` and matchAll), then waits, by
 * watching the binding, until its phase is Bound (`--timeout`, 30 s). Messages are kcp's; on a timeout the binding's
 * failing conditions are added, so the reason (export not found, naming conflict, …) is on the same line.
 */
import { ApiError, CliError } from '../common/errors.js';
import type { Io } from '../common/io.js';
import { printData, type OutputFormat } from '../common/output.js';
import { withProgress } from '../common/progress.js';
import type { Session } from '../common/session.js';
import { bindingsUrl, createBinding, getExport, preferredBindingVersion, type APIBinding, type V1alpha1Claim } from './apis-api.js';
import { claimsAsExported, type AcceptablePermissionClaim, type ClaimChoice, type ExportReference } from './bind-args.js';
import { currentPath } from './export.js';

export interface BindOptions {
  reference: ExportReference;
  name?: string;
  timeoutMs: number;
  claims: ClaimChoice[];
  acceptAll: boolean;
  rejectAll: boolean;
  output?: OutputFormat;
}

export async function runBind(session: Session, io: Io, opts: BindOptions): Promise<void> {
  const { client, config } = session;
  const path = currentPath(config.connection.server);
  const version = await preferredBindingVersion(client, path);
  if (version !== 'v1alpha2' && version !== 'v1alpha1') throw new CliError(`${version} is not supported by this plugin`);

  // A claim is answered as the export makes it now: its verbs, identity and default selector.
  let claims: AcceptablePermissionClaim[] = [];
  if (opts.acceptAll || opts.rejectAll || opts.claims.length > 0) {
    let exported;
    try {
      exported = await getExport(client, opts.reference.path, opts.reference.name);
    } catch (err) {
      throw new CliError(`failed to get APIExport "${opts.reference.name}": ${(err as Error).message}`);
    }
    const all = opts.acceptAll ? { all: 'Accepted' as const } : opts.rejectAll ? { all: 'Rejected' as const } : undefined;
    claims = claimsAsExported(exported.spec?.permissionClaims ?? [], all ?? opts.claims, opts.reference.name);
  }

  const name = opts.name || opts.reference.name;
  const body: APIBinding = {
    kind: 'APIBinding',
    metadata: { name },
    spec: {
      reference: { export: { path: opts.reference.path, name: opts.reference.name } },
      ...(claims.length > 0 ? { permissionClaims: version === 'v1alpha2' ? claims : claims.map(v1alpha1Claim) } : {}),
    },
  };
  let binding: APIBinding;
  try {
    binding = await createBinding(client, path, body, version);
  } catch (err) {
    throw new CliError(`failed to create APIBinding: ${(err as Error).message}`);
  }
  const say = (line: string) => (opts.output ? io.err(line) : io.out(line));
  say(`apibinding ${name} created. Waiting to successfully bind ...\n`);

  if (binding.status?.phase !== 'Bound') {
    binding = await withProgress(io, `Waiting for apibinding ${name} to bind`, () => waitForBound(session, path, version, binding, opts.timeoutMs));
  }
  say(`${name} created and bound.\n`);
  if (opts.output) await printData(io, opts.output, binding);
}

/** Watches the binding from the revision it was created at until phase Bound; re-watches if the server ends a watch early. */
async function waitForBound(session: Session, path: string, version: string, created: APIBinding, timeoutMs: number): Promise<APIBinding> {
  const name = created.metadata.name;
  const deadline = Date.now() + timeoutMs;
  let latest = created;
  let deleted = false;
  const signal = AbortSignal.timeout(timeoutMs);
  while (Date.now() < deadline && !signal.aborted) {
    let bound = false;
    try {
      const events = session.client.watch<APIBinding>(bindingsUrl(path, version), {
        query: { fieldSelector: `metadata.name=${name}`, resourceVersion: latest.metadata.resourceVersion, allowWatchBookmarks: true },
        signal,
      });
      for await (const event of events) {
        if (event.type === 'BOOKMARK') {
          latest = { ...latest, metadata: { ...latest.metadata, resourceVersion: event.object.metadata.resourceVersion } };
          continue;
        }
        latest = event.object;
        deleted = event.type === 'DELETED';
        bound = latest.status?.phase === 'Bound';
        if (deleted || bound) break;
      }
    } catch (err) {
      if (signal.aborted) break;
      // 410 Gone: the revision was compacted; start again from the binding as it is now.
      if (!(err instanceof ApiError && err.status === 410)) throw new CliError(`could not bind ${name}: ${(err as Error).message}`);
      latest = await session.client.get<APIBinding>(`${bindingsUrl(path, version)}/${encodeURIComponent(name)}`);
      bound = latest.status?.phase === 'Bound';
    }
    if (deleted) throw new CliError(`could not bind ${name}: the APIBinding was deleted while waiting for it to bind`);
    if (bound) return latest;
  }
  throw new CliError(`could not bind ${name}: context deadline exceeded${describeBindingState(latest)}`);
}

/** ` (phase Binding; APIExportValid False APIExportNotFound: APIExport root:x|y not found)`: why it is not Bound. */
export function describeBindingState(binding: APIBinding): string {
  const failing = (binding.status?.conditions ?? []).filter((c) => c.status !== 'True' && c.type !== 'Ready');
  const parts = [`phase ${binding.status?.phase || '""'}`];
  for (const c of failing) parts.push(`${c.type} ${c.status}${c.reason ? ` ${c.reason}` : ''}${c.message ? `: ${c.message}` : ''}`);
  return ` (${parts.join('; ')})`;
}

/** v1alpha1's claim shape: `all: true` instead of verbs and a selector. */
function v1alpha1Claim(c: AcceptablePermissionClaim): V1alpha1Claim {
  return { group: c.group, resource: c.resource, ...(c.identityHash ? { identityHash: c.identityHash } : {}), all: true, state: c.state };
}
