/**
 * The `scale` subresource of custom resources, after apiextensions-apiserver pkg/registry/customresource
 * (etcd.go ScaleREST, validator.go ValidateScaleSpec/Status) and the CRD-side path rules of
 * ValidateCustomResourceDefinitionSubresources. HPAs, `kubectl scale` and `kubectl get --subresource=scale`
 * read and write these objects, so their shape and kube's error messages are the contract.
 *
 * Paths are plain dotted paths (`.spec.replicas`), read and written like unstructured.NestedInt64 /
 * SetNestedField: no brackets, no escapes.
 */
import { jsonEqual } from '../machinery/canonical-json.js';
import { jsonValueName, unmarshalTypeError } from '../machinery/go-decode.js';
import { ownValue, setOwnValue } from '../machinery/own-properties.js';
import type { KubeObject, ScaleSubresource } from '../registry/types.js';
import { StatusError, badRequest, fieldErrors, internalError, type FieldError } from '../machinery/status.js';
import { goSprint, goTypeName, isGoInt } from './go-format.js';
import { validateSimpleJSONPath } from './printer-columns.js';
import { child, isPlainObject } from './types.js';

/** kube signals "the CR has no spec replicas yet" to a PATCH with the smallest int32 (invalidSpecReplicas). */
export const INVALID_SPEC_REPLICAS = -2147483648;
const MAX_INT32 = 2147483647;

const splitPath = (path: string) => path.replace(/^\./, '').split('.');
const dotted = (fields: string[]) => `.${fields.join('.')}`;

/**
 * A non-Status Go error reaching kube's handler: 500 with no reason and the bare message (what kube answers when an
 * unstructured accessor fails on a malformed object).
 */
function plainServerError(message: string): StatusError {
  return new StatusError(500, '', message);
}

/** unstructured.NestedFieldNoCopy: a null or missing step is "not found"; a non-map step is an error. */
function nestedField(obj: unknown, fields: string[]): { found: boolean; value?: unknown; error?: string } {
  let val: unknown = obj;
  for (let i = 0; i < fields.length; i++) {
    if (val === null || val === undefined) return { found: false };
    if (!isPlainObject(val)) {
      return {
        found: false,
        error: `${dotted(fields.slice(0, i + 1))} accessor error: ${goSprint(val)} is of the type ${goTypeName(val)}, expected map[string]interface{}`,
      };
    }
    const field = fields[i] ?? '';
    if (!Object.prototype.hasOwnProperty.call(val, field)) return { found: false };
    val = val[field];
  }
  return { found: true, value: val };
}

function nestedTyped(obj: unknown, path: string, want: 'int64' | 'string'): { found: boolean; value?: number | string; error?: string } {
  const fields = splitPath(path);
  const r = nestedField(obj, fields);
  if (r.error || !r.found) return r as { found: boolean; error?: string };
  const v = r.value;
  const ok = want === 'int64' ? typeof v === 'number' && isGoInt(v) : typeof v === 'string';
  if (!ok) return { found: false, error: `${dotted(fields)} accessor error: ${goSprint(v)} is of the type ${goTypeName(v)}, expected ${want}` };
  return { found: true, value: v as number | string };
}

/** scaleFromCustomResource: the Scale and whether spec replicas exist. Throws kube's plain 500 on a malformed object. */
function readScale(obj: KubeObject, spec: ScaleSubresource): { scale: KubeObject; specReplicasFound: boolean } {
  const specReplicas = nestedTyped(obj, spec.specReplicasPath, 'int64');
  if (specReplicas.error) throw plainServerError(specReplicas.error);
  const statusReplicas = nestedTyped(obj, spec.statusReplicasPath, 'int64');
  if (statusReplicas.error) throw plainServerError(statusReplicas.error);
  let selector = '';
  if (spec.labelSelectorPath) {
    const s = nestedTyped(obj, spec.labelSelectorPath, 'string');
    if (s.error) throw plainServerError(s.error);
    selector = (s.value as string | undefined) ?? '';
  }
  const meta = obj.metadata ?? {};
  const metadata: Record<string, unknown> = {};
  // ObjectMeta's JSON: strings are omitempty, creationTimestamp is always written (null when unset).
  if (meta.name) metadata.name = meta.name;
  if (meta.namespace) metadata.namespace = meta.namespace;
  if (meta.uid) metadata.uid = meta.uid;
  if (meta.resourceVersion) metadata.resourceVersion = meta.resourceVersion;
  metadata.creationTimestamp = meta.creationTimestamp ?? null;
  // Go converts with int32(): out-of-range values wrap, exactly like `| 0`.
  const replicas = ((specReplicas.value as number | undefined) ?? 0) | 0;
  const status: Record<string, unknown> = { replicas: ((statusReplicas.value as number | undefined) ?? 0) | 0 };
  if (selector) status.selector = selector;
  return {
    // autoscaling/v1 ScaleSpec.replicas is omitempty: zero replicas serialize as `spec: {}`.
    scale: { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata, spec: replicas === 0 ? {} : { replicas }, status },
    specReplicasFound: specReplicas.found,
  };
}

