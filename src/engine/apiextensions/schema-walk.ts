/**
 * Validates a value by walking a CRD schema (kube's OpenAPI v3 flavour), as kube-apiserver's kube-openapi validator
 * walks it: nothing is compiled. Preparing a schema is one pass over its nodes; validating a
 * value costs its size times the schema nodes it reaches. Code generation (ajv, before) cost ~0.4 ms per declared
 * property before the first object could be checked: a tenant's 12,000-property CRD held the event loop, and so
 * every tenant, for seconds (docs/benchmarks.md).
 *
 * The errors are the ones ajv reports with `allErrors`, in ajv's order (its keyword groups: the untyped keywords,
 * then number, string, array, object; a single type whose group is used is checked in that group's else-branch),
 * so cr-validator.ts's translation into kube wording reads them unchanged. The vocabulary is kube's JSONSchemaProps;
 * keywords kube does not know (const, if/then/else, propertyNames, contains, …) are ignored, as kube drops them.
 */
import { jsonEqual } from '../machinery/canonical-json.js';
import { ownValue, setOwnValue } from '../machinery/own-properties.js';
import { re2Pattern } from './schema-pattern.js';
import { stringFormatCheck } from './string-formats.js';
import { isPlainObject } from './types.js';

/** One validation failure, shaped as ajv's ErrorObject (keyword, JSON-pointer instancePath, keyword params). */
export interface SchemaError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

type Group = 'number' | 'string' | 'array' | 'object';
type Pattern = ReturnType<typeof re2Pattern>;

interface Node {
  /** `type` as written (a name or, for nullable, [name, 'null']): ajv's params.type. */
  type: unknown;
  types: string[];
  /** A single type whose keyword group is used is checked there, after the untyped keywords (ajv's order). */
  typeInGroup?: Group;
  enum?: unknown[];
  not?: Node;
  anyOf?: Node[];
  oneOf?: Node[];
  allOf?: Node[];
  /** Any of enum, not, anyOf, oneOf, allOf, format or the x-kubernetes-* keywords below. */
  untyped: boolean;
  /** A string format kube checks (string-formats.ts); the others (int32, int64, …) are documentation. */
  format?: string;
  formatCheck?: (s: string) => boolean;
  intOrString: boolean;
  nullableMarker: boolean;
  embedded: boolean;
  listType?: unknown;
  listMapKeys: string[];
  num?: { maximum?: number; minimum?: number; exclusiveMaximum?: number; exclusiveMinimum?: number; multipleOf?: number };
  str?: { maxLength?: number; minLength?: number; pattern?: string };
  arr?: { maxItems?: number; minItems?: number; uniqueItems?: unknown; items?: Node; itemTypes: string[] };
  obj?: {
    maxProperties?: number;
    minProperties?: number;
    required?: string[];
    additionalProperties?: boolean | Node;
    /** Declared properties, in the schema's order: errors come out in it, whatever the value's. */
    propKeys: string[];
    propNodes: Node[];
    /** Only for more than NARROW properties: a lookup with each property's position. */
    properties?: Map<string, { at: number; node: Node }>;
    /** maxProperties, minProperties, additionalProperties (other than true) or patternProperties: the value's keys. */
    needsKeys: boolean;
    patternProperties?: { pattern: string; node: Node }[];
  };
}

/** Up to this many declared properties, an object is checked by probing each (as ajv did); beyond, by its keys. */
const NARROW = 32;
const EMBEDDED_FIELDS = ['apiVersion', 'kind'];
/** An own property with a value: JSON has no undefined, and `constructor` or `__proto__` is not inherited here. */
const has = (o: Record<string, unknown>, k: string): boolean => o[k] !== undefined && Object.hasOwn(o, k);
const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
const EMPTY: Record<string, unknown> = {};
/** `type` as ajv saw it (nullable made it [type, 'null']), and the type names to check (an empty type is none). */
function normalType(s: Record<string, unknown>): { type: unknown; types: string[] } {
  const t = s.type;
  if (typeof t === 'string') {
    if (s.nullable === true) return { type: [t, 'null'], types: [t, 'null'] };
    return { type: t, types: t === '' ? [] : [t] };
  }
  return { type: t, types: Array.isArray(t) ? (t as string[]) : [] };
}

export interface PreparedSchema {
  validate(data: unknown): SchemaError[];
  /** Schema nodes prepared (each once): the whole cost before the first value is checked. */
  readonly nodes: number;
}

