/**
 * The CustomResourceDefinition object as kcpt reads it, and the status rules kube's apiextensions controllers
 * apply: accepted names (with kube's conflict reasons), the NamesAccepted / Established / Terminating conditions
 * and storedVersions. kcpt computes them synchronously on every CRD write, so a CRD is Established in the answer
 * to its own create, and re-evaluates its neighbours when one of them changes (crd-controller.ts).
 */
import type { KubeObject } from '../registry/types.js';
import { approvalCondition } from './api-approval.js';
import type { CRDCondition, JSONSchemaProps } from './types.js';
import type { AdditionalPrinterColumn } from './printer-columns.js';

export const CRD_GROUP = 'apiextensions.k8s.io';
export const CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

export interface CRDNames {
  plural: string;
  singular?: string;
  kind: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

export interface CRDVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: JSONSchemaProps };
  subresources?: {
    status?: Record<string, never>;
    scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
  };
  additionalPrinterColumns?: AdditionalPrinterColumn[];
  selectableFields?: { jsonPath: string }[];
}

export interface CustomResourceDefinition extends KubeObject {
  spec: {
    group: string;
    names: CRDNames;
    scope: 'Namespaced' | 'Cluster';
    versions: CRDVersion[];
    conversion?: { strategy: string };
  };
  status?: {
    acceptedNames?: CRDNames;
    conditions?: CRDCondition[];
    storedVersions?: string[];
  };
}

export function condition(crd: CustomResourceDefinition, type: string): CRDCondition | undefined {
  return crd.status?.conditions?.find((c) => c.type === type);
}

export function isEstablished(crd: CustomResourceDefinition): boolean {
  return condition(crd, 'Established')?.status === 'True';
}

/** kube's v1 defaulting: singular = lowercase kind, listKind = kind + "List", conversion None. */
export function defaultCRD(crd: CustomResourceDefinition): void {
  const spec = crd.spec as Partial<CustomResourceDefinition['spec']> | undefined;
  if (!spec || typeof spec !== 'object') return;
  const names = spec.names;
  if (names && typeof names === 'object') {
    if (!names.singular && typeof names.kind === 'string') names.singular = names.kind.toLowerCase();
    if (!names.listKind && typeof names.kind === 'string') names.listKind = `${names.kind}List`;
  }
  spec.conversion ??= { strategy: 'None' };
  if (spec.conversion && typeof spec.conversion === 'object' && !spec.conversion.strategy) spec.conversion.strategy = 'None';
}

type NameConflict = { reason: string; message: string };

/** The names other CRDs of the same group hold: plural, singular and short names share one set, kinds another. */
function namesInUse(others: CustomResourceDefinition[]): { resources: Set<string>; kinds: Set<string> } {
  const resources = new Set<string>();
  const kinds = new Set<string>();
  for (const other of others) {
    const accepted = other.status?.acceptedNames;
    if (!accepted) continue;
    for (const n of [accepted.plural, accepted.singular, ...(accepted.shortNames ?? [])]) if (n) resources.add(n);
    for (const n of [accepted.kind, accepted.listKind]) if (n) kinds.add(n);
  }
  return { resources, kinds };
}

/**
 * kube's naming controller (calculateNamesAndConditions): every requested name is checked; a name that is
 * already this CRD's accepted name, or that no other CRD of the group holds, is accepted, any other name keeps its
 * previously accepted value. When several names conflict, the last check (plural, singular, short names, kind,
 * listKind) gives the reason, so a duplicate kind with the default listKind reports ListKindConflict.
 */