/** GET …/scale. A CR without spec replicas is kube's 500 `the spec replicas field ".spec.replicas" does not exist`. */
export function scaleFromObject(obj: KubeObject, spec: ScaleSubresource): KubeObject {
  const { scale, specReplicasFound } = readScale(obj, spec);
  if (!specReplicasFound) throw internalError(`the spec replicas field ${JSON.stringify(spec.specReplicasPath)} does not exist`);
  return scale;
}

/**
 * The Scale a PATCH is applied to (scaleUpdatedObjectInfo.UpdatedObject): like GET, but a CR without spec
 * replicas is not an error; its replicas read INVALID_SPEC_REPLICAS, so a patch that does not set them fails
 * with 400 in applyScaleToObject while one that does succeeds.
 */
export function scaleForUpdate(obj: KubeObject, spec: ScaleSubresource): KubeObject {
  const { scale, specReplicasFound } = readScale(obj, spec);
  if (!specReplicasFound) scale.spec = { replicas: INVALID_SPEC_REPLICAS };
  return scale;
}

/**
 * Go's decoding of the request body into autoscaling/v1 Scale: the fields kube reads must have their Go types,
 * else 400 `Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal …`.
 */
function decodeError(value: unknown, struct: string, field: string, goType: string): StatusError {
  const what = jsonValueName(value, goType === 'int32');
  return badRequest(`Scale in version "v1" cannot be handled as a Scale: ${unmarshalTypeError(what, struct, field, goType)}`);
}

function decodedReplicas(scale: KubeObject): number {
  const specValue = scale.spec;
  if (specValue === undefined || specValue === null) return 0;
  if (!isPlainObject(specValue)) throw decodeError(specValue, 'Scale', 'spec', 'v1.ScaleSpec');
  const r = specValue.replicas;
  if (r === undefined || r === null) return 0;
  if (typeof r !== 'number' || !Number.isInteger(r) || r < -2147483648 || r > MAX_INT32) {
    throw decodeError(r, 'ScaleSpec', 'spec.replicas', 'int32');
  }
  return r;
}

function metaString(scale: KubeObject, field: 'name' | 'namespace' | 'resourceVersion'): string {
  const meta: unknown = scale.metadata;
  if (meta === undefined || meta === null) return '';
  if (!isPlainObject(meta)) throw decodeError(meta, 'Scale', 'metadata', 'v1.ObjectMeta');
  const v = meta[field];
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw decodeError(v, 'ObjectMeta', `metadata.${field}`, 'string');
  return v;
}

/**
 * PUT/PATCH …/scale: the new custom resource (a copy of `obj`) with spec replicas set from `scale`. Applies, in
 * kube's order: the body's Go types, the handler's name/namespace check against the URL (the object's own name),
 * accessor errors on the stored object, the "cannot be empty" rule, then SetNestedField. The Scale's
 * resourceVersion, when set, becomes the update's precondition. Replica range rules (≥ 0, ≤ MaxInt32) are the
 * CR strategy's job: see validateScaleFields (cr-types.ts).
 */