/** One pass over the normalised schema; RE2 patterns are compiled on first use, once per pattern text. */
export function prepareSchema(schema: unknown): PreparedSchema {
  let nodes = 0;
  const patterns = new Map<string, Pattern>();
  const pattern = (p: string): Pattern => {
    let re = patterns.get(p);
    if (!re) patterns.set(p, (re = re2Pattern(p)));
    return re;
  };

  const prep = (raw: unknown): Node => {
    nodes++;
    const s = isPlainObject(raw) ? raw : EMPTY;
    const { type, types } = normalType(s);
    const n: Node = {
      type,
      types,
      intOrString: s['x-kubernetes-int-or-string'] === true,
      // nullable without a single type (int-or-string, preserve-unknown-fields) lets null through int-or-string.
      nullableMarker: (s.nullable === true && typeof s.type !== 'string') || s['x-kcpt-nullable'] === true,
      embedded: s['x-kubernetes-embedded-resource'] === true,
      listType: s['x-kubernetes-list-type'],
      listMapKeys: Array.isArray(s['x-kubernetes-list-map-keys']) ? (s['x-kubernetes-list-map-keys'] as string[]) : [],
      untyped: false,
    };
    if (Array.isArray(s.enum)) n.enum = s.enum;
    if (typeof s.format === 'string') {
      n.formatCheck = stringFormatCheck(s.format);
      if (n.formatCheck) n.format = s.format;
    }
    if (s.not !== undefined) n.not = prep(s.not);
    if (Array.isArray(s.anyOf)) n.anyOf = s.anyOf.map(prep);
    if (Array.isArray(s.oneOf)) n.oneOf = s.oneOf.map(prep);
    if (Array.isArray(s.allOf)) n.allOf = s.allOf.map(prep);
    n.untyped = !!(n.enum || n.not || n.anyOf || n.oneOf || n.allOf || n.formatCheck || n.intOrString || n.embedded || n.listType !== undefined);
    // A keyword group is used when one of its keywords is present at all (ajv's rule, which decides where the type
    // is checked). OpenAPI's boolean exclusive bounds turn their bound exclusive and are otherwise ignored.
    if (s.maximum !== undefined || s.minimum !== undefined || s.multipleOf !== undefined) {
      const exMax = s.exclusiveMaximum === true && typeof s.maximum === 'number';
      const exMin = s.exclusiveMinimum === true && typeof s.minimum === 'number';
      n.num = {
        maximum: exMax ? undefined : num(s.maximum),
        minimum: exMin ? undefined : num(s.minimum),
        exclusiveMaximum: exMax ? (s.maximum as number) : undefined,
        exclusiveMinimum: exMin ? (s.minimum as number) : undefined,
        multipleOf: num(s.multipleOf),
      };
    }
    if (s.maxLength !== undefined || s.minLength !== undefined || s.pattern !== undefined) {
      n.str = { maxLength: num(s.maxLength), minLength: num(s.minLength), pattern: typeof s.pattern === 'string' ? s.pattern : undefined };
    }
    if (s.maxItems !== undefined || s.minItems !== undefined || s.uniqueItems !== undefined || s.items !== undefined) {
      n.arr = {
        maxItems: num(s.maxItems),
        minItems: num(s.minItems),
        uniqueItems: s.uniqueItems,
        // A list of item schemas (a tuple) is refused at CRD creation and by kube's validator alike.
        items: isPlainObject(s.items) ? prep(s.items) : undefined,
        itemTypes: isPlainObject(s.items) ? normalType(s.items).types : [],
      };
    }
    const objectUsed =
      s.maxProperties !== undefined ||
      s.minProperties !== undefined ||
      s.required !== undefined ||
      s.additionalProperties !== undefined ||
      s.properties !== undefined ||
      s.patternProperties !== undefined;
    if (objectUsed) {
      const o: NonNullable<Node['obj']> = { maxProperties: num(s.maxProperties), minProperties: num(s.minProperties), propKeys: [], propNodes: [], needsKeys: false };
      if (Array.isArray(s.required)) o.required = s.required as string[];
      if (typeof s.additionalProperties === 'boolean') o.additionalProperties = s.additionalProperties;
      else if (isPlainObject(s.additionalProperties)) o.additionalProperties = prep(s.additionalProperties);
      if (isPlainObject(s.properties)) {
        const props = s.properties;
        o.propKeys = Object.keys(props);
        o.propNodes = o.propKeys.map((k) => prep(props[k]));
        if (o.propKeys.length > NARROW) o.properties = new Map(o.propKeys.map((k, at) => [k, { at, node: o.propNodes[at] }]));
      }
      if (isPlainObject(s.patternProperties)) {
        const pp = s.patternProperties;
        o.patternProperties = Object.keys(pp).map((p) => ({ pattern: p, node: prep(pp[p]) }));
      }
      o.needsKeys = o.maxProperties !== undefined || o.minProperties !== undefined || (o.additionalProperties !== undefined && o.additionalProperties !== true) || !!o.patternProperties;
      n.obj = o;
    }
    const t = types.length === 1 ? types[0] : undefined;
    if ((t === 'number' && n.num) || (t === 'string' && n.str) || (t === 'array' && n.arr) || (t === 'object' && n.obj)) n.typeInGroup = t;
    return n;
  };

  const root = prep(schema);

  /**
   * `up`/`seg` locate the value (its container's place and its key or index; both undefined at the root): the JSON
   * pointer is only built for an error, and a container's place only when it has children to walk.
   */
  const walk = (n: Node, data: unknown, up: At | undefined, seg: string | number | undefined, errs: SchemaError[]): void => {
    if (n.types.length > 0 && n.typeInGroup === undefined && !isAnyType(data, n.types)) report(errs, 'type', up, seg, { type: n.type });

    // Untyped keywords, in ajv's order: enum, not, anyOf, oneOf, allOf, then format and the x-kubernetes-* ones.
    if (n.untyped) {
      if (n.enum && !inEnum(data, n.enum)) report(errs, 'enum', up, seg, { allowedValues: n.enum });
      if (n.not) {
        const before = errs.length;
        walk(n.not, data, up, seg, errs);
        const valid = errs.length === before;
        errs.length = before;
        if (valid) report(errs, 'not', up, seg, {});
      }
      if (n.anyOf) {
        const before = errs.length;
        let valid = false;
        for (const sub of n.anyOf) {
          const b = errs.length;
          walk(sub, data, up, seg, errs);
          if (errs.length === b) {
            valid = true;
            break;
          }
        }
        if (valid) errs.length = before;
        else report(errs, 'anyOf', up, seg, {});
      }
      if (n.oneOf) {
        // A second passing branch decides it: the branches after it are not walked (nor their errors kept).
        const before = errs.length;
        let valid = false;
        for (const sub of n.oneOf) {
          const b = errs.length;
          walk(sub, data, up, seg, errs);
          if (errs.length !== b) continue;
          if (valid) {
            valid = false;
            break;
          }
          valid = true;
        }
        if (valid) errs.length = before;
        else report(errs, 'oneOf', up, seg, {});
      }
      if (n.allOf) for (const sub of n.allOf) walk(sub, data, up, seg, errs);
      if (n.formatCheck && typeof data === 'string' && !n.formatCheck(data)) report(errs, 'x-kcpt-format', up, seg, { kind: 'format', field: n.format, value: data });
      if (n.intOrString) {
        const ok = (data === null && n.nullableMarker) || typeof data === 'string' || (typeof data === 'number' && Number.isInteger(data));
        if (!ok) report(errs, 'x-kubernetes-int-or-string', up, seg, { kind: 'intOrString', value: data });
      }
      if (n.embedded && isPlainObject(data)) {
        for (const f of EMBEDDED_FIELDS) {
          const v = ownValue(data, f);
          if (typeof v !== 'string' || v === '') report(errs, 'x-kubernetes-embedded-resource', place(up, seg), f, { kind: 'embeddedRequired', field: f });
        }
      }
      if (n.listType !== undefined && Array.isArray(data)) listTypeDuplicates(n, data, place(up, seg), errs);
    }

    if (n.num) {
      if (typeof data === 'number') numberKeywords(n.num, data, up, seg, errs);
      else if (n.typeInGroup === 'number') report(errs, 'type', up, seg, { type: n.type });
    }
    if (n.str) {
      if (typeof data === 'string') {
        const { maxLength, minLength, pattern: p } = n.str;
        // ajv counts code points (a surrogate pair is one), as Go's utf8.RuneCountInString does for kube.
        if (maxLength !== undefined && data.length > maxLength && codePoints(data) > maxLength) report(errs, 'maxLength', up, seg, { limit: maxLength });
        if (minLength !== undefined && codePoints(data) < minLength) report(errs, 'minLength', up, seg, { limit: minLength });
        if (p !== undefined && !pattern(p).test(data)) report(errs, 'pattern', up, seg, { pattern: p });
      } else if (n.typeInGroup === 'string') report(errs, 'type', up, seg, { type: n.type });
    }
    if (n.arr) {
      if (Array.isArray(data)) {
        const a = n.arr;
        if (a.maxItems !== undefined && data.length > a.maxItems) report(errs, 'maxItems', up, seg, { limit: a.maxItems });
        if (a.minItems !== undefined && data.length < a.minItems) report(errs, 'minItems', up, seg, { limit: a.minItems });
        // ajv places items before uniqueItems.
        if (a.items && data.length > 0) {
          const here = place(up, seg);
          for (let i = 0; i < data.length; i++) walk(a.items, data[i], here, i, errs);
        }
        if (a.uniqueItems === true) {
          const dup = firstDuplicate(data, a.itemTypes);
          if (dup) report(errs, 'uniqueItems', up, seg, dup);
        }
      } else if (n.typeInGroup === 'array') report(errs, 'type', up, seg, { type: n.type });
    }
    if (n.obj) {
      if (isPlainObject(data)) objectKeywords(n.obj, data, up, seg, errs);
      else if (n.typeInGroup === 'object') report(errs, 'type', up, seg, { type: n.type });
    }
  };

  const objectKeywords = (o: NonNullable<Node['obj']>, data: Record<string, unknown>, up: At | undefined, seg: string | number | undefined, errs: SchemaError[]): void => {
    // The value's keys are listed only for the keywords that need them, or to look a wide schema's properties up.
    const keys = o.needsKeys || o.propKeys.length > NARROW ? Object.keys(data) : undefined;
    if (o.maxProperties !== undefined && keys!.length > o.maxProperties) report(errs, 'maxProperties', up, seg, { limit: o.maxProperties });
    if (o.minProperties !== undefined && keys!.length < o.minProperties) report(errs, 'minProperties', up, seg, { limit: o.minProperties });
    if (o.required) for (const r of o.required) if (!has(data, r)) report(errs, 'required', up, seg, { missingProperty: r });
    let here: At | undefined | null = null;
    const ap = o.additionalProperties;
    if (ap !== undefined && ap !== true) {
      for (const k of keys!) {
        if ((o.properties ? o.properties.has(k) : o.propKeys.includes(k)) || o.patternProperties?.some((pp) => pattern(pp.pattern).test(k))) continue;
        if (ap === false) report(errs, 'additionalProperties', up, seg, { additionalProperty: k });
        else walk(ap, data[k], here === null ? (here = place(up, seg)) : here, k, errs);
      }
    }
    const { propKeys, propNodes } = o;
    if (o.properties === undefined || keys === undefined || propKeys.length <= keys.length * 4) {
      // A schema no wider than a few times the object: its own order, as ajv reads it.
      for (let i = 0; i < propKeys.length; i++) {
        const k = propKeys[i];
        const v = data[k];
        if (v !== undefined && Object.hasOwn(data, k)) walk(propNodes[i], v, here === null ? (here = place(up, seg)) : here, k, errs);
      }
    } else {
      // A wide schema: the object's keys, put in the schema's order (a 12,000-property schema costs a small object
      // nothing more).
      const hits: { at: number; key: string; node: Node }[] = [];
      for (const k of keys) {
        const p = o.properties!.get(k);
        if (p) hits.push({ at: p.at, key: k, node: p.node });
      }
      if (hits.length > 1) hits.sort((a, b) => a.at - b.at);
      for (const h of hits) walk(h.node, data[h.key], here === null ? (here = place(up, seg)) : here, h.key, errs);
    }
    if (o.patternProperties) {
      for (const pp of o.patternProperties) {
        for (const k of keys!) if (pattern(pp.pattern).test(k)) walk(pp.node, data[k], here === null ? (here = place(up, seg)) : here, k, errs);
      }
    }
  };

  return {
    nodes,
    validate(data: unknown): SchemaError[] {
      const errs: SchemaError[] = [];
      walk(root, data, undefined, undefined, errs);
      return errs;
    },
  };
}