export function acceptNames(
  requested: CRDNames,
  current: CRDNames | undefined,
  others: CustomResourceDefinition[],
): { names: CRDNames; conflict?: NameConflict } {
  const { resources, kinds } = namesInUse(others);
  const names: CRDNames = { ...(current ?? { plural: '', kind: '' }) };
  let conflict: NameConflict | undefined;
  const fresh = (want: string | undefined, have: string | undefined, used: Set<string>) => want === have || !used.has(want ?? '');
  const check = (field: 'plural' | 'singular' | 'kind' | 'listKind', used: Set<string>, reason: string) => {
    const want = requested[field];
    if (fresh(want, current?.[field], used)) {
      if (want === undefined) delete names[field];
      else names[field] = want;
    } else conflict = { reason, message: `${JSON.stringify(want)} is already in use` };
  };
  check('plural', resources, 'PluralConflict');
  check('singular', resources, 'SingularConflict');
  if (JSON.stringify(requested.shortNames ?? null) !== JSON.stringify(current?.shortNames ?? null)) {
    const mine = new Set(current?.shortNames ?? []);
    const taken = (requested.shortNames ?? []).filter((n) => !mine.has(n) && resources.has(n));
    if (taken.length > 0) {
      // utilerrors.NewAggregate: one error prints alone, several as `[a, b]`.
      const msgs = taken.map((n) => `${JSON.stringify(n)} is already in use`);
      conflict = { reason: 'ShortNamesConflict', message: msgs.length === 1 ? msgs[0]! : `[${msgs.join(', ')}]` };
    } else if (requested.shortNames?.length) names.shortNames = requested.shortNames;
    else delete names.shortNames;
  }
  check('kind', kinds, 'KindConflict');
  check('listKind', kinds, 'ListKindConflict');
  if (requested.categories?.length) names.categories = requested.categories;
  else delete names.categories;
  return { names, conflict };
}

/** The first name conflict kube would report for `requested` against `others` (undefined: none). */
export function findNameConflict(requested: CRDNames, others: CustomResourceDefinition[]): NameConflict | undefined {
  return acceptNames(requested, undefined, others).conflict;
}

function setCondition(conditions: CRDCondition[], next: CRDCondition, now: string): CRDCondition[] {
  const old = conditions.find((c) => c.type === next.type);
  const merged: CRDCondition = { ...next, lastTransitionTime: old && old.status === next.status ? old.lastTransitionTime : now };
  return old ? conditions.map((c) => (c.type === next.type ? merged : c)) : [...conditions, merged];
}

/** The Terminating condition kube's finalizer controller sets while a CRD's objects are being deleted. */
export function withTerminating(conditions: CRDCondition[], now: string): CRDCondition[] {
  return setCondition(
    conditions,
    { type: 'Terminating', status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' },
    now,
  );
}

/**
 * The status a CRD should have given the other CRDs of its logical cluster (same group). Pure: returns a new
 * status object; the caller compares and writes.
 */
export function computeCRDStatus(
  crd: CustomResourceDefinition,
  sameGroup: CustomResourceDefinition[],
  now: string,
): NonNullable<CustomResourceDefinition['status']> {
  const status = structuredClone(crd.status ?? {});
  let conditions = status.conditions ?? [];
  const { names, conflict } = acceptNames(crd.spec.names, status.acceptedNames, sameGroup);
  status.acceptedNames = names;
  const wasEstablished = conditions.some((c) => c.type === 'Established' && c.status === 'True');
  if (conflict) {
    conditions = setCondition(conditions, { type: 'NamesAccepted', status: 'False', reason: conflict.reason, message: conflict.message }, now);
  } else {
    conditions = setCondition(conditions, { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' }, now);
  }
  // The establishing controller turns accepted names into Established; kcpt does it in the same write. Once
  // Established, a CRD stays so even if a later names change conflicts (kube keeps the old condition).
  if (!conflict || wasEstablished) {
    conditions = setCondition(
      conditions,
      { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' },
      now,
    );
  } else {
    conditions = setCondition(conditions, { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' }, now);
  }
  const approval = approvalCondition(crd.spec.group, crd.metadata?.annotations);
  if (approval) conditions = setCondition(conditions, approval, now);
  status.conditions = crd.metadata?.deletionTimestamp ? withTerminating(conditions, now) : conditions;
  const storage = crd.spec.versions.find((v) => v.storage)?.name;
  const stored = status.storedVersions ?? [];
  if (storage && !stored.includes(storage)) stored.push(storage);
  status.storedVersions = stored;
  return status;
}
