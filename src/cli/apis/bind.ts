/**
 * `kcpt bind <path>:<export>` (and `kubectl kcp bind apiexport …`): kcp's bind plugin. Creates an APIBinding in the
 * current workspace (the server's preferred version), then waits, by watching the binding, until its phase is Bound
 * (`--timeout`, 30 s). Messages are kcp's; on a timeout the binding's failing conditions are added, so the reason
 * (export not found, naming conflict, …) is on the same line.
 *
 * Claims the flags accept or reject are answered as the export makes them, read from the binding's own status
 * (`exportPermissionClaims`, what the server shows the consumer; the consumer needs no access to the export's
 * workspace): its verbs, identity hash and default selector, where kcp's plugin writes `*` and matchAll. So the
 * binding is created without claims, and its claims are written once the server has filled that status in.
 */
import { ApiError, CliError } from '../common/errors.js';
import type { Io } from '../common/io.js';
import { printData, type OutputFormat } from '../common/output.js';
import { withProgress } from '../common/progress.js';
import type { Session } from '../common/session.js';
import { bindingsUrl, createBinding, preferredBindingVersion, type APIBinding, type V1alpha1Claim } from './apis-api.js';
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
  const deadline = Date.now() + opts.timeoutMs;

  const name = opts.name || opts.reference.name;
  const body: APIBinding = {
    kind: 'APIBinding',
    metadata: { name },
    spec: { reference: { export: { path: opts.reference.path, name: opts.reference.name } } },
  };
  let binding: APIBinding;
  try {
    binding = await createBinding(client, path, body, version);
  } catch (err) {
    throw new CliError(`failed to create APIBinding: ${(err as Error).message}`);
  }
  const say = (line: string) => (opts.output ? io.err(line) : io.out(line));
  say(`apibinding ${name} created. Waiting to successfully bind ...\n`);

  const all = opts.acceptAll ? { all: 'Accepted' as const } : opts.rejectAll ? { all: 'Rejected' as const } : undefined;
  if (all || opts.claims.length > 0) {
    binding = await withProgress(io, `Waiting for apibinding ${name} to show the export's permission claims`, () =>
      waitFor(session, path, version, binding, deadline, claimsShown),
    );
    let claims: AcceptablePermissionClaim[];
    try {
      claims = claimsAsExported(binding.status?.exportPermissionClaims ?? [], all ?? opts.claims, opts.reference.name);
    } catch (err) {
      // Nothing was accepted: the binding made for these claims goes again.
      await session.client.request('DELETE', `${bindingsUrl(path, version)}/${encodeURIComponent(name)}`).catch(() => undefined);
      throw err;
    }
    binding = await writeClaims(session, path, version, binding, claims);
  }
  if (binding.status?.phase !== 'Bound') {
    binding = await withProgress(io, `Waiting for apibinding ${name} to bind`, () => waitFor(session, path, version, binding, deadline, (b) => b.status?.phase === 'Bound'));
  }
  say(`${name} created and bound.\n`);
  if (opts.output) await printData(io, opts.output, binding);
}

/** The permission-claim controller has looked at the binding against its export (its condition is there). */
function claimsShown(binding: APIBinding): boolean {
  return (binding.status?.conditions ?? []).some((c) => c.type === 'PermissionClaimsValid');
}

/** The binding's spec with `claims`, against the revision read (read again on a conflict: status writes race it). */
async function writeClaims(session: Session, path: string, version: string, current: APIBinding, claims: AcceptablePermissionClaim[]): Promise<APIBinding> {
  const url = `${bindingsUrl(path, version)}/${encodeURIComponent(current.metadata.name)}`;
  let latest = current;
  for (let attempt = 0; ; attempt++) {
    const permissionClaims = version === 'v1alpha2' ? claims : claims.map(v1alpha1Claim);
    try {
      return await session.client.request<APIBinding>('PUT', url, { body: { ...latest, spec: { ...latest.spec, permissionClaims } } });
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 409) || attempt >= 5) throw new CliError(`failed to update APIBinding: ${(err as Error).message}`);
      latest = await session.client.get<APIBinding>(url);
    }
  }
}

/** Watches the binding from the revision it was read at until `done`; re-watches if the server ends a watch early. */
async function waitFor(session: Session, path: string, version: string, from: APIBinding, deadline: number, done: (b: APIBinding) => boolean): Promise<APIBinding> {
  const name = from.metadata.name;
  let latest = from;
  if (done(latest)) return latest;
  let deleted = false;
  const signal = AbortSignal.timeout(Math.max(deadline - Date.now(), 1));
  while (Date.now() < deadline && !signal.aborted) {
    let reached = false;
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
        reached = !deleted && done(latest);
        if (deleted || reached) break;
      }
    } catch (err) {
      if (signal.aborted) break;
      // 410 Gone: the revision was compacted; start again from the binding as it is now.
      if (!(err instanceof ApiError && err.status === 410)) throw new CliError(`could not bind ${name}: ${(err as Error).message}`);
      latest = await session.client.get<APIBinding>(`${bindingsUrl(path, version)}/${encodeURIComponent(name)}`);
      reached = done(latest);
    }
    if (deleted) throw new CliError(`could not bind ${name}: the APIBinding was deleted while waiting for it to bind`);
    if (reached) return latest;
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
