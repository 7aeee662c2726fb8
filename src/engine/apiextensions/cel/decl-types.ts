/**
 * CEL types of a structural schema, as kube declares them (apiserver/pkg/cel/common SchemaDeclType): an object with
 * properties is an object type whose fields are the properties (names escaped as kube escapes them), one with
 * additionalProperties a map<string, V>, arrays lists, integer int, number double, boolean bool, string string;
 * int-or-string, and objects that only preserve unknown fields, are dyn. Each node also carries what cost estimation
 * needs: the most elements (maxLength/maxItems/maxProperties, else kube's estimate from the largest request) and the
 * smallest serialized size of a value.
 */
import { Environment } from '@marcbachmann/cel-js';
import { Duration } from '@marcbachmann/cel-js/evaluator';
import { parseGoDuration } from '../../machinery/go-duration.js';
import { ownValue } from '../../machinery/own-properties.js';
import { isPlainObject, type JSONSchemaProps } from '../types.js';
import { typedEqual } from './typed-libraries.js';
import { listSemantics, listTypeEqual, listTypeOf, withListType, type ListSemantics } from './list-types.js';

/** kube's celconfig.MaxRequestSizeBytes: the largest object, so the most elements any unbounded value can have. */
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;

export type CelKind = 'object' | 'map' | 'list' | 'string' | 'bytes' | 'timestamp' | 'duration' | 'int' | 'double' | 'bool' | 'dyn';

export interface CelField {
  /** The property's name in the object. */
  name: string;
  node: CelNode;
}

export interface CelNode {
  kind: CelKind;
  schema: JSONSchemaProps;
  /** The CEL type as cel-js spells it (`list<string>`, `kcpt.t3`). */
  type: string;
  /** Object types: escaped CEL field name → field. */
  fields?: Map<string, CelField>;
  /** Object types: property name → escaped CEL name (only the properties CEL can name). */
  celNames?: Map<string, string>;
  elem?: CelNode;
  ctor?: new () => object;
  /** Most elements: chars of a string, items of a list, entries of a map. */
  maxSize: number;
  /** Whether maxSize comes from the schema (maxItems…) rather than the request-size estimate. */
  bounded: boolean;
  minSerializedSize: number;
  /** An object typed as map<string, dyn> (past MAX_OBJECT_TYPES, or where no rule sees it): converted as dyn. */
  untyped?: boolean;
  /** Values computed by an expression (a map() result's items): their size bound, which no schema node observes. */
  fixedSize?: number;
  /** Lists of x-kubernetes-list-type set or map: how `==` and `+` match their items (list-types.ts). */
  listType?: ListSemantics;
}

