/**
 * `kcpt bind <path>:<export>` (and `kubectl kcp bind apiexport …`): kcp's bind plugin. Creates an APIBinding in the
 * current workspace (the server's preferred version), then watches it until its phase is Bound (`--timeout`, 30 s).
 * Messages are kcp's. Unlike kcp's plugin it does not sit out the timeout when the binding's conditions already say
 * why it cannot bind (no such export, a naming conflict, claims that do not match): it fails at once with that
 * reason. Conditions that say what is pending are shown while it waits. A binding it created and that failed is
 * deleted again (or the error says how to delete it), and `--ignore-existing` takes a binding of the same export that
 * is already there.
 *
 * Claims the flags accept or reject are answered as the export makes them, read from the binding's own status
 * (`exportPermissionClaims`, what the server shows the consumer; the consumer needs no access to the export's
 * workspace): its verbs, identity hash and default selector, where kcp's plugin writes `*` and matchAll. So the
 * binding is created without claims, and its claims are written once the server has filled that status in.
 */
import { ApiError, ClientError } from '../../client/errors.js';
import { CliError } from '../common/errors.js';
import type { Io } from '../common/io.js';
import { waitForObject } from '../../client/object-watch.js';
import { printObjects, type OutputFormat } from '../common/output.js';
import { withProgress, type Progress } from '../common/progress.js';
import type { Session } from '../common/session.js';
import { bindingsUrl, createBinding, getExport, preferredBindingVersion, type AcceptablePermissionClaim, type APIBinding, type APIExport, type Condition, type V1alpha1Claim } from '../../client/apis-api.js';
import { claimsAsExported, type ClaimChoice, type ExportReference } from './bind-args.js';
import { currentPath } from './export.js';

export interface BindOptions {
  reference: ExportReference;
  name?: string;
  timeoutMs: number;
  claims: ClaimChoice[];
  acceptAll: boolean;
  rejectAll: boolean;
  ignoreExisting?: boolean;
  output?: OutputFormat;
}

export async function runBind(session: Session, io: Io, opts: BindOptions): Promise<void> {
  const { client, config } = session;
  const path = currentPath(config.connection.server);
  const version = await preferredBindingVersion(client, path);
  if (version !== 'v1alpha2' && version !== 'v1alpha1') throw new CliError(`${version} is not supported by this plugin`);
  const deadline = Date.now() + opts.timeoutMs;

  // Read first: a missing export fails here, before anything is created. Where the caller may not read it (403), the
  // binding's conditions tell.
  const reference = `${opts.reference.path}:${opts.reference.name}`;
  let exported: APIExport | undefined;
  try {
    exported = await getExport(client, opts.reference.path, opts.reference.name);
  } catch (err) {
    if (err instanceof ApiError && err.notFound) throw new CliError(`could not bind ${opts.name || opts.reference.name}: APIExport ${reference} not found`);
  }

  const name = opts.name || opts.reference.name;
  const url = `${bindingsUrl(path, version)}/${encodeURIComponent(name)}`;
  const body: APIBinding = {
    kind: 'APIBinding',
    metadata: { name },
    spec: { reference: { export: { path: opts.reference.path, name: opts.reference.name } } },
  };
  const say = (line: string) => (opts.output ? io.err(line) : io.out(line));
  let binding: APIBinding;
  let created = true;
  try {
    binding = await createBinding(client, path, body, version);
  } catch (err) {
    if (!(opts.ignoreExisting && err instanceof ApiError && err.alreadyExists)) throw new CliError(`failed to create APIBinding: ${(err as Error).message}`);
    binding = await client.get<APIBinding>(url);
    const existing = binding.spec.reference.export;
    if (existing.name !== opts.reference.name || (existing.path ?? path) !== opts.reference.path) {
      throw new CliError(`apibinding ${name} already exists and binds ${existing.path ?? path}:${existing.name}, not ${opts.reference.path}:${opts.reference.name}`);
    }
    created = false;
  }
  const cleanUp = async () => (created ? removeFailed(session, path, version, name) : '');

  const all = opts.acceptAll ? { all: 'Accepted' as const } : opts.rejectAll ? { all: 'Rejected' as const } : undefined;
  if (all || opts.claims.length > 0) {
    try {
      binding = await withProgress(io, `Waiting for apibinding ${name} to show the export's permission claims`, () =>
        waitForObject(client, bindingsUrl(path, version), binding, claimsShown, {
          timeoutMs: Math.max(deadline - Date.now(), 1),
          what: `apibinding ${name} to show the export's permission claims`,
        }),
      );
      const claims = claimsAsExported(binding.status?.exportPermissionClaims ?? [], all ?? opts.claims, opts.reference.name);
      binding = await writeClaims(session, url, version, binding, claims);
    } catch (err) {
      // Nothing was accepted: the binding made for these claims goes again.
      throw new CliError(`${(err as Error).message}${await cleanUp()}`);
    }
  }

  if (!created && binding.status?.phase === 'Bound') say(`apibinding ${name} already exists and is bound.\n`);
  else say(`apibinding ${name} ${created ? 'created' : 'already exists'}. Waiting to successfully bind ...\n`);
  if (binding.status?.phase !== 'Bound') {
    try {
      binding = await withProgress(io, `Waiting for apibinding ${name} to bind`, (progress) =>
        waitForBound(session, path, version, binding, { timeoutMs: Math.max(deadline - Date.now(), 1), exportSeen: exported !== undefined }, progress),
      );
    } catch (err) {
      throw new CliError(`${(err as Error).message}${await cleanUp()}`);
    }
    say(`${name} created and bound.\n`);
  }
  if (opts.output) await printObjects(io, opts.output, binding);
}

