/**
 * Rules for a CRD version's `openAPIV3Schema`, in the three phases of kube's validateCustomResourceDefinitionValidation:
 * 1. structural invariants and completeness (apiextensions-apiserver pkg/apiserver/schema/validation.go), errors
 *    sorted by their text as kube sorts them;
 * 2. only when the schema is structural: defaults must survive pruning and validate (schema/defaulting);
 * 3. the OpenAPI rules of ValidateCustomResourceDefinitionOpenAPISchema (types, list/map types, unsupported keywords).
 * Pure functions returning kube-shaped field errors.
 */
import { ownValue } from '../machinery/own-properties.js';
import { fieldErrors, type FieldError } from '../machinery/status.js';
import { compileCRSchema } from './cr-validator.js';
import { compileSchemaRules } from './cel/compile.js';
import { prune } from './prune.js';
import { patternSyntaxError } from './schema-pattern.js';
import { child, index, isPlainObject, key, type JSONSchemaProps } from './types.js';

type Level = 'root' | 'item' | 'field';

const VALID_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const JUNCTORS = ['allOf', 'anyOf', 'oneOf'] as const;
const META_FIELDS = ['metadata', 'kind', 'apiVersion'];

/** Validate a CRD version's `openAPIV3Schema` at `fieldPath` (`spec.validation.openAPIV3Schema` when lifted). */
export function validateStructuralSchema(schema: unknown, fieldPath: string, opts: { compileRules?: boolean } = {}): FieldError[] {
  if (!isPlainObject(schema)) return [fieldErrors.required(fieldPath)];
  const s = schema as JSONSchemaProps;
  const errs: FieldError[] = [];
  if (s.nullable === true) errs.push(fieldErrors.forbidden(child(fieldPath, 'nullable'), 'nullable cannot be true at the root'));
  const structural: FieldError[] = [];
  invariants(s, 'root', fieldPath, structural);
  // Go compares strings bytewise.
  structural.sort((a, b) => (rendered(a) < rendered(b) ? -1 : rendered(a) > rendered(b) ? 1 : 0));
  errs.push(...structural);
  if (structural.length === 0) defaults(s, fieldPath, true, errs);
  openAPIRules(s, fieldPath, true, false, errs);
  // As kube, x-kubernetes-validations are compiled (and their cost bounded) only against a structural schema.
  if (structural.length === 0 && opts.compileRules !== false) errs.push(...compileSchemaRules(s, fieldPath).errors);
  return errs;
}

const rendered = (e: FieldError) => `${e.field}: ${e.detail}`;

// ---------------------------------------------------------------------------------------------------------------
// Phase 1: structural invariants and completeness