/** A value's place: its container's place and its key or index. */
interface At {
  up: At | undefined;
  seg: string | number;
}

const place = (up: At | undefined, seg: string | number | undefined): At | undefined => (seg === undefined ? up : { up, seg });

function report(errs: SchemaError[], keyword: string, up: At | undefined, seg: string | number | undefined, params: Record<string, unknown>): void {
  errs.push({ keyword, instancePath: pointer(place(up, seg)), params });
}

/** The JSON pointer ajv writes as instancePath (`~` → `~0`, `/` → `~1` in keys). */
function pointer(at: At | undefined): string {
  let out = '';
  for (let a = at; a; a = a.up) out = `/${typeof a.seg === 'number' ? a.seg : a.seg.replace(/~/g, '~0').replace(/\//g, '~1')}${out}`;
  return out;
}

function isAnyType(v: unknown, types: string[]): boolean {
  for (const t of types) if (isType(v, t)) return true;
  return false;
}

function inEnum(v: unknown, values: unknown[]): boolean {
  for (const e of values) if (typeof e === 'object' && e !== null ? jsonEqual(v, e) : v === e) return true;
  return false;
}

function isType(v: unknown, t: string): boolean {
  switch (t) {
    case 'null':
      return v === null;
    case 'array':
      return Array.isArray(v);
    case 'object':
      return isPlainObject(v);
    case 'integer':
      return typeof v === 'number' && !(v % 1) && !Number.isNaN(v);
    default:
      return typeof v === t;
  }
}

