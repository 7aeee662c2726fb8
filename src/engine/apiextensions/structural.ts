/**
 * Structural schema rules for CRD `openAPIV3Schema` (apiextensions-apiserver pkg/apiserver/schema/validation.go and
 * the schema part of pkg/apis/apiextensions/validation/validation.go), plus the CRD-level spec rules kubectl users
 * hit. Pure functions returning kube-shaped field errors.
 */
import { fieldErrors, type FieldError } from '../machinery/status.js';
import { isDNS1035Label } from '../machinery/validation.js';
import { compileCRSchema } from './cr-validator.js';
import { validateCRDVersionFields } from './crd-version-fields.js';
import { prune } from './prune.js';
import { child, index, isPlainObject, key, type JSONSchemaProps } from './types.js';

type Level = 'root' | 'item' | 'field';

const VALID_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const SCALAR_TYPES = new Set(['boolean', 'integer', 'number', 'string']);
const JUNCTORS = ['allOf', 'anyOf', 'oneOf'] as const;

/** Validate a CRD version's `openAPIV3Schema` at `fieldPath` (e.g. `spec.versions[0].schema.openAPIV3Schema`). */
export function validateStructuralSchema(schema: unknown, fieldPath: string): FieldError[] {
  if (!isPlainObject(schema)) return [fieldErrors.required(fieldPath, 'schemas are required')];
  const errs: FieldError[] = [];
  validateNode(schema as JSONSchemaProps, 'root', fieldPath, errs);
  return errs;
}

