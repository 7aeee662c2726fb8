/**
 * v1alpha1 ↔ v1alpha2 conversion of APIExports and APIBindings (v1alpha2 is stored), with kcp's rules:
 * - APIExport `latestResourceSchemas` (`<prefix>.<resource>.<group>`) ↔ `resources` {name, group, schema, storage crd};
 * - permission claims: v1alpha1 `all` ↔ v1alpha2 verbs `["*"]` (and, on bindings, `selector.matchAll`);
 * - what one version cannot express travels in annotations so a round trip loses nothing: v1alpha2 resources
 *   (`apis.v1alpha2.kcp.io/resource-schemas`) and claims with other verbs (`…/permission-claims`) on the v1alpha1
 *   object, v1alpha1 claims with resourceSelectors (`…/v1alpha1-permission-claims`) on the stored v1alpha2 object.
 */
import type { KubeObject } from '../registry/types.js';
import {
  APIS_GROUP,
  PERMISSION_CLAIMS_ANNOTATION,
  RESOURCE_SCHEMAS_ANNOTATION,
  V1ALPHA1_PERMISSION_CLAIMS_ANNOTATION,
} from './names.js';
import type { ExportResource } from './types.js';

type Claim = Record<string, unknown> & { group?: string; resource?: string; identityHash?: string };
type Spec = Record<string, unknown>;

const V1 = `${APIS_GROUP}/v1alpha1`;
const V2 = `${APIS_GROUP}/v1alpha2`;

const claimKey = (c: Claim) => `${c.group ?? ''}/${c.resource ?? ''}/${c.identityHash ?? ''}`;

function readAnnotation<T>(obj: KubeObject, name: string): T | undefined {
  const raw = obj.metadata?.annotations?.[name];
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return undefined;
  }
}

function setAnnotation(obj: KubeObject, name: string, value: unknown | undefined): void {
  const meta = (obj.metadata ??= {});
  const annotations = { ...(meta.annotations ?? {}) };
  if (value === undefined) delete annotations[name];
  else annotations[name] = JSON.stringify(value);
  if (Object.keys(annotations).length > 0) meta.annotations = annotations;
  else delete meta.annotations;
}

/** `<prefix>.<resource>.<group>` → the v1alpha2 resource (resource = 2nd dot segment, group = the rest). */
export function resourceFromSchemaName(schema: string): ExportResource {
  const parts = schema.split('.');
  return { name: parts[1] ?? '', group: parts.slice(2).join('.'), schema, storage: { crd: {} } };
}

const representable = (r: ExportResource) => {
  const derived = resourceFromSchemaName(r.schema);
  return !r.storage?.virtual && derived.name === r.name && derived.group === (r.group ?? '');
};

function claimToV1(c: Claim, binding: boolean): Claim {
  const { verbs: _verbs, selector, ...rest } = c as Claim & { verbs?: string[]; selector?: { matchAll?: boolean } };
  void _verbs;
  const out: Claim = { ...rest, all: true };
  if (binding && selector && !selector.matchAll) delete out.all;
  return out;
}

function claimToV2(c: Claim, binding: boolean): Claim {
  const { all: _all, resourceSelector: _selector, ...rest } = c as Claim & { all?: boolean; resourceSelector?: unknown };
  void _all;
  void _selector;
  return { ...rest, verbs: ['*'], ...(binding ? { selector: { matchAll: true } } : {}) };
}

const exact = (c: Claim) => {
  const verbs = (c as { verbs?: string[] }).verbs;
  const selector = (c as { selector?: Record<string, unknown> }).selector;
  const matchAllOnly = !selector || (selector.matchAll === true && Object.keys(selector).length === 1);
  return verbs?.length === 1 && verbs[0] === '*' && matchAllOnly;
};

/** Claims of a v1alpha2 list as v1alpha1; those v1alpha1 cannot express are returned for the annotation. */
function claimsToV1(claims: Claim[] | undefined, binding: boolean, restore: Claim[] | undefined) {
  if (!claims) return { claims: undefined, lossy: undefined };
  const originals = new Map((restore ?? []).map((c) => [claimKey(c), c]));
  const lossy = claims.filter((c) => !exact(c));
  const out = claims.map((c) => (exact(c) && originals.has(claimKey(c)) ? originals.get(claimKey(c))! : claimToV1(c, binding)));
  return { claims: out, lossy: lossy.length > 0 ? lossy : undefined };
}