function numberKeywords(k: NonNullable<Node['num']>, v: number, up: At | undefined, seg: string | number | undefined, errs: SchemaError[]): void {
  if (k.maximum !== undefined && (v > k.maximum || Number.isNaN(v))) report(errs, 'maximum', up, seg, { comparison: '<=', limit: k.maximum });
  if (k.minimum !== undefined && (v < k.minimum || Number.isNaN(v))) report(errs, 'minimum', up, seg, { comparison: '>=', limit: k.minimum });
  if (k.exclusiveMaximum !== undefined && (v >= k.exclusiveMaximum || Number.isNaN(v))) report(errs, 'exclusiveMaximum', up, seg, { comparison: '<', limit: k.exclusiveMaximum });
  if (k.exclusiveMinimum !== undefined && (v <= k.exclusiveMinimum || Number.isNaN(v))) report(errs, 'exclusiveMinimum', up, seg, { comparison: '>', limit: k.exclusiveMinimum });
  if (k.multipleOf !== undefined) {
    // ajv's test, kept: the quotient must print as an integer (so 1e21 multiples fail, as they did).
    const r = v / k.multipleOf;
    if (k.multipleOf === 0 || r !== parseInt(String(r), 10)) report(errs, 'multipleOf', up, seg, { multipleOf: k.multipleOf });
  }
}