function invariants(s: JSONSchemaProps, lvl: Level, p: string, errs: FieldError[]): void {
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = s['x-kubernetes-embedded-resource'] === true;

  if (s.type === 'array' && s.items === undefined) errs.push(fieldErrors.required(child(p, 'items'), 'must be specified'));
  if (isPlainObject(s.items)) invariants(s.items as JSONSchemaProps, 'item', child(p, 'items'), errs);
  for (const [k, v] of Object.entries(s.properties ?? {})) {
    if (isPlainObject(v)) invariants(v as JSONSchemaProps, 'field', key(child(p, 'properties'), k), errs);
  }
  if (s.additionalProperties !== undefined && s.additionalProperties !== false) {
    if (lvl === 'root') errs.push(fieldErrors.forbidden(child(p, 'additionalProperties'), 'must not be used at the root'));
    if (isPlainObject(s.additionalProperties)) invariants(s.additionalProperties as JSONSchemaProps, 'field', child(p, 'additionalProperties'), errs);
  }
  if (intOrString && preserve) {
    errs.push(fieldErrors.invalid(child(p, 'x-kubernetes-preserve-unknown-fields'), true, 'must be false if x-kubernetes-int-or-string is true'));
  }
  if (intOrString && embedded) {
    errs.push(fieldErrors.invalid(child(p, 'x-kubernetes-embedded-resource'), true, 'must be false if x-kubernetes-int-or-string is true'));
  }

  // The two int-or-string shapes kube allows under anyOf / allOf[0].anyOf.
  const skipAnyOf = isIntOrStringAnyOf(s.anyOf);
  const skipFirstAllOfAnyOf = Array.isArray(s.allOf) && isPlainObject(s.allOf[0]) && isIntOrStringAnyOf((s.allOf[0] as JSONSchemaProps).anyOf);
  valueValidation(s, s, skipAnyOf, skipFirstAllOfAnyOf, p, errs);

  if (embedded && s.type !== 'object') {
    if (!s.type) errs.push(fieldErrors.required(child(p, 'type'), 'must be object if x-kubernetes-embedded-resource is true'));
    else errs.push(fieldErrors.invalid(child(p, 'type'), s.type, 'must be object if x-kubernetes-embedded-resource is true'));
  } else if (!s.type && !intOrString && !preserve) {
    const where = { root: 'at the root', item: 'for specified array items', field: 'for specified object fields' }[lvl];
    errs.push(fieldErrors.required(child(p, 'type'), `must not be empty ${where}`));
  }
  if (embedded && s.additionalProperties !== undefined && s.additionalProperties !== false) {
    errs.push(fieldErrors.forbidden(child(p, 'additionalProperties'), 'must not be used if x-kubernetes-embedded-resource is set'));
  }
  if (lvl === 'root' && s.type && s.type !== 'object') errs.push(fieldErrors.invalid(child(p, 'type'), s.type, 'must be object at the root'));

  const checkMetadata = lvl === 'root' || embedded;
  const props = s.properties ?? {};
  for (const f of ['kind', 'apiVersion']) {
    const sub = ownValue(props, f);
    if (checkMetadata && isPlainObject(sub) && sub.type !== 'string') {
      errs.push(fieldErrors.invalid(child(key(child(p, 'properties'), f), 'type'), sub.type ?? '', 'must be string'));
    }
  }
  if (isPlainObject(props.metadata)) metadataInvariants(props.metadata as JSONSchemaProps, checkMetadata, lvl, key(child(p, 'properties'), 'metadata'), errs);
  if (embedded && !preserve && Object.keys(props).length === 0) {
    errs.push(
      fieldErrors.required(child(p, 'properties'), 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'),
    );
  }
}

/** metadata may be typed `object` and restrict `name` / `generateName` at the root; nothing else. */
function metadataInvariants(m: JSONSchemaProps, checkMetadata: boolean, lvl: Level, mp: string, errs: FieldError[]): void {
  if (checkMetadata && m.type !== 'object') errs.push(fieldErrors.invalid(child(mp, 'type'), m.type ?? '', 'must be object'));
  if (lvl !== 'root') return;
  const props = Object.keys(m.properties ?? {});
  const onlyNames = props.every((k) => k === 'name' || k === 'generateName');
  const rest = Object.keys(m).filter((k) => !['type', 'properties', 'default'].includes(k));
  if (!onlyNames || rest.length > 0) {
    errs.push(fieldErrors.forbidden(mp, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
  }
}

function isIntOrStringAnyOf(list: unknown): boolean {
  if (!Array.isArray(list) || list.length !== 2) return false;
  const only = (x: unknown, t: string) => isPlainObject(x) && x.type === t && Object.keys(x).length === 1;
  return only(list[0], 'integer') && only(list[1], 'string');
}

/** validateValueValidation: the junctors of a node and its pattern. */
function valueValidation(v: JSONSchemaProps, structural: JSONSchemaProps | undefined, skipAnyOf: boolean, skipFirstAllOfAnyOf: boolean, p: string, errs: FieldError[]): void {
  const nested = (list: unknown, j: string, skip?: (i: number) => boolean) => {
    if (!Array.isArray(list)) return;
    list.forEach((sub, i) => {
      if (isPlainObject(sub)) nestedValueValidation(sub as JSONSchemaProps, structural, skip?.(i) ?? false, index(child(p, j), i), errs);
    });
  };
  if (!skipAnyOf) nested(v.anyOf, 'anyOf');
  nested(v.allOf, 'allOf', (i) => skipFirstAllOfAnyOf && i === 0);
  nested(v.oneOf, 'oneOf');
  if (isPlainObject(v.not)) nestedValueValidation(v.not as JSONSchemaProps, structural, false, child(p, 'not'), errs);
  if (typeof v.pattern === 'string' && v.pattern.length > 0) {
    const invalid = patternSyntaxError(v.pattern);
    if (invalid !== undefined) errs.push(fieldErrors.invalid(child(p, 'pattern'), v.pattern, `must be a valid regular expression, but isn't: ${invalid}`));
  }
}

/** Inside allOf/anyOf/oneOf/not: only value validations, and only on fields the structural part declares. */
function nestedValueValidation(v: JSONSchemaProps, structural: JSONSchemaProps | undefined, skipAnyOf: boolean, p: string, errs: FieldError[]): void {
  valueValidation(v, structural, skipAnyOf, false, p, errs);
  if (isPlainObject(v.items)) {
    if (!structural?.items && structural?.['x-kubernetes-preserve-unknown-fields'] !== true) {
      errs.push(fieldErrors.required(child(child(p, 'items'), 'type'), 'must not be empty for specified array items'));
    }
    nestedValueValidation(v.items as JSONSchemaProps, isPlainObject(structural?.items) ? (structural!.items as JSONSchemaProps) : undefined, false, child(p, 'items'), errs);
  }
  for (const [k, sub] of Object.entries(v.properties ?? {})) {
    const kp = key(child(p, 'properties'), k);
    const sp = ownValue(structural?.properties, k);
    const ap = isPlainObject(structural?.additionalProperties) ? (structural!.additionalProperties as JSONSchemaProps) : undefined;
    if (!sp && !ap && structural?.['x-kubernetes-preserve-unknown-fields'] !== true) {
      errs.push(fieldErrors.required(child(kp, 'type'), 'must not be empty for specified object fields'));
    }
    if (isPlainObject(sub)) nestedValueValidation(sub as JSONSchemaProps, sp ?? ap, false, kp, errs);
  }
  const forbidden: [string, string][] = [
    ['type', 'must be empty to be structural'],
    ['additionalProperties', 'must be undefined to be structural'],
    ['default', 'must be undefined to be structural'],
    ['title', 'must be empty to be structural'],
    ['description', 'must be empty to be structural'],
  ];
  for (const [k, msg] of forbidden) if (v[k] !== undefined && v[k] !== '') errs.push(fieldErrors.forbidden(child(p, k), msg));
  for (const k of ['nullable', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-embedded-resource', 'x-kubernetes-int-or-string']) {
    if (v[k] === true) errs.push(fieldErrors.forbidden(child(p, k), 'must be false to be structural'));
  }
  if (Array.isArray(v['x-kubernetes-list-map-keys']) && v['x-kubernetes-list-map-keys'].length > 0) {
    errs.push(fieldErrors.forbidden(child(p, 'x-kubernetes-list-map-keys'), 'must be empty to be structural'));
  }
  for (const k of ['x-kubernetes-list-type', 'x-kubernetes-map-type']) {
    if (v[k] !== undefined) errs.push(fieldErrors.forbidden(child(p, k), 'must be undefined to be structural'));
  }
  if (Array.isArray(v['x-kubernetes-validations']) && v['x-kubernetes-validations'].length > 0) {
    errs.push(fieldErrors.forbidden(child(p, 'x-kubernetes-validations'), 'must be empty to be structural'));
  }
  if (v.properties && 'metadata' in v.properties) {
    errs.push(fieldErrors.forbidden(key(child(p, 'properties'), 'metadata'), 'must not be specified in a nested context'));
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Phase 2: defaults (structuraldefaulting.ValidateDefaults)

function defaults(s: JSONSchemaProps, p: string, resourceRoot: boolean, errs: FieldError[]): void {
  const d = s.default;
  if (d !== undefined && !resourceRoot) {
    const dp = child(p, 'default');
    let pruned = false;
    if (isPlainObject(d) || Array.isArray(d)) {
      const wrapper = { v: structuredClone(d) };
      pruned = prune(wrapper, { type: 'object', properties: { v: s } }).length > 0;
      if (pruned) errs.push(fieldErrors.invalid(dp, d, 'must not have unknown fields'));
    }
    try {
      for (const e of compileCRSchema(s).validate(d)) errs.push({ ...e, field: e.field ? `${dp}.${e.field}` : dp });
    } catch {
      // an uncompilable schema is reported by the OpenAPI rules
    }
  }
  if (isPlainObject(s.items)) defaults(s.items as JSONSchemaProps, child(p, 'items'), false, errs);
  for (const [k, sub] of Object.entries(s.properties ?? {})) {
    if (isPlainObject(sub)) defaults(sub as JSONSchemaProps, key(child(p, 'properties'), k), false, errs);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Phase 3: ValidateCustomResourceDefinitionOpenAPISchema

const UNSUPPORTED: [string, string][] = [
  ['id', 'id is not supported'],
  ['additionalItems', 'additionalItems is not supported'],
  ['patternProperties', 'patternProperties is not supported'],
  ['definitions', 'definitions is not supported'],
  ['dependencies', 'dependencies is not supported'],
  ['$ref', '$ref is not supported'],
];

function openAPIRules(s: JSONSchemaProps, p: string, isRoot: boolean, noDefaults: string | false, errs: FieldError[]): void {
  if (s.type !== undefined && s.type !== '' && !VALID_TYPES.includes(s.type)) {
    if (s.type === 'null') errs.push(fieldErrors.forbidden(child(p, 'type'), 'type cannot be set to null, use nullable as an alternative'));
    else errs.push(fieldErrors.notSupported(child(p, 'type'), s.type, VALID_TYPES));
  }
  if (s.default !== undefined && noDefaults) errs.push(fieldErrors.forbidden(child(p, 'default'), `must not be set ${noDefaults}`));
  for (const [k, msg] of UNSUPPORTED) if (s[k] !== undefined) errs.push(fieldErrors.forbidden(child(p, k), msg));
  if (Array.isArray(s.items)) errs.push(fieldErrors.forbidden(child(p, 'items'), 'items must be a schema object and not an array'));
  if (s.uniqueItems === true) {
    errs.push(fieldErrors.forbidden(child(p, 'uniqueItems'), 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  }
  const ap = s.additionalProperties;
  if (ap !== undefined) {
    if (Object.keys(s.properties ?? {}).length > 0 && (ap === false || isPlainObject(ap))) {
      errs.push(fieldErrors.forbidden(child(p, 'additionalProperties'), 'additionalProperties and properties are mutual exclusive'));
    }
    if (isPlainObject(ap)) openAPIRules(ap as JSONSchemaProps, child(p, 'additionalProperties'), false, noDefaults, errs);
  }
  for (const [k, sub] of Object.entries(s.properties ?? {})) {
    if (!isPlainObject(sub)) continue;
    const inTopLevelMeta = isRoot && META_FIELDS.includes(k) ? `in top-level ${k}` : noDefaults;
    openAPIRules(sub as JSONSchemaProps, key(child(p, 'properties'), k), false, inTopLevelMeta, errs);
  }
  if (isPlainObject(s.not)) openAPIRules(s.not as JSONSchemaProps, child(p, 'not'), false, noDefaults, errs);
  for (const j of JUNCTORS) {
    const list = s[j];
    if (Array.isArray(list)) {
      list.forEach((sub, i) => {
        if (isPlainObject(sub)) openAPIRules(sub as JSONSchemaProps, index(child(p, j), i), false, noDefaults, errs);
      });
    }
  }
  if (isPlainObject(s.items)) openAPIRules(s.items as JSONSchemaProps, child(p, 'items'), false, noDefaults, errs);
  if (s['x-kubernetes-preserve-unknown-fields'] === false) {
    errs.push(fieldErrors.invalid(child(p, 'x-kubernetes-preserve-unknown-fields'), false, 'must be true or undefined'));
  }
  listAndMapTypes(s, p, errs);
}

function mustBe(s: JSONSchemaProps, p: string, type: string, why: string, errs: FieldError[]): void {
  if (s.type === type) return;
  if (!s.type) errs.push(fieldErrors.required(child(p, 'type'), `must be ${type} if ${why}`));
  else errs.push(fieldErrors.invalid(child(p, 'type'), s.type, `must be ${type} if ${why}`));
}

function listAndMapTypes(s: JSONSchemaProps, p: string, errs: FieldError[]): void {
  const mapType = s['x-kubernetes-map-type'];
  if (mapType !== undefined) {
    mustBe(s, p, 'object', 'x-kubernetes-map-type is specified', errs);
    if (mapType !== 'atomic' && mapType !== 'granular') errs.push(fieldErrors.notSupported(child(p, 'x-kubernetes-map-type'), mapType, ['atomic', 'granular']));
  }
  const lt = s['x-kubernetes-list-type'];
  const items = isPlainObject(s.items) ? (s.items as JSONSchemaProps) : undefined;
  if (lt !== undefined && s.type !== 'array') mustBe(s, p, 'array', 'x-kubernetes-list-type is specified', errs);
  else if (lt === 'set' && items) {
    if (items.type === 'array' && items['x-kubernetes-list-type'] !== undefined && items['x-kubernetes-list-type'] !== 'atomic') {
      errs.push(fieldErrors.invalid(child(child(p, 'items'), 'x-kubernetes-list-type'), items['x-kubernetes-list-type'], 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    }
    if (items.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
      errs.push(fieldErrors.invalid(child(child(p, 'items'), 'x-kubernetes-map-type'), items['x-kubernetes-list-type'] ?? null, 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    }
  }
  if (lt !== undefined && lt !== 'atomic' && lt !== 'set' && lt !== 'map') {
    errs.push(fieldErrors.notSupported(child(p, 'x-kubernetes-list-type'), lt, ['atomic', 'set', 'map']));
  }
  const keys = s['x-kubernetes-list-map-keys'] ?? [];
  if (keys.length > 0) {
    if (lt === undefined) errs.push(fieldErrors.required(child(p, 'x-kubernetes-list-type'), 'must be map if x-kubernetes-list-map-keys is non-empty'));
    else if (lt !== 'map') errs.push(fieldErrors.invalid(child(p, 'x-kubernetes-list-type'), lt, 'must be map if x-kubernetes-list-map-keys is non-empty'));
  }
  if (lt === 'map') {
    if (keys.length === 0) errs.push(fieldErrors.required(child(p, 'x-kubernetes-list-map-keys'), 'must not be empty if x-kubernetes-list-type is map'));
    if (s.items === undefined) errs.push(fieldErrors.required(child(p, 'items'), 'must have a schema if x-kubernetes-list-type is map'));
    if (items && items.type !== 'object') {
      errs.push(fieldErrors.invalid(child(child(p, 'items'), 'type'), items.type ?? '', "must be object if parent array's x-kubernetes-list-type is map"));
    }
    if (items && items.type === 'object') {
      const seen = new Set<string>();
      for (const k of keys) {
        const kp = ownValue(items.properties, k);
        if (kp) {
          if (kp.type === 'array' || kp.type === 'object') {
            errs.push(fieldErrors.invalid(child(key(child(child(p, 'items'), 'properties'), k), 'type'), items.type, "must be a scalar type if parent array's x-kubernetes-list-type is map"));
          }
        } else errs.push(fieldErrors.invalid(child(p, 'x-kubernetes-list-map-keys'), keys, 'entries must all be names of item properties'));
        if (seen.has(k)) errs.push(fieldErrors.invalid(child(p, 'x-kubernetes-list-map-keys'), keys, 'must not contain duplicate entries'));
        seen.add(k);
      }
    }
  }
  // validateMapListKeysMapSet
  if (items && (lt === 'set' || lt === 'map')) {
    if (items.nullable === true) errs.push(fieldErrors.forbidden(child(child(p, 'items'), 'nullable'), `cannot be nullable when x-kubernetes-list-type is ${lt}`));
    if (lt === 'map') {
      for (const k of keys) {
        const kp = ownValue(items.properties, k);
        if (!kp) continue;
        const kpath = key(child(child(p, 'items'), 'properties'), k);
        if (!(items.required ?? []).includes(k) && kp.default === undefined) {
          errs.push(fieldErrors.required(child(kpath, 'default'), 'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property'));
        }
        if (kp.nullable === true) errs.push(fieldErrors.forbidden(child(kpath, 'nullable'), 'this property is in x-kubernetes-list-map-keys, so it cannot be nullable'));
      }
    }
  }
}
