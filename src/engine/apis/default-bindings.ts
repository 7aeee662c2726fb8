/**
 * What kcp's `system:apibindings` initializer (and its `Maintain` twin) decide for one workspace, without storage:
 * which exports the workspace's type and the types it extends want bound, the APIBinding each gets (kcp's name, the
 * export's permission claims accepted), and the LogicalCluster conditions that say how far it got, with kcp's
 * reasons and messages.
 */
import type { WorkspaceType } from '../tenancy/workspace-types.js';
import { defaultAPIBindingName } from './default-binding-names.js';
import type { AcceptablePermissionClaim, APIBinding, APIExport, PermissionClaim } from './types.js';

export const APIBINDINGS_INITIALIZER = 'system:apibindings';
export const BINDINGS_INITIALIZED = 'APIBindingsInitialized';
export const BINDINGS_RECONCILED = 'APIBindingsReconciled';
export const EXPORTS_MISSING = 'unable to complete initialization: unable to find at least 1 APIExport';

/** One export a workspace should have bound; `path` is as the binding will reference it. */
export interface DefaultExportRef {
  path: string;
  export: string;
  /** The type that asks for it binds it with `Maintain` (kept up to date after initialization). */
  maintain: boolean;
}

/** An export's claim; `defaultSelector` is what the export proposes for default bindings (kcpt reads it when set). */
type ExportClaim = PermissionClaim & { defaultSelector?: AcceptablePermissionClaim['selector'] };

/**
 * The default bindings of a workspace whose type has these aliases, in alias order, each export once. A reference
 * without a path means the export lives beside the type: kcp fills in the type's logical cluster *name*.
 */
export function defaultExportRefs(aliases: readonly WorkspaceType[], clusterOfType: (t: WorkspaceType) => string): DefaultExportRef[] {
  const out = new Map<string, DefaultExportRef>();
  for (const t of aliases) {
    const maintain = t.spec?.defaultAPIBindingLifecycle === 'Maintain';
    for (const ref of t.spec?.defaultAPIBindings ?? []) {
      const path = ref.path || clusterOfType(t);
      const key = `${path}|${ref.export}`;
      const known = out.get(key);
      if (known) known.maintain ||= maintain;
      else out.set(key, { path, export: ref.export, maintain });
    }
  }
  return [...out.values()];
}

/** Whether any of these types keeps its default bindings up to date after initialization. */
export function maintainsBindings(aliases: readonly WorkspaceType[]): boolean {
  return aliases.some((t) => t.spec?.defaultAPIBindingLifecycle === 'Maintain' && (t.spec.defaultAPIBindings ?? []).length > 0);
}

/**
 * The APIBinding kcp creates in `cluster` for `ref`: every claim of the export accepted, with the selector the
 * parent workspace's binding of the same export accepted it with when there is one (kcp's selector inheritance),
 * else the export's proposed default selector, else everything.
 */
export function desiredBinding(
  cluster: string,
  ref: DefaultExportRef,
  exportObj: APIExport,
  parentSelector: (claim: PermissionClaim) => AcceptablePermissionClaim['selector'],
): APIBinding {
  const permissionClaims = ((exportObj.spec?.permissionClaims ?? []) as ExportClaim[]).map((claim): AcceptablePermissionClaim => ({
    group: claim.group ?? '',
    resource: claim.resource,
    identityHash: claim.identityHash ?? '',
    verbs: claim.verbs ?? ['*'],
    selector: parentSelector(claim) ?? claim.defaultSelector ?? { matchAll: true },
    state: 'Accepted',
  }));
  return {
    apiVersion: 'apis.kcp.io/v1alpha2',
    kind: 'APIBinding',
    metadata: { name: defaultAPIBindingName(cluster, ref.path, ref.export) },
    spec: {
      reference: { export: { path: ref.path, name: ref.export } },
      ...(permissionClaims.length ? { permissionClaims } : {}),
    },
  };
}

/** kcp's test for "bound": the binding's InitialBindingCompleted condition is True (it never goes back). */
export function isBound(binding: APIBinding): boolean {
  return (binding.status?.conditions ?? []).some((c) => c.type === 'InitialBindingCompleted' && c.status === 'True');
}

/** Selector of the parent binding's accepted claim on the same resource: one narrower than matchAll wins. */
export function inheritedSelector(parentBindings: readonly APIBinding[], ref: DefaultExportRef, claim: PermissionClaim) {
  let matchAll: AcceptablePermissionClaim['selector'];
  for (const b of parentBindings) {
    const exp = b.spec?.reference?.export;
    if (exp?.name !== ref.export || (exp.path ?? '') !== ref.path) continue;
    for (const c of b.spec?.permissionClaims ?? []) {
      const same = c.group === (claim.group ?? '') && c.resource === claim.resource && c.identityHash === (claim.identityHash ?? '');
      if (!same || c.state !== 'Accepted') continue;
      if (!c.selector?.matchAll) return c.selector;
      matchAll ??= c.selector;
    }
  }
  return matchAll;
}

/** Go's utilerrors.NewAggregate rendering: one message alone, several in brackets. */
export function aggregate(messages: readonly string[]): string {
  return messages.length === 1 ? messages[0]! : `[${messages.join(', ')}]`;
}

export interface Condition {
  type: string;
  status: 'True' | 'False';
  severity?: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

export const bindingErrors = (type: string, messages: readonly string[]): Condition => ({
  type,
  status: 'False',
  severity: 'Error',
  reason: 'APIBindingErrors',
  message: `encountered errors: ${aggregate(messages)}`,
});

export const waitingOnBindings = (type: string, incomplete: string[], verb: 'bound' | 'reconciled'): Condition => ({
  type,
  status: 'False',
  severity: 'Info',
  reason: 'WaitingOnAPIBindings',
  message: `APIBinding(s) not yet fully ${verb}: ${[...incomplete].sort().join(', ')}`,
});

export const typeInvalid = (message: string): Condition => ({
  type: BINDINGS_INITIALIZED,
  status: 'False',
  severity: 'Error',
  reason: 'WorkspaceTypesInvalid',
  message,
});

/**
 * `conditions` with `next` set (kcp's conditions.Set): the transition time is kept while the status stays the same.
 * Returns undefined when nothing would change, so callers write only real changes.
 */
export function setCondition(conditions: readonly Condition[], next: Condition, now: string): Condition[] | undefined {
  const old = conditions.find((c) => c.type === next.type);
  if (old && old.status === next.status && old.reason === next.reason && old.message === next.message && old.severity === next.severity) {
    return undefined;
  }
  const merged: Condition = { ...next, lastTransitionTime: old && old.status === next.status ? old.lastTransitionTime : now };
  for (const k of ['severity', 'reason', 'message'] as const) if (merged[k] === undefined) delete merged[k];
  return [...conditions.filter((c) => c.type !== next.type), merged];
}