function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++, n++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
  }
  return n;
}

/** uniqueItems (refused at CRD creation as quadratic; a CRD stored before that may hold it): ajv's two loops. */
function firstDuplicate(data: unknown[], itemTypes: string[]): { i: number; j: number } | undefined {
  if (data.length <= 1) return undefined;
  if (itemTypes.length > 0 && !itemTypes.some((t) => t === 'object' || t === 'array')) {
    // Scalars of the items' declared types, keyed as ajv keys them; values of another type are skipped.
    const indices = new Map<string, number>();
    for (let i = data.length; i--; ) {
      const item = data[i];
      if (!itemTypes.some((t) => isType(item, t))) continue;
      const key = itemTypes.length > 1 && typeof item === 'string' ? `${item}_` : String(item);
      const j = indices.get(key);
      if (j !== undefined) return { i, j };
      indices.set(key, i);
    }
    return undefined;
  }
  for (let i = data.length; i--; ) for (let j = i; j--; ) if (jsonEqual(data[i], data[j])) return { i, j };
  return undefined;
}

/** x-kubernetes-list-type set / map: every repeated item (or repeated key tuple) after its first. */
function listTypeDuplicates(n: Node, data: unknown[], here: At | undefined, errs: SchemaError[]): void {
  const seen = new Set<string>();
  if (n.listType === 'set') {
    data.forEach((item, i) => {
      const k = JSON.stringify(item);
      if (seen.has(k)) report(errs, 'x-kubernetes-list-type', here, i, { kind: 'duplicate', value: item });
      seen.add(k);
    });
  } else if (n.listType === 'map') {
    data.forEach((item, i) => {
      if (!isPlainObject(item)) return;
      let sig = '';
      for (const k of n.listMapKeys) sig += `${JSON.stringify(ownValue(item, k)) ?? 'null'},`;
      if (seen.has(sig)) {
        const kv: Record<string, unknown> = {};
        for (const k of n.listMapKeys) if (Object.hasOwn(item, k)) setOwnValue(kv, k, item[k]);
        report(errs, 'x-kubernetes-list-type', here, i, { kind: 'duplicateMap', value: kv });
      }
      seen.add(sig);
    });
  }
}