const RESERVED = new Set([
  'true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let',
  'loop', 'package', 'namespace', 'return', 'var', 'void', 'while',
]);
const IDENT = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** kube's field-name escaping for CEL (apiserver/pkg/cel/escaping.go); undefined when the name cannot be a field. */
export function escapeFieldName(name: string): string | undefined {
  if (RESERVED.has(name)) return `__${name}__`;
  const out = name.replace(/__|\.|-|\//g, (m) => (m === '__' ? '__underscores__' : m === '.' ? '__dot__' : m === '-' ? '__dash__' : '__slash__'));
  return IDENT.test(out) ? out : undefined;
}

const ESCAPED: Array<[RegExp, string]> = [
  [/__underscores__/g, '__'],
  [/__dot__/g, '.'],
  [/__dash__/g, '-'],
  [/__slash__/g, '/'],
];

/** The property name a CEL field name stands for (for fieldPath, which names properties as CEL does). */
export function unescapeFieldName(name: string): string {
  const m = /^__(.+)__$/.exec(name);
  if (m && RESERVED.has(m[1])) return m[1];
  let out = name;
  for (const [re, s] of ESCAPED) out = out.replace(re, s);
  return out;
}

function isIntOrString(s: JSONSchemaProps): boolean {
  return s['x-kubernetes-int-or-string'] === true;
}

/**
 * The most distinct object types one schema registers. cel-js checks each new type's `type()` overload against all
 * the others (quadratic: 4,000 types took 2.4 s, 20,000 a minute), so a tenant's wide schema would hold the event
 * loop; past this many, objects are typed map<string, dyn> (fields still resolve, at run time rather than compile
 * time). Identical object shapes share one type, and only objects some rule can see are typed at all.
 */
export const MAX_OBJECT_TYPES = 500;

function ownRules(s: JSONSchemaProps): boolean {
  const rules = s['x-kubernetes-validations'];
  return Array.isArray(rules) && rules.length > 0;
}

/** The types of one schema, registered into a cel-js Environment as they are built. */
export class SchemaTypes {
  private readonly shapes = new Map<string, { typeName: string; ctor: new () => object }>();
  constructor(private readonly env: Environment) {}

  build(schema: JSONSchemaProps, isRoot = true): CelNode {
    return this.node(schema, isRoot, false);
  }

  /** `typed`: a rule on this node or above it sees its values, so it needs its CEL type. */
  private node(s: JSONSchemaProps, withMeta: boolean, typedAbove: boolean): CelNode {
    const typed = typedAbove || ownRules(s);
    const embedded = s['x-kubernetes-embedded-resource'] === true;
    if (isIntOrString(s)) return scalar('dyn', s, 1);
    switch (s.type) {
      case 'string':
        // kube types formatted strings: date-time and date as timestamps, duration as durations, byte as bytes.
        if (s.format === 'date-time' || s.format === 'date') return { ...scalar('timestamp', s, 4), type: 'google.protobuf.Timestamp' };
        if (s.format === 'duration') return { ...scalar('duration', s, 4), type: 'google.protobuf.Duration' };
        return {
          ...scalar(s.format === 'byte' ? 'bytes' : 'string', s, 2),
          maxSize: s.maxLength ?? MAX_REQUEST_SIZE_BYTES - 2,
          bounded: s.maxLength !== undefined,
        };
      case 'integer':
        return scalar('int', s, 1);
      case 'number':
        return scalar('double', s, 1);
      case 'boolean':
        return scalar('bool', s, 4);
      case 'array': {
        const elem = isPlainObject(s.items) ? this.node(s.items as JSONSchemaProps, false, typed) : scalar('dyn', {}, 1);
        const max = s.maxItems ?? Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (elem.minSerializedSize + 1));
        const listType = listTypeOf(s['x-kubernetes-list-type'], s['x-kubernetes-list-map-keys'], escapeFieldName);
        return { kind: 'list', schema: s, type: `list<${elem.type}>`, elem, maxSize: max, bounded: s.maxItems !== undefined, minSerializedSize: 2, listType };
      }
      case 'object':
      case undefined: {
        const props = isPlainObject(s.properties) ? (s.properties as Record<string, JSONSchemaProps>) : undefined;
        const add = s.additionalProperties;
        if (!props && !embedded && !withMeta) {
          if (isPlainObject(add)) {
            const elem = this.node(add as JSONSchemaProps, false, typed);
            const max = s.maxProperties ?? Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (elem.minSerializedSize + 4));
            return { kind: 'map', schema: s, type: `map<string, ${elem.type}>`, elem, maxSize: max, bounded: s.maxProperties !== undefined, minSerializedSize: 2 };
          }
          if (s['x-kubernetes-preserve-unknown-fields'] === true || s.type === undefined) return scalar('dyn', s, 1);
        }
        return this.objectNode(s, props ?? {}, withMeta || embedded, typed);
      }
      default:
        return scalar('dyn', s, 1);
    }
  }

  private objectNode(s: JSONSchemaProps, props: Record<string, JSONSchemaProps>, withMeta: boolean, typed: boolean): CelNode {
    const fields = new Map<string, CelField>();
    const celNames = new Map<string, string>();
    const all: Record<string, JSONSchemaProps> = { ...props };
    // kube's WithTypeAndObjectMeta: the root and embedded resources always have apiVersion, kind and metadata.name.
    if (withMeta) {
      all.apiVersion ??= { type: 'string' };
      all.kind ??= { type: 'string' };
      all.metadata = { type: 'object', properties: { name: { type: 'string' }, generateName: { type: 'string' } } };
    }
    for (const [name, child] of Object.entries(all)) {
      if (!isPlainObject(child)) continue;
      const cel = escapeFieldName(name);
      if (!cel) continue;
      fields.set(cel, { name, node: this.node(child, false, typed) });
      celNames.set(name, cel);
    }
    const max = s.maxProperties ?? fields.size;
    const base = { kind: 'object' as const, schema: s, fields, celNames, maxSize: max, bounded: true, minSerializedSize: 2 };
    const decl: Record<string, string> = {};
    for (const [cel, f] of fields) decl[cel] = f.node.type;
    const shape = JSON.stringify(Object.entries(decl));
    let known = this.shapes.get(shape);
    if (!known) {
      if (!typed || this.shapes.size >= MAX_OBJECT_TYPES) return { ...base, type: 'map<string, dyn>', untyped: true };
      known = { typeName: `kcpt.object${this.shapes.size}`, ctor: class {} as new () => object };
      this.env.registerType(known.typeName, { ctor: known.ctor, fields: decl } as never);
      this.env.registerOperator(`${known.typeName} == ${known.typeName}`, (a: unknown, b: unknown) => celEqual(a, b));
      this.shapes.set(shape, known);
    }
    return { ...base, type: known.typeName, ctor: known.ctor };
  }
}