function validateNode(s: JSONSchemaProps, lvl: Level, p: string, errs: FieldError[]): void {
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = s['x-kubernetes-embedded-resource'] === true;

  if (s.type !== undefined && !VALID_TYPES.includes(s.type)) {
    errs.push(fieldErrors.notSupported(child(p, 'type'), s.type, VALID_TYPES));
  }
  if (s.type === 'array' && s.items === undefined) errs.push(fieldErrors.required(child(p, 'items'), 'must be specified'));
  if (s.items !== undefined) {
    if (Array.isArray(s.items) || !isPlainObject(s.items)) {
      errs.push(fieldErrors.forbidden(child(p, 'items'), 'items must be a schema object and not an array'));
    } else validateNode(s.items, 'item', child(p, 'items'), errs);
  }
  if (s.properties !== undefined) {
    for (const [k, v] of Object.entries(s.properties)) {
      if (isPlainObject(v)) validateNode(v as JSONSchemaProps, 'field', key(child(p, 'properties'), k), errs);
    }
  }
  const ap = s.additionalProperties;
  if (ap !== undefined) {
    if (s.properties !== undefined && Object.keys(s.properties).length > 0) {
      errs.push(fieldErrors.forbidden(child(p, 'additionalProperties'), 'additionalProperties and properties are mutual exclusive'));
    }
    if (ap === false) {
      errs.push(fieldErrors.forbidden(child(p, 'additionalProperties'), 'additionalProperties cannot be set to false'));
    } else if (isPlainObject(ap)) {
      if (preserve) {
        errs.push(fieldErrors.forbidden(child(p, 'additionalProperties'), 'must not be used if x-kubernetes-preserve-unknown-fields is true'));
      }
      validateNode(ap as JSONSchemaProps, 'field', child(p, 'additionalProperties'), errs);
    }
    if (embedded) {
      errs.push(fieldErrors.forbidden(child(p, 'additionalProperties'), 'must not be used if x-kubernetes-embedded-resource is set'));
    }
  }

  if (intOrString && s.type !== undefined && s.type !== '') {
    errs.push(fieldErrors.invalid(child(p, 'type'), s.type, 'must be empty if x-kubernetes-int-or-string is true'));
  }
  if (embedded && s.type !== 'object') {
    if (!s.type) errs.push(fieldErrors.required(child(p, 'type'), 'must be object if x-kubernetes-embedded-resource is true'));
    else errs.push(fieldErrors.invalid(child(p, 'type'), s.type, 'must be object if x-kubernetes-embedded-resource is true'));
  } else if (!s.type && !embedded && !intOrString && !preserve) {
    const detail =
      lvl === 'root'
        ? 'must not be empty at the root'
        : lvl === 'item'
          ? 'must not be empty for specified array items'
          : 'must not be empty for specified object fields';
    errs.push(fieldErrors.required(child(p, 'type'), detail));
  }
  if (lvl === 'root' && s.type && s.type !== 'object') {
    errs.push(fieldErrors.invalid(child(p, 'type'), s.type, 'must be object at the root'));
  }
  if (embedded && !preserve && (!s.properties || Object.keys(s.properties).length === 0)) {
    errs.push(
      fieldErrors.required(
        child(p, 'properties'),
        'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
      ),
    );
  }

  // apiVersion/kind/metadata invariants.
  const props = s.properties ?? {};
  if (lvl === 'root' || embedded) {
    for (const f of ['kind', 'apiVersion']) {
      const sub = props[f];
      if (isPlainObject(sub) && sub.type !== 'string') {
        errs.push(fieldErrors.invalid(child(key(child(p, 'properties'), f), 'type'), sub.type ?? '', 'must be string'));
      }
    }
  }
  const metadata = props.metadata;
  if (isPlainObject(metadata) && (lvl === 'root' || embedded)) {
    const mp = key(child(p, 'properties'), 'metadata');
    if (metadata.type !== 'object') errs.push(fieldErrors.invalid(child(mp, 'type'), metadata.type ?? '', 'must be object'));
    if (lvl === 'root') {
      const rest = Object.keys(metadata).filter((k) => k !== 'type' && k !== 'properties');
      const restProps = Object.keys(metadata.properties ?? {}).filter((k) => k !== 'name' && k !== 'generateName');
      if (rest.length > 0 || restProps.length > 0) {
        errs.push(
          fieldErrors.forbidden(mp, 'must not specify anything other than name and generateName, but metadata is implicitly specified'),
        );
      }
      for (const f of ['name', 'generateName']) {
        const sub = metadata.properties?.[f];
        if (isPlainObject(sub) && sub.type !== 'string') {
          errs.push(fieldErrors.invalid(child(key(child(mp, 'properties'), f), 'type'), sub.type ?? '', 'must be string'));
        }
      }
    }
  }

  validatePattern(s, p, errs);
  validateListType(s, p, errs);
  if (s.default !== undefined) validateDefault(s, lvl, p, errs);
  const mapType = s['x-kubernetes-map-type'];
  if (mapType !== undefined) {
    if (mapType !== 'granular' && mapType !== 'atomic') {
      errs.push(fieldErrors.notSupported(child(p, 'x-kubernetes-map-type'), mapType, ['granular', 'atomic']));
    } else if (s.type && s.type !== 'object') {
      errs.push(fieldErrors.invalid(child(p, 'type'), s.type, 'must be object if x-kubernetes-map-type is specified'));
    }
  }

  // Value validations (logical junctors).
  for (const j of JUNCTORS) {
    const list = s[j];
    if (list === undefined) continue;
    if (!Array.isArray(list)) continue;
    if (j === 'anyOf' && intOrString && isIntOrStringAnyOf(list)) continue;
    list.forEach((sub, i) => {
      if (isPlainObject(sub)) validateNested(sub as JSONSchemaProps, s, index(child(p, j), i), errs);
    });
  }
  if (isPlainObject(s.not)) validateNested(s.not as JSONSchemaProps, s, child(p, 'not'), errs);
}

/**
 * A `default` must survive pruning unchanged and validate against its own node (kube checks both, so a default
 * can never produce an invalid or pruned object).
 */
function validateDefault(s: JSONSchemaProps, lvl: Level, p: string, errs: FieldError[]): void {
  const dp = child(p, 'default');
  if (lvl === 'root') {
    errs.push(fieldErrors.forbidden(dp, 'must not be set at the root'));
    return;
  }
  const d = s.default;
  if (d === null) {
    if (s.nullable !== true) errs.push(fieldErrors.invalid(dp, d, 'must not be null for non-nullable schema'));
    return;
  }
  if (isPlainObject(d) || Array.isArray(d)) {
    const wrapper = { v: structuredClone(d) };
    const pruned = prune(wrapper, { type: 'object', properties: { v: s } });
    if (pruned.length > 0) {
      errs.push(fieldErrors.invalid(dp, d, `must not have unknown fields: ${pruned.map((x) => x.replace(/^v\.?/, '')).join(', ')}`));
      return;
    }
  }
  let compiled;
  try {
    compiled = compileCRSchema(s);
  } catch {
    return; // an uncompilable schema is reported by the other rules
  }
  for (const e of compiled.validate(d)) {
    errs.push({ ...e, field: e.field ? `${dp}.${e.field}` : dp });
  }
}

