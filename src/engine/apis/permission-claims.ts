/**
 * Permission claims: an APIExport asks for access to resources of its consumers'
 * workspaces (built-ins such as configmaps, or another export's resources by identity hash); each consumer answers
 * per claim in its APIBinding (`Accepted` with a selector and verbs, or `Rejected`). A claim is in force for a consumer
 * when it is both exported and accepted; the provider may then use the verbs both sides list, on the objects the
 * binding's selector picks. Verbs are compared as kcp's virtual workspace authorizer compares them, as plain sets:
 * `*` on one side matches only `*` on the other, so an export that widens its claim (to more verbs, or to `*`) gains
 * nothing until the consumer accepts the new verbs, and the binding's PermissionClaimsValid condition says they
 * differ. kcp labels claimed objects and filters on the label; kcpt decides the same thing at read time from the
 * binding, so accepting or rejecting a claim takes effect without rewriting any object.
 *
 * Pure functions: what is in force, and the binding status kcp's permission-claim controller writes
 * (`exportPermissionClaims`, `appliedPermissionClaims`, conditions PermissionClaimsValid / PermissionClaimsApplied).
 */
import { labelSelectorFromObject, matches, type LabelSelectorObject } from '../machinery/label-selector.js';
import type { KubeObject } from '../registry/types.js';
import type { ConditionChange } from './conditions.js';
import type { KcpCondition } from './names.js';
import type { PermissionClaim as CorePermissionClaim } from './types.js';

/** An export's claim as kcp defines it (v1alpha2), with the selector WorkspaceType default bindings start from. */
export interface PermissionClaim extends CorePermissionClaim {
  defaultSelector?: ClaimSelector;
}

export interface ClaimSelector extends LabelSelectorObject {
  matchAll?: boolean;
}

export interface AcceptablePermissionClaim extends PermissionClaim {
  selector?: ClaimSelector;
  state?: string;
}

/** A claim in force in one consumer workspace. */
export interface ClaimInForce {
  group: string;
  resource: string;
  identityHash: string;
  /** Verbs of the export ∩ verbs of the binding, as sets (`*` stays only when both list it, and then means every verb). */
  verbs: string[];
  /** The selector the consumer accepted. */
  selector: ClaimSelector | undefined;
  /** Whether an object (by its labels) is within the accepted selector. */
  selects(labels: Record<string, string> | undefined): boolean;
}

/** kcp's set key for a claim: resource, group and identity (verbs and selectors are not part of it). */
export function claimKey(claim: Pick<PermissionClaim, 'group' | 'resource' | 'identityHash'>): string {
  return `${claim.resource}/${claim.group ?? ''}/${claim.identityHash ?? ''}`;
}

/**
 * The verbs both lists allow, as plain sets (kcp's authorizer): `*` is a verb like any other here, so `*` on one side
 * and `get` on the other allow nothing. The consumer's `*` never stretches to whatever the export asks for next.
 */
export function intersectVerbs(a: readonly string[] | undefined, b: readonly string[] | undefined): string[] {
  const right = new Set(b ?? []);
  return [...new Set(a ?? [])].filter((verb) => right.has(verb));
}

export function verbAllowed(verbs: readonly string[], verb: string): boolean {
  return verbs.includes('*') || verbs.includes(verb);
}

/** `matchAll`, or a label selector (an empty selector selects nothing: kcp requires one of the two). */
export function claimSelectorMatcher(selector: ClaimSelector | undefined): (labels: Record<string, string> | undefined) => boolean {
  if (!selector) return () => false;
  if (selector.matchAll) return () => true;
  const hasTerms = Object.keys(selector.matchLabels ?? {}).length > 0 || (selector.matchExpressions ?? []).length > 0;
  if (!hasTerms) return () => false;
  const compiled = labelSelectorFromObject(selector);
  return (labels) => matches(compiled, labels ?? {});
}

function claimsOf(obj: KubeObject | undefined): AcceptablePermissionClaim[] {
  const claims = (obj?.spec as { permissionClaims?: unknown } | undefined)?.permissionClaims;
  return Array.isArray(claims) ? (claims as AcceptablePermissionClaim[]) : [];
}

/** The claims of `exportObj` that `binding` accepted: key → claim in force. */
export function claimsInForce(binding: KubeObject, exportObj: KubeObject | undefined): Map<string, ClaimInForce> {
  const exported = new Map(claimsOf(exportObj).map((c) => [claimKey(c), c]));
  const inForce = new Map<string, ClaimInForce>();
  for (const accepted of claimsOf(binding)) {
    if (accepted.state !== 'Accepted') continue;
    const key = claimKey(accepted);
    const offer = exported.get(key);
    if (!offer || inForce.has(key)) continue;
    inForce.set(key, {
      group: accepted.group ?? '',
      resource: accepted.resource,
      identityHash: accepted.identityHash ?? '',
      verbs: intersectVerbs(offer.verbs, accepted.verbs),
      selector: accepted.selector,
      selects: claimSelectorMatcher(accepted.selector),
    });
  }
  return inForce;
}