/** Claims of a v1alpha1 list as v1alpha2, restoring verbs kept in the annotation; v1alpha1-only forms are returned. */
function claimsToV2(claims: Claim[] | undefined, binding: boolean, restore: Claim[] | undefined) {
  if (!claims) return { claims: undefined, v1only: undefined };
  const originals = new Map((restore ?? []).map((c) => [claimKey(c), c]));
  const v1only = claims.filter((c) => (c as { all?: boolean }).all !== true || (c as { resourceSelector?: unknown }).resourceSelector);
  const out = claims.map((c) => {
    const kept = originals.get(claimKey(c));
    if (kept) return { ...kept, ...(binding && (c as { state?: string }).state ? { state: (c as { state?: string }).state } : {}) };
    return claimToV2(c, binding);
  });
  return { claims: out, v1only: v1only.length > 0 ? v1only : undefined };
}

/** Converts the permissionClaims lists of a spec or status in place. */
function convertClaimLists(
  obj: KubeObject,
  lists: Array<[Spec | undefined, string]>,
  binding: boolean,
  toV1: boolean,
): void {
  const lossy: Claim[] = [];
  const restoreV2 = readAnnotation<Claim[]>(obj, PERMISSION_CLAIMS_ANNOTATION);
  const restoreV1 = readAnnotation<Claim[]>(obj, V1ALPHA1_PERMISSION_CLAIMS_ANNOTATION);
  for (const [holder, field] of lists) {
    if (!holder || !(field in holder)) continue;
    if (toV1) {
      const converted = claimsToV1(holder[field] as Claim[], binding, restoreV1);
      holder[field] = converted.claims;
      if (holder === obj.spec) lossy.push(...(converted.lossy ?? []));
    } else {
      const converted = claimsToV2(holder[field] as Claim[], binding, restoreV2);
      holder[field] = converted.claims;
      if (holder === obj.spec) lossy.push(...(converted.v1only ?? []));
    }
  }
  setAnnotation(obj, toV1 ? V1ALPHA1_PERMISSION_CLAIMS_ANNOTATION : PERMISSION_CLAIMS_ANNOTATION, undefined);
  setAnnotation(obj, toV1 ? PERMISSION_CLAIMS_ANNOTATION : V1ALPHA1_PERMISSION_CLAIMS_ANNOTATION, lossy.length > 0 ? lossy : undefined);
}

export function exportToV1alpha1(stored: KubeObject): KubeObject {
  const obj = structuredClone(stored);
  obj.apiVersion = V1;
  const spec = (obj.spec ?? undefined) as Spec | undefined;
  if (spec && Array.isArray(spec.resources)) {
    const resources = spec.resources as ExportResource[];
    spec.latestResourceSchemas = resources.map((r) => r.schema);
    delete spec.resources;
    setAnnotation(obj, RESOURCE_SCHEMAS_ANNOTATION, resources.every(representable) ? undefined : resources);
  }
  convertClaimLists(obj, [[spec, 'permissionClaims']], false, true);
  return obj;
}

export function exportToV1alpha2(served: KubeObject): KubeObject {
  if (served.apiVersion === V2) return served;
  const obj = structuredClone(served);
  obj.apiVersion = V2;
  const spec = (obj.spec ?? undefined) as Spec | undefined;
  if (spec && Array.isArray(spec.latestResourceSchemas)) {
    const kept = new Map((readAnnotation<ExportResource[]>(obj, RESOURCE_SCHEMAS_ANNOTATION) ?? []).map((r) => [r.schema, r]));
    spec.resources = (spec.latestResourceSchemas as string[]).map((name) => kept.get(name) ?? resourceFromSchemaName(name));
    delete spec.latestResourceSchemas;
  }
  setAnnotation(obj, RESOURCE_SCHEMAS_ANNOTATION, undefined);
  convertClaimLists(obj, [[spec, 'permissionClaims']], false, false);
  return obj;
}

function bindingClaimLists(obj: KubeObject): Array<[Spec | undefined, string]> {
  const spec = (obj.spec ?? undefined) as Spec | undefined;
  const status = (obj.status ?? undefined) as Spec | undefined;
  return [
    [spec, 'permissionClaims'],
    [status, 'appliedPermissionClaims'],
    [status, 'exportPermissionClaims'],
  ];
}

export function bindingToV1alpha1(stored: KubeObject): KubeObject {
  const obj = structuredClone(stored);
  obj.apiVersion = V1;
  convertClaimLists(obj, bindingClaimLists(obj), true, true);
  return obj;
}

export function bindingToV1alpha2(served: KubeObject): KubeObject {
  if (served.apiVersion === V2) return served;
  const obj = structuredClone(served);
  obj.apiVersion = V2;
  convertClaimLists(obj, bindingClaimLists(obj), true, false);
  return obj;
}
