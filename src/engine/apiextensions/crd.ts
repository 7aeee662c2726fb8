/**
 * The CustomResourceDefinition object as kcpt reads it, and the status rules kube's apiextensions controllers
 * apply: accepted names (with kube's conflict reasons), the NamesAccepted / Established / Terminating conditions
 * and storedVersions. kcpt computes them synchronously on every CRD write, so a CRD is Established in the answer
 * to its own create, and re-evaluates its neighbours when one of them changes (crd-controller.ts).
 */
import type { KubeObject } from '../registry/types.js';
import type { JSONSchemaProps } from './types.js';

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

export interface PrinterColumnSpec {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
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
  additionalPrinterColumns?: PrinterColumnSpec[];
  selectableFields?: { jsonPath: string }[];
}

export interface CRDCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
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

/**
 * kube's naming controller: the requested names must not collide with names other CRDs of the same group already
 * hold (plural, singular and short names share one namespace; kind and listKind another).
 */
export function findNameConflict(requested: CRDNames, others: CustomResourceDefinition[]): NameConflict | undefined {
  const resources = new Set<string>();
  const kinds = new Set<string>();
  for (const other of others) {
    const accepted = other.status?.acceptedNames;
    if (!accepted) continue;
    for (const n of [accepted.plural, accepted.singular, ...(accepted.shortNames ?? [])]) if (n) resources.add(n);
    for (const n of [accepted.kind, accepted.listKind]) if (n) kinds.add(n);
  }
  const inUse = (n: string) => ({ message: `"${n}" is already in use` });
  if (resources.has(requested.plural)) return { reason: 'PluralConflict', ...inUse(requested.plural) };
  if (requested.singular && resources.has(requested.singular)) return { reason: 'SingularConflict', ...inUse(requested.singular) };
  for (const s of requested.shortNames ?? []) if (resources.has(s)) return { reason: 'ShortNamesConflict', ...inUse(s) };
  if (kinds.has(requested.kind)) return { reason: 'KindConflict', ...inUse(requested.kind) };
  if (requested.listKind && kinds.has(requested.listKind)) return { reason: 'ListKindConflict', ...inUse(requested.listKind) };
  return undefined;
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
  const requested = crd.spec.names;
  const conflict = findNameConflict(requested, sameGroup);
  const wasEstablished = conditions.some((c) => c.type === 'Established' && c.status === 'True');
  if (conflict) {
    conditions = setCondition(conditions, { type: 'NamesAccepted', status: 'False', reason: conflict.reason, message: conflict.message }, now);
  } else {
    status.acceptedNames = { ...requested };
    if (!status.acceptedNames.shortNames?.length) delete status.acceptedNames.shortNames;
    if (!status.acceptedNames.categories?.length) delete status.acceptedNames.categories;
    conditions = setCondition(conditions, { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' }, now);
  }
  if (!conflict || wasEstablished) {
    conditions = setCondition(
      conditions,
      { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' },
      now,
    );
  } else {
    conditions = setCondition(conditions, { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' }, now);
  }
  status.conditions = crd.metadata?.deletionTimestamp ? withTerminating(conditions, now) : conditions;
  status.acceptedNames ??= { plural: '', kind: '' };
  const storage = crd.spec.versions.find((v) => v.storage)?.name;
  const stored = status.storedVersions ?? [];
  if (storage && !stored.includes(storage)) stored.push(storage);
  status.storedVersions = stored;
  return status;
}