function validatePattern(s: JSONSchemaProps, p: string, errs: FieldError[]): void {
  if (s.pattern === undefined) return;
  try {
    new RegExp(s.pattern, 'u');
  } catch (e) {
    errs.push(
      fieldErrors.invalid(child(p, 'pattern'), s.pattern, `must be a valid regular expression, but isn't: ${(e as Error).message}`),
    );
  }
}

function isIntOrStringAnyOf(list: unknown[]): boolean {
  if (list.length !== 2) return false;
  const types = list.map((x) => (isPlainObject(x) ? x.type : undefined));
  return types.includes('integer') && types.includes('string');
}

function validateListType(s: JSONSchemaProps, p: string, errs: FieldError[]): void {
  const lt = s['x-kubernetes-list-type'];
  const keys = s['x-kubernetes-list-map-keys'];
  if (lt !== undefined) {
    if (!['atomic', 'set', 'map'].includes(lt)) {
      errs.push(fieldErrors.notSupported(child(p, 'x-kubernetes-list-type'), lt, ['atomic', 'set', 'map']));
    } else if (s.type !== 'array') {
      errs.push(fieldErrors.invalid(child(p, 'type'), s.type ?? '', 'must be array if x-kubernetes-list-type is specified'));
    }
  }
  if (keys !== undefined && lt !== 'map') {
    errs.push(fieldErrors.forbidden(child(p, 'x-kubernetes-list-map-keys'), 'must only be set if x-kubernetes-list-type is map'));
  }
  const items = isPlainObject(s.items) ? (s.items as JSONSchemaProps) : undefined;
  if (lt === 'set' && items && items.type && !SCALAR_TYPES.has(items.type) && items['x-kubernetes-map-type'] !== 'atomic' && items['x-kubernetes-list-type'] !== 'atomic') {
    errs.push(
      fieldErrors.invalid(child(child(p, 'items'), 'type'), items.type, 'must be a scalar type if parent array\'s x-kubernetes-list-type is set'),
    );
  }
  if (lt === 'map' && s.type === 'array') {
    if (!keys || keys.length === 0) {
      errs.push(fieldErrors.required(child(p, 'x-kubernetes-list-map-keys'), 'must not be empty if x-kubernetes-list-type is map'));
    }
    if (items && items.type !== 'object') {
      errs.push(
        fieldErrors.invalid(child(child(p, 'items'), 'type'), items.type ?? '', "must be object if parent array's x-kubernetes-list-type is map"),
      );
    } else if (items && keys) {
      if (new Set(keys).size !== keys.length) {
        errs.push(fieldErrors.invalid(child(p, 'x-kubernetes-list-map-keys'), keys, 'must not contain duplicate entries'));
      }
      const props = items.properties ?? {};
      if (keys.some((k) => !(k in props))) {
        errs.push(fieldErrors.invalid(child(p, 'x-kubernetes-list-map-keys'), keys, 'entries must all be names of item properties'));
      }
      for (const k of keys) {
        const kp = props[k];
        if (!kp) continue;
        const kpath = key(child(child(p, 'items'), 'properties'), k);
        if (!kp['x-kubernetes-int-or-string'] && !(kp.type && SCALAR_TYPES.has(kp.type))) {
          errs.push(fieldErrors.invalid(child(kpath, 'type'), kp.type ?? '', "must be a scalar type if parent array's x-kubernetes-list-type is map"));
        }
        if (!(items.required ?? []).includes(k) && kp.default === undefined) {
          errs.push(fieldErrors.required(kpath, 'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property'));
        }
      }
    }
  }
}

