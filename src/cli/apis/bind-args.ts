/**
 * kcp's `kubectl kcp bind apiexport` argument rules, pure: the `<path>:<export>` reference, the claim flags
 * (`resource.group`, `core` for the empty group, comma-separated or repeated), which claim flags may go together,
 * the claims recorded for them (the export's own, not kcp's plugin's `*` and matchAll), and the `--timeout`
 * duration. Messages are kcp's.
 */
import { CliError, UsageError } from '../common/errors.js';
import { isValidPath } from '../../client/workspace-path.js';
import { parseDuration } from '../start/flags.js';
import type { AcceptablePermissionClaim, ClaimState, ExportedClaim } from '../../client/apis-api.js';

export interface ExportReference {
  path: string;
  name: string;
}

/** What a claim flag names: a resource and whether it is accepted. */
export interface ClaimChoice {
  group: string;
  resource: string;
  state: ClaimState;
}

export interface BindFlags {
  accept?: string[];
  reject?: string[];
  acceptAll: boolean;
  rejectAll: boolean;
}

const missingReference = '`root:ws:apiexport_object` reference to bind is required as an argument';
const notFullyQualified =
  'fully qualified reference to workspace where APIExport exists is required. The format is `<logical-cluster-name>:<apiexport>` or `<full>:<path>:<to>:<apiexport>`';

/** `root:provider:widgets` → { path: 'root:provider', name: 'widgets' } (split at the last colon, as kcp does). */
export function parseExportReference(ref: string | undefined): ExportReference {
  if (!ref) throw new UsageError(missingReference);
  const at = ref.lastIndexOf(':');
  const path = at < 0 ? '' : ref.slice(0, at);
  const name = at < 0 ? ref : ref.slice(at + 1);
  if (!isValidPath(path)) throw new UsageError(notFullyQualified);
  return { path, name };
}

/** Which claim flags may not be combined (kcp's order and words). */
export function checkClaimFlagCombinations(f: BindFlags): void {
  const accept = (f.accept?.length ?? 0) > 0;
  const reject = (f.reject?.length ?? 0) > 0;
  if (f.acceptAll && f.rejectAll) throw new UsageError('cannot use both --accept-all-permission-claims and --reject-all-permission-claims');
  if (f.acceptAll && accept) throw new UsageError('cannot use --accept-all-permission-claims with --accept-permission-claim');
  if (f.acceptAll && reject) throw new UsageError('cannot use --accept-all-permission-claims together with --reject-permission-claim');
  if (f.rejectAll && reject) throw new UsageError('cannot use --reject-all-permission-claims with --reject-permission-claim');
  if (f.rejectAll && accept) throw new UsageError('cannot use --reject-all-permission-claims together with --accept-permission-claim');
}

/** A choice for every `resource.group` in the flag values (each value may hold a comma-separated list). */
export function parseClaimFlags(values: string[] | undefined, state: ClaimState): ClaimChoice[] {
  const claims: ClaimChoice[] = [];
  const invalid: string[] = [];
  for (const item of (values ?? []).flatMap((v) => v.split(','))) {
    const dot = item.indexOf('.');
    if (dot < 0) {
      invalid.push(`invalid permission claim "${item}"`);
      continue;
    }
    const resource = item.slice(0, dot);
    const group = item.slice(dot + 1);
    claims.push({ group: group === 'core' ? '' : group, resource, state });
  }
  if (invalid.length > 0) {
    throw new UsageError(`invalid ${state === 'Accepted' ? 'accepted' : 'rejected'} permission claims: [${invalid.join(' ')}]`);
  }
  return claims;
}

/**
 * The claims the binding records: for each choice (or every claim, with `all`), the export's claim exactly as it
 * stands (group, resource, identity hash and verbs; its default selector, matchAll without one), in the state chosen.
 * Accepting means accepting what the export asks for now and nothing it may ask for later: never `*` unless the
 * export claims `*`, so a provider that widens its claim gets nothing more until the consumer accepts again.
 */
export function claimsAsExported(exported: readonly ExportedClaim[], choices: readonly ClaimChoice[] | { all: ClaimState }, exportName: string): AcceptablePermissionClaim[] {
  const asRecorded = (c: ExportedClaim, state: ClaimState): AcceptablePermissionClaim => ({
    group: c.group ?? '',
    resource: c.resource,
    ...(c.identityHash ? { identityHash: c.identityHash } : {}),
    verbs: [...(c.verbs ?? [])],
    selector: c.defaultSelector ?? { matchAll: true },
    state,
  });
  if ('all' in choices) return exported.map((c) => asRecorded(c, choices.all));
  const claims: AcceptablePermissionClaim[] = [];
  const unknown: string[] = [];
  for (const choice of choices) {
    const matching = exported.filter((c) => (c.group ?? '') === choice.group && c.resource === choice.resource);
    if (matching.length === 0) unknown.push(claimName(choice));
    for (const c of matching) claims.push(asRecorded(c, choice.state));
  }
  if (unknown.length > 0) {
    const made = exported.map((c) => claimName({ group: c.group ?? '', resource: c.resource }));
    throw new CliError(`APIExport "${exportName}" claims no ${unknown.join(', ')} (its claims: ${made.length > 0 ? made.join(', ') : 'none'})`);
  }
  return claims;
}

/** `secrets.core`, `widgets.example.com`: how a claim is named on the command line. */
export function claimName(c: { group: string; resource: string }): string {
  return `${c.resource}.${c.group || 'core'}`;
}

/** All claim flags → the choices, rejecting a resource that is both accepted and rejected. */
export function claimsFromFlags(f: BindFlags): ClaimChoice[] {
  checkClaimFlagCombinations(f);
  const accepted = parseClaimFlags(f.accept, 'Accepted');
  const rejected = parseClaimFlags(f.reject, 'Rejected');
  for (const a of accepted) {
    const r = rejected.find((x) => x.group === a.group && x.resource === a.resource);
    if (r) throw new UsageError(`accepted permission claim "${claimName(a)}" conflicts with rejected permission claim "${claimName(r)}"`);
  }
  return [...accepted, ...rejected];
}

/** `--timeout`: kcp's default 30s; kcpt's durations (100ms, 30s, 5m, 1h). */
export function parseTimeout(value: string | undefined): number {
  if (value === undefined) return 30_000;
  try {
    return parseDuration(value, 'timeout');
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}