export function applyScaleToObject(obj: KubeObject, scale: KubeObject, spec: ScaleSubresource): KubeObject {
  const replicas = decodedReplicas(scale);
  const name = metaString(scale, 'name');
  const namespace = metaString(scale, 'namespace');
  const resourceVersion = metaString(scale, 'resourceVersion');
  const urlName = obj.metadata?.name ?? '';
  const urlNamespace = obj.metadata?.namespace ?? '';
  // rest.EnsureObjectNamespaceMatchesRequestNamespace: empty is defaulted, cluster scope clears it.
  if (namespace && urlNamespace && namespace !== urlNamespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  // The handler's checkName.
  if (!name) throw badRequest(`the name of the object (${urlName} based on URL) was undeterminable: name must be provided`);
  if (name !== urlName) throw badRequest(`the name of the object (${name}) does not match the name on the URL (${urlName})`);
  readScale(obj, spec);
  if (replicas === INVALID_SPEC_REPLICAS) {
    throw badRequest(`the spec replicas field ${JSON.stringify(spec.specReplicasPath)} cannot be empty`);
  }
  const updated = structuredClone(obj);
  const fields = splitPath(spec.specReplicasPath);
  let m: Record<string, unknown> = updated;
  for (let i = 0; i < fields.length - 1; i++) {
    const field = fields[i] ?? '';
    const next = ownValue(m, field);
    if (next !== undefined && next !== null) {
      if (!isPlainObject(next)) throw plainServerError(`value cannot be set because ${dotted(fields.slice(0, i + 1))} is not a map[string]interface{}`);
      m = next;
    } else {
      const created: Record<string, unknown> = {};
      setOwnValue(m, field, created);
      m = created;
    }
  }
  setOwnValue(m, fields[fields.length - 1] ?? '', replicas);
  if (resourceVersion) updated.metadata = { ...updated.metadata, resourceVersion };
  return updated;
}

// ---------------------------------------------------------------------------------------------------------------
// Custom resource validation (every create/update of a CR whose version has a scale subresource)

function replicasErrors(obj: KubeObject, path: string): FieldError[] {
  const r = nestedTyped(obj, path, 'int64');
  // kube reports at field.NewPath(path): the path keeps its leading dot (`.spec.replicas: Invalid value: …`).
  if (r.error) return [fieldErrors.invalid(path, 0, r.error)];
  const n = (r.value as number | undefined) ?? 0;
  if (n < 0) return [fieldErrors.invalid(path, n, 'should be a non-negative integer')];
  if (n > MAX_INT32) return [fieldErrors.invalid(path, n, `should be less than or equal to ${MAX_INT32}`)];
  return [];
}

/** ValidateScaleSpec: spec replicas, when present, is an int64 in [0, MaxInt32]. */
export function validateScaleSpecFields(obj: KubeObject, spec: ScaleSubresource | undefined): FieldError[] {
  return spec ? replicasErrors(obj, spec.specReplicasPath) : [];
}

/** ValidateScaleStatus: status replicas like spec replicas, and the label selector, when present, is a string. */
export function validateScaleStatusFields(obj: KubeObject, spec: ScaleSubresource | undefined): FieldError[] {
  if (!spec) return [];
  const errs = replicasErrors(obj, spec.statusReplicasPath);
  if (spec.labelSelectorPath !== undefined) {
    const s = nestedTyped(obj, spec.labelSelectorPath, 'string');
    if (s.error) errs.push(fieldErrors.invalid(spec.labelSelectorPath, '', s.error));
  }
  return errs;
}

/**
 * What kube's CR strategy adds on create and update (its status updates check status alone: here spec replicas are
 * checked where they differ from `old`'s, which a status write never makes them).
 */
export function validateScaleFields(obj: KubeObject, spec: ScaleSubresource | undefined, old?: KubeObject): FieldError[] {
  if (!spec) return [];
  const specChanged = !old || !jsonEqual(nestedTyped(obj, spec.specReplicasPath, 'int64'), nestedTyped(old, spec.specReplicasPath, 'int64'));
  return [...(specChanged ? validateScaleSpecFields(obj, spec) : []), ...validateScaleStatusFields(obj, spec)];
}

// ---------------------------------------------------------------------------------------------------------------
// CRD side

/**
 * The scale part of ValidateCustomResourceDefinitionSubresources for `subresources` at `subresourcesPath`
 * (`spec.subresources` or `spec.versions[i].subresources`, see crd-version-fields.ts).
 */
export function validateScaleSubresource(subresources: unknown, subresourcesPath: string): FieldError[] {
  if (!isPlainObject(subresources) || !isPlainObject(subresources.scale)) return [];
  const scale = subresources.scale;
  const errs: FieldError[] = [];
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  const checkUnder = (key: string, path: string, prefixes: string[], message: string) => {
    const fp = child(child(subresourcesPath, 'scale'), key);
    if (!path) return errs.push(fieldErrors.required(fp));
    const simple = validateSimpleJSONPath(path, fp);
    if (simple.length > 0) return errs.push(...simple);
    if (!prefixes.some((p) => path.startsWith(p))) errs.push(fieldErrors.invalid(fp, path, message));
  };
  checkUnder('specReplicasPath', str(scale.specReplicasPath), ['.spec.'], 'should be a json path under .spec');
  checkUnder('statusReplicasPath', str(scale.statusReplicasPath), ['.status.'], 'should be a json path under .status');
  const selector = str(scale.labelSelectorPath);
  // An empty labelSelectorPath counts as unset.
  if (selector) checkUnder('labelSelectorPath', selector, ['.spec.', '.status.'], 'should be a json path under either .spec or .status');
  return errs;
}