function scalar(kind: CelKind, schema: JSONSchemaProps, minSerializedSize: number): CelNode {
  // A dyn value (int-or-string, unknown fields) can be anything the request holds.
  if (kind === 'dyn') return { kind, schema, type: kind, maxSize: MAX_REQUEST_SIZE_BYTES, bounded: false, minSerializedSize };
  return { kind, schema, type: kind, maxSize: 1, bounded: true, minSerializedSize };
}

/**
 * Deep equality of converted CEL values: objects are compared by their present fields, lists in order unless their
 * list type (the left one's, as kube) says otherwise, timestamps and durations by the instant and length they hold.
 */
export function celEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  // An int and a double of one value are equal (CEL's heterogeneous equality, as cel-js's own ==).
  if ((typeof a === 'bigint' && typeof b === 'number') || (typeof a === 'number' && typeof b === 'bigint')) return a == b;
  if (Array.isArray(a)) {
    const s = listSemantics(a);
    if (s) return listTypeEqual(a, s, b, celEqual);
    return Array.isArray(b) && a.length === b.length && a.every((v, i) => celEqual(v, b[i]));
  }
  // Neither has own fields to compare.
  if (a instanceof Date) return b instanceof Date && a.getTime() === b.getTime();
  if (a instanceof Duration) return b instanceof Duration && a.seconds === b.seconds && a.nanos === b.nanos;
  const typed = typedEqual(a, b);
  if (typed !== undefined) return typed;
  if (a instanceof Map) {
    if (!(b instanceof Map) || a.size !== b.size) return false;
    for (const [k, v] of a) if (!b.has(k) || !celEqual(v, b.get(k))) return false;
    return true;
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.hasOwn(b, k) && celEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return false;
}

type Converter = (ctx: { s: string }) => unknown;
let converters: { timestamp: Converter; duration: Converter } | undefined;

/** cel-js's own parsers of timestamps and durations (its `timestamp(s)` and `duration(s)`), compiled once. */
function formatted(): { timestamp: Converter; duration: Converter } {
  if (converters) return converters;
  const env = new Environment().registerVariable('s', 'string');
  const compile = (expr: string) => {
    const program = env.parse(expr) as unknown as Converter & { check(): unknown };
    program.check();
    return program;
  };
  converters = { timestamp: compile('timestamp(s)'), duration: compile('duration(s)') };
  return converters;
}