/** Inside allOf/anyOf/oneOf/not: only value validations, and only on fields the structural part declares. */
function validateNested(v: JSONSchemaProps, structural: JSONSchemaProps | undefined, p: string, errs: FieldError[]): void {
  const mustBeEmpty: [string, string][] = [
    ['type', 'must be empty to be structural'],
    ['description', 'must be empty to be structural'],
    ['title', 'must be empty to be structural'],
    ['default', 'must be undefined to be structural'],
    ['additionalProperties', 'must be undefined to be structural'],
    ['x-kubernetes-list-type', 'must be undefined to be structural'],
    ['x-kubernetes-list-map-keys', 'must be undefined to be structural'],
    ['x-kubernetes-map-type', 'must be undefined to be structural'],
  ];
  for (const [k, msg] of mustBeEmpty) {
    if (v[k] !== undefined && v[k] !== '') errs.push(fieldErrors.forbidden(child(p, k), msg));
  }
  validatePattern(v, p, errs);
  for (const k of ['nullable', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-embedded-resource', 'x-kubernetes-int-or-string']) {
    if (v[k] === true) errs.push(fieldErrors.forbidden(child(p, k), 'must be false to be structural'));
  }
  if (v.properties) {
    for (const [k, sub] of Object.entries(v.properties)) {
      const kp = key(child(p, 'properties'), k);
      const sp = structural?.properties?.[k];
      const apSchema = isPlainObject(structural?.additionalProperties) ? (structural!.additionalProperties as JSONSchemaProps) : undefined;
      if (k === 'metadata' && !structural?.['x-kubernetes-embedded-resource']) {
        errs.push(fieldErrors.forbidden(kp, 'must not be specified in a nested context'));
      }
      if (!sp && !apSchema && structural?.['x-kubernetes-preserve-unknown-fields'] !== true) {
        errs.push(fieldErrors.required(child(kp, 'type'), 'must not be empty for specified object fields'));
      }
      if (isPlainObject(sub)) validateNested(sub as JSONSchemaProps, sp ?? apSchema, kp, errs);
    }
  }
  if (isPlainObject(v.items)) {
    if (!structural?.items && structural?.['x-kubernetes-preserve-unknown-fields'] !== true) {
      errs.push(fieldErrors.required(child(child(p, 'items'), 'type'), 'must not be empty for specified array items'));
    }
    validateNested(v.items as JSONSchemaProps, structural?.items, child(p, 'items'), errs);
  }
  for (const j of JUNCTORS) {
    const list = v[j];
    if (Array.isArray(list)) {
      list.forEach((sub, i) => {
        if (isPlainObject(sub)) validateNested(sub as JSONSchemaProps, structural, index(child(p, j), i), errs);
      });
    }
  }
  if (isPlainObject(v.not)) validateNested(v.not as JSONSchemaProps, structural, child(p, 'not'), errs);
}

// ---------------------------------------------------------------------------------------------------------------
// CRD spec

export interface CRDLike {
  metadata?: { name?: string; annotations?: Record<string, string> };
  spec?: {
    group?: string;
    scope?: string;
    names?: { plural?: string; singular?: string; kind?: string; listKind?: string; shortNames?: string[]; categories?: string[] };
    versions?: {
      name?: string;
      served?: boolean;
      storage?: boolean;
      schema?: { openAPIV3Schema?: unknown };
      subresources?: unknown;
      additionalPrinterColumns?: unknown;
      selectableFields?: unknown;
    }[];
    conversion?: { strategy?: string; webhook?: unknown };
  };
}

const APPROVAL_ANNOTATION = 'api-approved.kubernetes.io';

/** Groups under the kube protected domains need the approval annotation (KEP-1111). */
export function isProtectedGroup(group: string): boolean {
  return group === 'k8s.io' || group.endsWith('.k8s.io') || group === 'kubernetes.io' || group.endsWith('.kubernetes.io');
}

/** CRD create/update validation (the rules of apiextensions validation.go kubectl users actually hit). */
export function validateCRDSpec(crd: CRDLike): FieldError[] {
  const errs: FieldError[] = [];
  const spec = crd.spec ?? {};
  const names = spec.names ?? {};
  const group = spec.group ?? '';
  const name = crd.metadata?.name ?? '';

  if (name !== `${names.plural ?? ''}.${group}`) {
    errs.push(fieldErrors.invalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));
  }
  if (isProtectedGroup(group)) {
    const v = crd.metadata?.annotations?.[APPROVAL_ANNOTATION];
    if (!v) {
      errs.push(
        fieldErrors.required(
          `metadata.annotations[${APPROVAL_ANNOTATION}]`,
          `protected groups must have approval annotation "${APPROVAL_ANNOTATION}", see https://github.com/kubernetes/enhancements/pull/1111`,
        ),
      );
    }
  }

  if (!group) errs.push(fieldErrors.required('spec.group', ''));
  else if (group.split('.').length < 2) errs.push(fieldErrors.invalid('spec.group', group, 'should be a domain with at least one dot'));

  if (!spec.scope) errs.push(fieldErrors.required('spec.scope', ''));
  else if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') {
    errs.push(fieldErrors.notSupported('spec.scope', spec.scope, ['Cluster', 'Namespaced']));
  }

  errs.push(...validateNames(names, 'spec.names'));

  const versions = spec.versions ?? [];
  if (versions.length === 0) errs.push(fieldErrors.required('spec.versions', 'must have at least one version'));
  const seen = new Set<string>();
  versions.forEach((v, i) => {
    const vp = index('spec.versions', i);
    if (!v.name) errs.push(fieldErrors.required(child(vp, 'name'), ''));
    else {
      for (const msg of isDNS1035Label(v.name)) errs.push(fieldErrors.invalid(child(vp, 'name'), v.name, msg));
      if (seen.has(v.name)) errs.push(fieldErrors.duplicate(child(vp, 'name'), v.name));
      seen.add(v.name);
    }
    const schema = v.schema?.openAPIV3Schema;
    const sp = child(child(vp, 'schema'), 'openAPIV3Schema');
    if (schema === undefined || schema === null) errs.push(fieldErrors.required(sp, 'schemas are required'));
    else errs.push(...validateStructuralSchema(schema, sp));
  });
  // Printer columns, scale paths and selectable fields, at kube's per-version or lifted paths.
  errs.push(...validateCRDVersionFields(versions));
  if (versions.length > 0 && versions.filter((v) => v.storage === true).length !== 1) {
    errs.push(fieldErrors.invalid('spec.versions', versions, 'must have exactly one version marked as storage version'));
  }
  if (versions.length > 0 && !versions.some((v) => v.served === true)) {
    errs.push(fieldErrors.invalid('spec.versions', versions, 'must have at least one version marked as served'));
  }

  const strategy = spec.conversion?.strategy;
  if (strategy !== undefined && strategy !== 'None' && strategy !== 'Webhook') {
    errs.push(fieldErrors.notSupported('spec.conversion.strategy', strategy, ['None', 'Webhook']));
  }
  if (strategy === 'Webhook' && spec.conversion?.webhook === undefined) {
    errs.push(fieldErrors.required('spec.conversion.webhook', 'required when strategy is set to Webhook'));
  }
  return errs;
}

