/**
 * Namespace policy (pkg/registry/core/namespace): the `kubernetes` finalizer and phase Active on create, the
 * `kubernetes.io/metadata.name` label always equal to the name, spec.finalizers changed only through /finalize (which
 * the generic store implements), Terminating while spec.finalizers remain after a DELETE.
 */
import { fieldErrors, type FieldError } from '../../machinery/status.js';
import type { KubeObject, Strategy, TablePrinter } from '../../registry/types.js';
import { ageColumn, ageOf, column, nameColumn, nameOf } from '../printing.js';
import { record, str } from '../../machinery/field-values.js';
import { isQualifiedName } from '../value-rules.js';

export const namespaceNameLabel = 'kubernetes.io/metadata.name';
export const kubernetesFinalizer = 'kubernetes';
const standardFinalizers = new Set([kubernetesFinalizer, 'orphan', 'foregroundDeletion']);

function spec(obj: KubeObject): Record<string, unknown> {
  const s = record(obj.spec);
  obj.spec = s;
  return s;
}

function specFinalizers(obj: KubeObject): string[] {
  const f = record(obj.spec).finalizers;
  return Array.isArray(f) ? f.map(String) : [];
}

/** Forced on every write (kube's defaulting + Canonicalize), so a label selector on the name always works. */
function forceNameLabel(obj: KubeObject): void {
  const meta = (obj.metadata ??= {});
  if (!meta.name) return;
  meta.labels = { ...(meta.labels ?? {}), [namespaceNameLabel]: meta.name };
}

/** Finalizer names: qualified names, and a bare name must be one kube knows. */
function validateFinalizerName(name: string, path: string): FieldError[] {
  const errs = isQualifiedName(name).map((m) => fieldErrors.invalid(path, name, m));
  if (!name.includes('/') && !standardFinalizers.has(name)) {
    errs.push(fieldErrors.invalid(path, name, 'name is neither a standard finalizer name nor is it fully qualified'));
  }
  return errs;
}

/** Status rules of PUT …/status: the phase must agree with deletionTimestamp (field path spelled as kube does). */
function validateNamespaceStatus(obj: KubeObject): FieldError[] {
  const phase = str(record(obj.status).phase);
  if (!obj.metadata?.deletionTimestamp) {
    if (phase !== 'Active') {
      return [fieldErrors.invalid('status.Phase', phase, "may only be 'Active' if `deletionTimestamp` is empty")];
    }
  } else if (phase !== 'Terminating') {
    return [fieldErrors.invalid('status.Phase', phase, "may only be 'Terminating' if `deletionTimestamp` is not empty")];
  }
  return [];
}

export const namespaceStrategy: Strategy = {
  hasStatusSubresource: true,
  allowUnconditionalUpdate: true,
  nameValidation: 'label',
  defaults(obj) {
    const status = record(obj.status);
    if (!status.phase) obj.status = { ...status, phase: 'Active' };
    forceNameLabel(obj);
  },
  prepareForCreate(obj) {
    // Whatever the client sent, a new namespace is Active and carries the finalizer the namespace controller removes.
    obj.status = { phase: 'Active' };
    const s = spec(obj);
    const finalizers = specFinalizers(obj);
    if (!finalizers.includes(kubernetesFinalizer)) finalizers.push(kubernetesFinalizer);
    s.finalizers = finalizers;
    forceNameLabel(obj);
  },
  prepareForUpdate(obj, old) {
    // spec.finalizers belong to /finalize and status to /status.
    const oldFinalizers = record(old.spec).finalizers;
    const s = spec(obj);
    if (oldFinalizers === undefined) delete s.finalizers;
    else s.finalizers = structuredClone(oldFinalizers);
    if (old.status === undefined) delete obj.status;
    else obj.status = structuredClone(old.status);
    forceNameLabel(obj);
  },
  validate(obj) {
    // kube reports these against `spec.finalizers` without an index (the /finalize path indexes them).
    return specFinalizers(obj).flatMap((f) => validateFinalizerName(f, 'spec.finalizers'));
  },
  validateUpdate(obj, old) {
    // Only a status write can change status (main-resource writes keep the stored one).
    return JSON.stringify(obj.status) === JSON.stringify(old.status) ? [] : validateNamespaceStatus(obj);
  },
  deletionBlockers: (obj) => specFinalizers(obj),
  prepareForDelete(obj) {
    obj.status = { ...record(obj.status), phase: 'Terminating' };
  },
};

export const namespacePrinter: TablePrinter = {
  columns: [nameColumn, column('Status', 'The status of the namespace'), ageColumn],
  cells: (obj, now) => [nameOf(obj), str(record(obj.status).phase), ageOf(obj, now)],
};

export const namespaceFieldSelectors: Record<string, (obj: KubeObject) => string> = {
  'status.phase': (obj) => str(record(obj.status).phase),
  // kube keeps this misspelling of metadata.name for backward compatibility.
  name: (obj) => nameOf(obj),
};