export interface PermissionClaimStatus {
  exportPermissionClaims: PermissionClaim[];
  appliedPermissionClaims: AcceptablePermissionClaim[];
  /** PermissionClaimsValid and PermissionClaimsApplied, to be set with setCondition (which keeps transition times). */
  conditions: ConditionChange[];
}

/**
 * The permission-claim part of an APIBinding's status, given its export: the export's claims copied, the claims
 * that are both exported and accepted (as the binding states them), PermissionClaimsValid (False when the binding
 * accepts a claim the export does not make — InvalidPermissionClaims — or accepts one with other verbs or a selector
 * other than the export's default — PermissionClaimsMismatch, a warning: the provider then has only the verbs both
 * list) and PermissionClaimsApplied.
 */
export function permissionClaimStatus(binding: KubeObject, exportObj: KubeObject): PermissionClaimStatus {
  const exported = claimsOf(exportObj);
  const exportedByKey = new Map(exported.map((c) => [claimKey(c), c]));
  const accepted = new Map<string, AcceptablePermissionClaim>();
  for (const claim of claimsOf(binding)) if (claim.state === 'Accepted') accepted.set(claimKey(claim), claim);

  const unexpected: string[] = [];
  const mismatched: string[] = [];
  const applied: AcceptablePermissionClaim[] = [];
  for (const key of [...accepted.keys()].sort()) {
    const claim = accepted.get(key)!;
    const offer = exportedByKey.get(key);
    if (!offer) {
      unexpected.push(`unexpected/invalid claim for ${claim.resource}.${claim.group ?? ''} (identity "${claim.identityHash ?? ''}")`);
      continue;
    }
    // Applied claims are scoped claims (kcp's ScopedPermissionClaim): the claim and its selector, no state.
    const { state: _state, ...scoped } = claim;
    applied.push(scoped);
    const problems = mismatchOf(claim, offer);
    if (problems.length > 0) mismatched.push(`${claim.resource}.${claim.group ?? ''} (${problems.join('; ')})`);
  }

  const conditions: ConditionChange[] = [];
  if (unexpected.length > 0) {
    const shown = unexpected.slice(0, 10);
    conditions.push(
      falseCondition(
        'PermissionClaimsValid',
        'InvalidPermissionClaims',
        'Error',
        `${unexpected.length} unexpected and/or invalid permission claims (showing first ${shown.length}): ${goAggregate(shown)}`,
      ),
    );
  } else if (mismatched.length > 0) {
    const shown = mismatched.slice(0, 5);
    conditions.push(
      falseCondition(
        'PermissionClaimsValid',
        'PermissionClaimsMismatch',
        'Warning',
        `${mismatched.length} permission claim(s) have mismatched verbs or selectors (showing first ${shown.length}): ${shown.join(', ')}`,
      ),
    );
  } else {
    conditions.push(trueCondition('PermissionClaimsValid'));
  }
  conditions.push(trueCondition('PermissionClaimsApplied'));

  return {
    exportPermissionClaims: exported,
    appliedPermissionClaims: applied,
    conditions,
  };
}

/**
 * What differs between an accepted claim and the export's. Unlike kcp's controller, `*` is compared as a verb too (kcp
 * calls `*` against a list a match while its authorizer then allows nothing): the condition says so whenever the
 * provider has less than the export asks for.
 */
function mismatchOf(accepted: AcceptablePermissionClaim, offer: PermissionClaim): string[] {
  const problems: string[] = [];
  const a = accepted.verbs ?? [];
  const e = offer.verbs ?? [];
  const same = a.every((v) => e.includes(v)) && e.every((v) => a.includes(v));
  if (!same) problems.push(`verbs: accepted ${goList(a)}, exported ${goList(e)}`);
  if (offer.defaultSelector && JSON.stringify(sorted(accepted.selector ?? {})) !== JSON.stringify(sorted(offer.defaultSelector))) {
    problems.push('selector differs from defaultSelector');
  }
  return problems;
}

/** Go's `%v` of a string slice: `[get list]`. */
function goList(items: readonly string[]): string {
  return `[${items.join(' ')}]`;
}

/** Go's utilerrors aggregate: one error as is, several as `[a, b]`. */
function goAggregate(messages: readonly string[]): string {
  return messages.length === 1 ? messages[0]! : `[${messages.join(', ')}]`;
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sorted((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

function trueCondition(type: string): ConditionChange {
  return { type, status: 'True' };
}

function falseCondition(type: string, reason: string, severity: KcpCondition['severity'], message: string): ConditionChange {
  return { type, status: 'False', severity, reason, message };
}