/** The permission-claim controller has looked at the binding against its export (its condition is there). */
function claimsShown(binding: APIBinding): boolean {
  return (binding.status?.conditions ?? []).some((c) => c.type === 'PermissionClaimsValid');
}

/** The binding's spec with `claims`, against the revision read (read again on a conflict: status writes race it). */
async function writeClaims(session: Session, url: string, version: string, current: APIBinding, claims: AcceptablePermissionClaim[]): Promise<APIBinding> {
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

/**
 * Watches the binding from the revision it was created at until phase Bound; fails as soon as a condition gives an
 * error (not merely a pending step), and shows the pending step while it lasts.
 */
async function waitForBound(
  session: Session,
  path: string,
  version: string,
  created: APIBinding,
  opts: { timeoutMs: number; exportSeen: boolean },
  progress: Progress,
): Promise<APIBinding> {
  const { timeoutMs } = opts;
  const name = created.metadata.name;
  let latest = created;
  // An export this command just read but the binding's shard has not yet: it is on its way from another shard.
  const notYetHere = (c: Condition) => opts.exportSeen && c.reason === 'APIExportNotFound';
  const done = (binding: APIBinding) => {
    latest = binding;
    if (binding.status?.phase === 'Bound') return true;
    const failing = conditions(binding, 'error').filter((c) => !notYetHere(c));
    if (failing.length > 0) throw new CliError(`could not bind ${name}: ${failing.map(describeCondition).join('; ')}`);
    const pending = [...conditions(binding, 'pending'), ...conditions(binding, 'error').filter(notYetHere)];
    if (pending.length > 0) progress.update(`waiting: ${pending.map(describeCondition).join('; ')}`);
    return false;
  };
  if (done(created)) return created;
  try {
    return await waitForObject(session.client, bindingsUrl(path, version), created, done, { timeoutMs, what: `apibinding ${name} to bind` });
  } catch (err) {
    if (err instanceof ClientError) throw err;
    const message = (err as Error).message;
    if (message.startsWith('timed out')) throw new CliError(`could not bind ${name}: context deadline exceeded${describeBindingState(latest)}`);
    if (message.includes('was deleted')) throw new CliError(`could not bind ${name}: the APIBinding was deleted while waiting for it to bind`);
    throw new CliError(`could not bind ${name}: ${message}`);
  }
}

/**
 * The conditions (other than Ready, which repeats them) that are not True: `error` ones say it cannot bind as things
 * stand, `pending` ones (severity Info, kcp's way of marking a step in progress) say what it waits for.
 */
function conditions(binding: APIBinding, which: 'error' | 'pending'): Condition[] {
  const matching = (binding.status?.conditions ?? [])
    .filter((c) => c.type !== 'Ready' && c.status === 'False' && (c.severity === 'Info') === (which === 'pending'))
    .sort((a, b) => rank(a) - rank(b));
  // Several conditions often carry one reason (InitialBindingCompleted and BindingUpToDate): say it once.
  return matching.filter((c, i) => matching.findIndex((d) => d.reason === c.reason && d.message === c.message) === i);
}

const conditionOrder = ['APIExportValid', 'InitialBindingCompleted'];
const rank = (c: Condition) => (conditionOrder.includes(c.type) ? conditionOrder.indexOf(c.type) : conditionOrder.length);

function describeCondition(c: Condition): string {
  return `${c.type} ${c.status}${c.reason ? ` ${c.reason}` : ''}${c.message ? `: ${c.message}` : ''}`;
}

/** ` (phase Binding; APIExportValid False APIExportNotFound: APIExport root:x|y not found)`: why it is not Bound. */
export function describeBindingState(binding: APIBinding): string {
  const failing = (binding.status?.conditions ?? []).filter((c) => c.status !== 'True' && c.type !== 'Ready');
  return ` (${[`phase ${binding.status?.phase || '""'}`, ...failing.map(describeCondition)].join('; ')})`;
}

/** Deletes the binding this command created and that did not bind; says what became of it. */
async function removeFailed(session: Session, path: string, version: string, name: string): Promise<string> {
  try {
    await session.client.request('DELETE', `${bindingsUrl(path, version)}/${encodeURIComponent(name)}`);
    return ` (apibinding ${name} deleted again)`;
  } catch (err) {
    if (err instanceof ApiError && err.notFound) return '';
    return ` (apibinding ${name} is left behind: delete it with "kubectl delete apibinding ${name}")`;
  }
}

/** v1alpha1's claim shape: `all: true` instead of verbs and a selector. */
function v1alpha1Claim(c: AcceptablePermissionClaim): V1alpha1Claim {
  return { group: c.group, resource: c.resource, ...(c.identityHash ? { identityHash: c.identityHash } : {}), all: true, state: c.state };
}