/**
 * A date-time the schema's format check let through but cel-js does not parse (strfmt takes more layouts) is read
 * by Date, else left a string: the rule then fails as an evaluation error, never as an exception out of validation.
 */
function toTimestamp(s: string): unknown {
  try {
    return formatted().timestamp({ s });
  } catch {
    const d = new Date(s);
    return Number.isNaN(d.getTime()) ? s : d;
  }
}

/** Likewise a duration: Go's syntax (parseGoDuration), else left a string (strfmt's `3d`, `1 week`). */
function toDuration(s: string): unknown {
  try {
    return formatted().duration({ s });
  } catch {
    try {
      const ns = parseGoDuration(s);
      return new Duration(ns / 1_000_000_000n, Number(ns % 1_000_000_000n));
    } catch {
      return s;
    }
  }
}

/**
 * What one request has converted (validate.ts keeps one per validateRules call): a rule's `self` holds its whole value,
 * so without it the values under nested rules are converted once per rule node above them, quadratic in a deep
 * object (100 nested rules over a 2 MB list took 33 s). Values at `nodes` (those rules see) and dyn values are
 * remembered by object, so each is converted once.
 */
export interface CelConversions {
  nodes: ReadonlySet<CelNode>;
  typed: Map<object, { node: CelNode; value: unknown }>;
  dyn: Map<object, unknown>;
}

export function celConversions(nodes: ReadonlySet<CelNode>): CelConversions {
  return { nodes, typed: new Map(), dyn: new Map() };
}

/** A JSON value as CEL sees it under `node`: integers are BigInt, objects instances of their type, maps Maps. */
export function toCel(node: CelNode, v: unknown, memo?: CelConversions): unknown {
  if (v === null || v === undefined) return null;
  if (!memo || typeof v !== 'object' || !memo.nodes.has(node)) return convert(node, v, memo);
  const seen = memo.typed.get(v);
  if (seen?.node === node) return seen.value;
  const value = convert(node, v, memo);
  memo.typed.set(v, { node, value });
  return value;
}

function convert(node: CelNode, v: unknown, memo: CelConversions | undefined): unknown {
  switch (node.kind) {
    case 'int':
      return typeof v === 'number' ? BigInt(Math.trunc(v)) : v;
    case 'double':
      return v;
    case 'timestamp':
      return typeof v === 'string' ? toTimestamp(node.schema.format === 'date' ? `${v}T00:00:00Z` : v) : v;
    case 'duration':
      return typeof v === 'string' ? toDuration(v) : v;
    case 'bytes':
      return typeof v === 'string' ? new Uint8Array(Buffer.from(v, 'base64')) : v;
    case 'list':
      return Array.isArray(v) ? withListType(v.map((x) => toCel(node.elem!, x, memo)), node.listType) : dyn(v);
    case 'map': {
      if (!isPlainObject(v)) return dyn(v);
      const out = new Map<string, unknown>();
      for (const k of Object.keys(v)) out.set(k, toCel(node.elem!, ownValue(v, k), memo));
      return out;
    }
    case 'object': {
      if (!isPlainObject(v)) return dyn(v);
      // Only an object past MAX_OBJECT_TYPES is untyped where rules see it, and values of rules below it are in it.
      if (node.untyped) return dyn(v, memo);
      const out = new node.ctor!() as Record<string, unknown>;
      for (const k of Object.keys(v)) {
        const cel = node.celNames!.get(k);
        const value = ownValue(v, k);
        if (cel === undefined || value === null) continue;
        out[cel] = toCel(node.fields!.get(cel)!.node, value, memo);
      }
      return out;
    }
    case 'dyn':
      return dyn(v);
    default:
      return v;
  }
}

/**
 * With `memo` (an untyped object's value, whose fields may hold values that rules below it see again), the objects
 * converted are remembered: the lists in it are not, each list under a rule being the value of a typed node.
 */