function validateNames(names: NonNullable<NonNullable<CRDLike['spec']>['names']>, p: string): FieldError[] {
  const errs: FieldError[] = [];
  const label = (f: string, value: string | undefined, required: boolean, mixedCase: boolean): void => {
    if (!value) {
      if (required) errs.push(fieldErrors.required(child(p, f), ''));
      return;
    }
    const es = isDNS1035Label(mixedCase ? value.toLowerCase() : value);
    if (es.length > 0) {
      errs.push(fieldErrors.invalid(child(p, f), value, mixedCase ? `may have mixed case, but should otherwise match: ${es.join(',')}` : es.join(',')));
    }
  };
  label('plural', names.plural, true, false);
  label('singular', names.singular, false, false);
  label('kind', names.kind, true, true);
  label('listKind', names.listKind, false, true);
  if (names.kind && names.listKind && names.kind === names.listKind) {
    errs.push(fieldErrors.invalid(child(p, 'listKind'), names.listKind, 'kind and listKind may not be the same'));
  }
  (names.shortNames ?? []).forEach((s, i) => {
    const es = isDNS1035Label(s);
    if (es.length > 0) errs.push(fieldErrors.invalid(index(child(p, 'shortNames'), i), s, es.join(',')));
  });
  (names.categories ?? []).forEach((s, i) => {
    const es = isDNS1035Label(s);
    if (es.length > 0) errs.push(fieldErrors.invalid(index(child(p, 'categories'), i), s, es.join(',')));
  });
  return errs;
}
