/**
 * Validates a value by walking a CRD schema (after cr-validator.ts's draft-07 normalisation), as kube-apiserver's
 * kube-openapi validator walks it: nothing is compiled. Preparing a schema is one pass over its nodes; validating a
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
    /** Declared properties with their position: errors come out in the schema's order, whatever the value's. */
    properties?: Map<string, { at: number; node: Node }>;
    patternProperties?: { pattern: string; node: Node }[];
  };
}

const GROUP_KEYWORDS: Record<Group, string[]> = {
  number: ['maximum', 'minimum', 'exclusiveMaximum', 'exclusiveMinimum', 'multipleOf'],
  string: ['maxLength', 'minLength', 'pattern'],
  array: ['maxItems', 'minItems', 'uniqueItems', 'items'],
  object: ['maxProperties', 'minProperties', 'required', 'additionalProperties', 'properties', 'patternProperties'],
};

const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
const used = (s: Record<string, unknown>, g: Group): boolean => GROUP_KEYWORDS[g].some((k) => s[k] !== undefined);
const schemaTypes = (t: unknown): string[] => (Array.isArray(t) ? (t as string[]) : typeof t === 'string' && t !== '' ? [t] : []);

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
    const s = isPlainObject(raw) ? raw : {};
    const types = schemaTypes(s.type);
    const n: Node = {
      type: s.type,
      types,
      intOrString: s['x-kubernetes-int-or-string'] === true,
      nullableMarker: s['x-kcpt-nullable'] === true,
      embedded: s['x-kubernetes-embedded-resource'] === true,
      listType: s['x-kubernetes-list-type'],
      listMapKeys: Array.isArray(s['x-kubernetes-list-map-keys']) ? (s['x-kubernetes-list-map-keys'] as string[]) : [],
    };
    if (types.length === 1 && (types[0] === 'number' || types[0] === 'string' || types[0] === 'array' || types[0] === 'object') && used(s, types[0])) {
      n.typeInGroup = types[0];
    }
    if (Array.isArray(s.enum)) n.enum = s.enum;
    if (s.not !== undefined) n.not = prep(s.not);
    for (const j of ['anyOf', 'oneOf', 'allOf'] as const) if (Array.isArray(s[j])) n[j] = (s[j] as unknown[]).map(prep);
    if (used(s, 'number')) {
      n.num = {
        maximum: num(s.maximum),
        minimum: num(s.minimum),
        exclusiveMaximum: num(s.exclusiveMaximum),
        exclusiveMinimum: num(s.exclusiveMinimum),
        multipleOf: num(s.multipleOf),
      };
    }
    if (used(s, 'string')) n.str = { maxLength: num(s.maxLength), minLength: num(s.minLength), pattern: typeof s.pattern === 'string' ? s.pattern : undefined };
    if (used(s, 'array')) {
      n.arr = {
        maxItems: num(s.maxItems),
        minItems: num(s.minItems),
        uniqueItems: s.uniqueItems,
        // A list of item schemas (a tuple) is refused at CRD creation and by kube's validator alike.
        items: isPlainObject(s.items) ? prep(s.items) : undefined,
        itemTypes: isPlainObject(s.items) ? schemaTypes(s.items.type) : [],
      };
    }
    if (used(s, 'object')) {
      const o: NonNullable<Node['obj']> = { maxProperties: num(s.maxProperties), minProperties: num(s.minProperties) };
      if (Array.isArray(s.required)) o.required = s.required as string[];
      if (typeof s.additionalProperties === 'boolean') o.additionalProperties = s.additionalProperties;
      else if (isPlainObject(s.additionalProperties)) o.additionalProperties = prep(s.additionalProperties);
      if (isPlainObject(s.properties)) {
        o.properties = new Map();
        let at = 0;
        for (const k of Object.keys(s.properties)) o.properties.set(k, { at: at++, node: prep(s.properties[k]) });
      }
      if (isPlainObject(s.patternProperties)) {
        o.patternProperties = Object.keys(s.patternProperties).map((p) => ({ pattern: p, node: prep((s.patternProperties as Record<string, unknown>)[p]) }));
      }
      n.obj = o;
    }
    return n;
  };

  const root = prep(schema);

  const walk = (n: Node, data: unknown, path: string, errs: SchemaError[]): void => {
    const fail = (keyword: string, params: Record<string, unknown>, at = path) => errs.push({ keyword, instancePath: at, params });
    if (n.types.length > 0 && n.typeInGroup === undefined && !n.types.some((t) => isType(data, t))) fail('type', { type: n.type });

    // Untyped keywords, in ajv's order: enum, not, anyOf, oneOf, allOf, then the x-kubernetes-* ones.
    if (n.enum && !n.enum.some((v) => (typeof v === 'object' && v !== null ? jsonEqual(data, v) : data === v))) fail('enum', { allowedValues: n.enum });
    if (n.not) {
      const before = errs.length;
      walk(n.not, data, path, errs);
      const valid = errs.length === before;
      errs.length = before;
      if (valid) fail('not', {});
    }
    if (n.anyOf) {
      const before = errs.length;
      let valid = false;
      for (const sub of n.anyOf) {
        const b = errs.length;
        walk(sub, data, path, errs);
        if (errs.length === b) {
          valid = true;
          break;
        }
      }
      if (valid) errs.length = before;
      else fail('anyOf', {});
    }
    if (n.oneOf) {
      // A second passing branch decides it: the branches after it are not walked (nor their errors kept).
      const before = errs.length;
      let valid = false;
      for (const sub of n.oneOf) {
        const b = errs.length;
        walk(sub, data, path, errs);
        if (errs.length !== b) continue;
        if (valid) {
          valid = false;
          break;
        }
        valid = true;
      }
      if (valid) errs.length = before;
      else fail('oneOf', {});
    }
    if (n.allOf) for (const sub of n.allOf) walk(sub, data, path, errs);
    if (n.intOrString) {
      const ok = (data === null && n.nullableMarker) || typeof data === 'string' || (typeof data === 'number' && Number.isInteger(data));
      if (!ok) fail('x-kubernetes-int-or-string', { kind: 'intOrString', value: data });
    }
    if (n.embedded && isPlainObject(data)) {
      for (const f of ['apiVersion', 'kind']) {
        const v = ownValue(data, f);
        if (typeof v !== 'string' || v === '') fail('x-kubernetes-embedded-resource', { kind: 'embeddedRequired', field: f }, `${path}/${f}`);
      }
    }
    if (n.listType !== undefined && Array.isArray(data)) listTypeDuplicates(n, data, path, errs);

    if (n.num) {
      if (typeof data === 'number') numberKeywords(n.num, data, fail);
      else if (n.typeInGroup === 'number') fail('type', { type: n.type });
    }
    if (n.str) {
      if (typeof data === 'string') {
        const { maxLength, minLength, pattern: p } = n.str;
        // ajv counts code points (a surrogate pair is one), as Go's utf8.RuneCountInString does for kube.
        if (maxLength !== undefined && data.length > maxLength && codePoints(data) > maxLength) fail('maxLength', { limit: maxLength });
        if (minLength !== undefined && codePoints(data) < minLength) fail('minLength', { limit: minLength });
        if (p !== undefined && !pattern(p).test(data)) fail('pattern', { pattern: p });
      } else if (n.typeInGroup === 'string') fail('type', { type: n.type });
    }
    if (n.arr) {
      if (Array.isArray(data)) {
        const a = n.arr;
        if (a.maxItems !== undefined && data.length > a.maxItems) fail('maxItems', { limit: a.maxItems });
        if (a.minItems !== undefined && data.length < a.minItems) fail('minItems', { limit: a.minItems });
        // ajv places items before uniqueItems.
        if (a.items) for (let i = 0; i < data.length; i++) walk(a.items, data[i], `${path}/${i}`, errs);
        if (a.uniqueItems === true) {
          const dup = firstDuplicate(data, a.itemTypes);
          if (dup) fail('uniqueItems', dup);
        }
      } else if (n.typeInGroup === 'array') fail('type', { type: n.type });
    }
    if (n.obj) {
      if (isPlainObject(data)) objectKeywords(n.obj, data, path, errs, fail);
      else if (n.typeInGroup === 'object') fail('type', { type: n.type });
    }
  };

  const objectKeywords = (
    o: NonNullable<Node['obj']>,
    data: Record<string, unknown>,
    path: string,
    errs: SchemaError[],
    fail: (keyword: string, params: Record<string, unknown>, at?: string) => void,
  ): void => {
    const keys = Object.keys(data);
    if (o.maxProperties !== undefined && keys.length > o.maxProperties) fail('maxProperties', { limit: o.maxProperties });
    if (o.minProperties !== undefined && keys.length < o.minProperties) fail('minProperties', { limit: o.minProperties });
    if (o.required) for (const r of o.required) if (!Object.hasOwn(data, r)) fail('required', { missingProperty: r });
    const ap = o.additionalProperties;
    if (ap === false || (ap !== undefined && ap !== true)) {
      for (const k of keys) {
        if (o.properties?.has(k) || o.patternProperties?.some((pp) => pattern(pp.pattern).test(k))) continue;
        if (ap === false) fail('additionalProperties', { additionalProperty: k });
        else walk(ap, data[k], `${path}/${pointerEscape(k)}`, errs);
      }
    }
    if (o.properties) {
      // The value's keys, not the schema's: a 12,000-property schema costs a small object nothing more.
      const hits: { at: number; key: string; node: Node }[] = [];
      for (const k of keys) {
        const p = o.properties.get(k);
        if (p) hits.push({ at: p.at, key: k, node: p.node });
      }
      if (hits.length > 1) hits.sort((a, b) => a.at - b.at);
      for (const h of hits) walk(h.node, data[h.key], `${path}/${pointerEscape(h.key)}`, errs);
    }
    if (o.patternProperties) {
      for (const pp of o.patternProperties) {
        for (const k of keys) if (pattern(pp.pattern).test(k)) walk(pp.node, data[k], `${path}/${pointerEscape(k)}`, errs);
      }
    }
  };

  return {
    nodes,
    validate(data: unknown): SchemaError[] {
      const errs: SchemaError[] = [];
      walk(root, data, '', errs);
      return errs;
    },
  };
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