function dyn(v: unknown, memo?: CelConversions): unknown {
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map((x) => dyn(x, memo));
  if (!isPlainObject(v)) return v;
  const seen = memo?.dyn.get(v);
  if (seen !== undefined) return seen;
  const out = new Map<string, unknown>();
  for (const k of Object.keys(v)) out.set(k, dyn(ownValue(v, k), memo));
  memo?.dyn.set(v, out);
  return out;
}

/** The nodes on the way from `root` to any of `deps` (what observedSizes must walk to find their sizes). */
export function nodesLeadingTo(root: CelNode, deps: ReadonlySet<CelNode>, out = new Set<CelNode>()): Set<CelNode> {
  const visit = (n: CelNode): boolean => {
    let leads = deps.has(n);
    if (n.elem && visit(n.elem)) leads = true;
    if (n.fields) for (const f of n.fields.values()) if (visit(f.node)) leads = true;
    if (leads) out.add(n);
    return leads;
  };
  visit(root);
  return out;
}

/**
 * The most elements each node's values actually have under `v` (string chars, list items, map entries): the sizes
 * a rule's cost is bounded with at run time, so the bound is charged before the rule runs.
 */
const SCALARS = new Set<CelKind>(['int', 'double', 'bool', 'timestamp', 'duration']);

/** Where observedSizes also records the most values (nested ones included) the values at `nodes` hold. */
export interface DeepSizes {
  nodes: ReadonlySet<CelNode>;
  out: Map<CelNode, number>;
  /** The request's counts by object (each counted once, however many rules above it ask). */
  counted: Map<object, number>;
}

/** How many values `v` holds, itself and every nested one (a string as a tenth of its length, as cel-go's traversal). */
export function valueCount(v: unknown, counted: Map<object, number>): number {
  if (typeof v === 'string') return 1 + Math.ceil(v.length / 10);
  if (v === null || typeof v !== 'object') return 1;
  let n = counted.get(v);
  if (n !== undefined) return n;
  n = 1;
  if (Array.isArray(v)) for (const x of v) n += valueCount(x, counted);
  else for (const k of Object.keys(v)) n += valueCount(ownValue(v as Record<string, unknown>, k), counted);
  counted.set(v, n);
  return n;
}

export function observedSizes(
  node: CelNode,
  v: unknown,
  out: Map<CelNode, number> = new Map(),
  relevant?: ReadonlySet<CelNode>,
  deep?: DeepSizes,
): Map<CelNode, number> {
  if (v === null || v === undefined) return out;
  if (deep?.nodes.has(node)) {
    const count = valueCount(v, deep.counted);
    if ((deep.out.get(node) ?? 0) < count) deep.out.set(node, count);
  }
  let n = 0;
  switch (node.kind) {
    case 'string':
    case 'bytes':
      if (typeof v !== 'string') return out;
      n = v.length;
      break;
    case 'list':
      if (!Array.isArray(v)) return out;
      n = v.length;
      if (!relevant || relevant.has(node.elem!)) for (const x of v) observedSizes(node.elem!, x, out, relevant, deep);
      break;
    case 'map':
    case 'object': {
      if (!isPlainObject(v)) return out;
      const keys = Object.keys(v);
      n = node.kind === 'map' ? keys.length : node.fields!.size;
      for (const k of keys) {
        const child = node.kind === 'map' ? node.elem! : node.fields!.get(node.celNames!.get(k) ?? '')?.node;
        if (child && !SCALARS.has(child.kind) && (!relevant || relevant.has(child))) observedSizes(child, v[k], out, relevant, deep);
      }
      break;
    }
    case 'dyn':
      n = JSON.stringify(v)?.length ?? 0;
      break;
    default:
      // Scalars are one element at most: their static bound is exact.
      return out;
  }
  const seen = out.get(node);
  if (seen === undefined || seen < n) out.set(node, n);
  return out;
}