function numberKeywords(
  k: NonNullable<Node['num']>,
  v: number,
  fail: (keyword: string, params: Record<string, unknown>) => void,
): void {
  if (k.maximum !== undefined && (v > k.maximum || Number.isNaN(v))) fail('maximum', { comparison: '<=', limit: k.maximum });
  if (k.minimum !== undefined && (v < k.minimum || Number.isNaN(v))) fail('minimum', { comparison: '>=', limit: k.minimum });
  if (k.exclusiveMaximum !== undefined && (v >= k.exclusiveMaximum || Number.isNaN(v))) fail('exclusiveMaximum', { comparison: '<', limit: k.exclusiveMaximum });
  if (k.exclusiveMinimum !== undefined && (v <= k.exclusiveMinimum || Number.isNaN(v))) fail('exclusiveMinimum', { comparison: '>', limit: k.exclusiveMinimum });
  if (k.multipleOf !== undefined) {
    // ajv's test, kept: the quotient must print as an integer (so 1e21 multiples fail, as they did).
    const r = v / k.multipleOf;
    if (k.multipleOf === 0 || r !== parseInt(String(r), 10)) fail('multipleOf', { multipleOf: k.multipleOf });
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

/** JSON pointer escaping of one key, as ajv writes instancePath (`~` → `~0`, `/` → `~1`). */
function pointerEscape(k: string): string {
  return k.includes('~') || k.includes('/') ? k.replace(/~/g, '~0').replace(/\//g, '~1') : k;
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
function listTypeDuplicates(n: Node, data: unknown[], path: string, errs: SchemaError[]): void {
  const seen = new Set<string>();
  if (n.listType === 'set') {
    data.forEach((item, i) => {
      const k = JSON.stringify(item);
      if (seen.has(k)) errs.push({ keyword: 'x-kubernetes-list-type', instancePath: `${path}/${i}`, params: { kind: 'duplicate', value: item } });
      seen.add(k);
    });
  } else if (n.listType === 'map') {
    data.forEach((item, i) => {
      if (!isPlainObject(item)) return;
      const sig = JSON.stringify(n.listMapKeys.map((k) => ownValue(item, k)));
      if (seen.has(sig)) {
        const kv: Record<string, unknown> = {};
        for (const k of n.listMapKeys) if (Object.hasOwn(item, k)) setOwnValue(kv, k, item[k]);
        errs.push({ keyword: 'x-kubernetes-list-type', instancePath: `${path}/${i}`, params: { kind: 'duplicateMap', value: kv } });
      }
      seen.add(sig);
    });
  }
}
