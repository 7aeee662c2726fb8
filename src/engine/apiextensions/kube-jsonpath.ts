/**
 * Evaluation of kube's JSONPath templates (k8s.io/client-go/util/jsonpath, FindResults) over decoded JSON, with
 * `AllowMissingKeys(true)` as the CRD table convertor and selectable fields use it. Mirrors kube's edge cases
 * because they decide what a `kubectl get` cell shows: a missing key or a `null` parent yields no result, an
 * out-of-range index or a type mismatch inside a filter is an error (the cell becomes null), and a filter
 * comparing an int with a float or a string fails rather than coercing.
 *
 * Go's evaluator returns (values, err) pairs and some callers use the values even on error (an `exists` filter
 * does), so the internal functions return both as well.
 */
import { isPlainObject } from './types.js';
import { GoFloat, goSprint, isGoInt } from './go-format.js';
import { parseTemplate, type JPList, type JPNode, type JPParam } from './jsonpath-parser.js';

/** A value flowing through evaluation: decoded JSON (null included) or a template literal. */
type Value = unknown;
type Result = [Value[], string?];

export interface CompiledJSONPath {
  /** kube's FindResults: one result list per top-level template node. Throws with kube's error text. */
  findResults(data: unknown): Value[][];
}

/** Parse `template` (already wrapped in `{…}` where kube wraps it). Throws on a syntax error, as kube's Parse does. */
export function compileJSONPath(template: string, options: { allowMissingKeys?: boolean } = {}): CompiledJSONPath {
  const root = parseTemplate(template);
  const allowMissing = options.allowMissingKeys ?? true;
  return {
    findResults(data) {
      const cur = [data];
      const full: Value[][] = [];
      for (const node of root.nodes) {
        const [values, err] = walk(cur, node, allowMissing);
        if (err !== undefined) throw new Error(err);
        full.push(values);
      }
      return full;
    },
  };
}

/** A template literal float is still a number once it leaves evaluation. */
export function plainValue(v: Value): unknown {
  return v instanceof GoFloat ? v.value : v;
}

function walk(input: Value[], node: JPNode, allowMissing: boolean): Result {
  switch (node.kind) {
    case 'list':
      return evalList(input, node, allowMissing);
    case 'text':
      return [[node.text]];
    case 'field':
      return evalField(input, node.name, allowMissing);
    case 'array':
      return evalArray(input, node.params);
    case 'filter':
      return evalFilter(input, node, allowMissing);
    case 'int':
    case 'bool':
      return [input.map(() => node.value)];
    case 'float':
      return [input.map(() => new GoFloat(node.value))];
    case 'wildcard':
      return [input.flatMap(children)];
    case 'recursive':
      return [evalRecursive(input)];
    case 'union': {
      const out: Value[] = [];
      for (const list of node.lists) {
        const [values, err] = evalList(input, list, allowMissing);
        if (err !== undefined) return [input, err];
        out.push(...values);
      }
      return [out];
    }
    case 'identifier':
      // range/end only make sense in kubectl's multi-node output templates; a column path never needs them.
      if (node.name === 'range' || node.name === 'end') return [input, `${node.name} is not supported here`];
      return [input, `unrecognized identifier ${node.name}`];
  }
}

function evalList(input: Value[], list: JPList, allowMissing: boolean): Result {
  let cur = input;
  for (const node of list.nodes) {
    const [values, err] = walk(cur, node, allowMissing);
    if (err !== undefined) return [values, err];
    cur = values;
  }
  return [cur];
}

function evalField(input: Value[], name: string, allowMissing: boolean): Result {
  if (input.length === 0) return [[]];
  const out: Value[] = [];
  for (const v of input) {
    // A null parent is skipped; only map keys resolve (arrays and scalars have no fields).
    if (isPlainObject(v) && Object.prototype.hasOwnProperty.call(v, name)) out.push(v[name]);
  }
  if (out.length === 0 && !allowMissing) return [out, `${name} is not found`];
  return [out];
}

/** Go's reflect type name for messages like "string is not array or slice". */
function typeName(v: Value): string {
  if (Array.isArray(v)) return '[]interface {}';
  if (isPlainObject(v)) return 'map[string]interface {}';
  if (typeof v === 'number') return isGoInt(v) ? 'int64' : 'float64';
  if (v instanceof GoFloat) return 'float64';
  return typeof v === 'boolean' ? 'bool' : typeof v;
}

function evalArray(input: Value[], params: readonly JPParam[]): Result {
  const out: Value[] = [];
  for (const v of input) {
    if (v === null || v === undefined) continue;
    if (!Array.isArray(v)) return [input, `${typeName(v)} is not array or slice`];
    const len = v.length;
    const [p0, p1, p2] = params as [JPParam, JPParam, JPParam];
    let start = p0.known ? p0.value : 0;
    if (start < 0) start += len;
    let end = p1.known ? p1.value : len;
    if (end < 0 || (end === 0 && p1.derived)) end += len;
    if (end === start) return [out]; // kube returns at once here, skipping the remaining inputs
    if (start >= len || start < 0) return [input, `array index out of bounds: index ${start}, length ${len}`];
    if (end > len || end < 0) return [input, `array index out of bounds: index ${end - 1}, length ${len}`];
    if (start > end) return [input, `starting index ${start} is greater than ending index ${end}`];
    let step = 1;
    if (p2.known) {
      if (p2.value <= 0) return [input, 'step must be > 0'];
      step = p2.value;
    }
    for (let i = start; i < end; i += step) out.push(v[i]);
  }
  return [out];
}

/** Contents of a map, slice or string (a string yields its UTF-8 bytes, as Go's reflect.Value.Index does). */
function children(v: Value): Value[] {
  if (Array.isArray(v)) return [...v];
  if (isPlainObject(v)) return Object.values(v);
  if (typeof v === 'string') return [...Buffer.from(v, 'utf8')];
  return [];
}

function evalRecursive(input: Value[]): Value[] {
  const out: Value[] = [];
  for (const v of input) {
    if (v === null || v === undefined) continue;
    const kids = children(v);
    if (kids.length > 0) out.push(v, ...evalRecursive(kids));
  }
  return out;
}

function evalFilter(input: Value[], node: Extract<JPNode, { kind: 'filter' }>, allowMissing: boolean): Result {
  const out: Value[] = [];
  for (const v of input) {
    if (!Array.isArray(v)) return [input, `${goSprint(v)} is not array or slice and cannot be filtered`];
    for (const item of v) {
      const [lefts, leftErr] = evalList([item], node.left, allowMissing);
      if (node.op === 'exists') {
        if (lefts.length > 0) out.push(item);
        continue;
      }
      if (leftErr !== undefined) return [input, leftErr];
      if (lefts.length === 0) continue;
      if (lefts.length > 1) return [input, 'can only compare one element at a time'];
      const [rights, rightErr] = evalList([item], node.right, allowMissing);
      if (rightErr !== undefined) return [input, rightErr];
      if (rights.length === 0) continue;
      if (rights.length > 1) return [input, 'can only compare one element at a time'];
      const verdict = compare(node.op, lefts[0], rights[0]);
      if (typeof verdict === 'string') return [out, verdict];
      if (verdict) out.push(item);
    }
  }
  return [out];
}

type Kind = 'bool' | 'int' | 'float' | 'string';

function basicKind(v: Value): Kind | undefined {
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return isGoInt(v) ? 'int' : 'float';
  if (v instanceof GoFloat) return 'float';
  return undefined;
}

const BAD_TYPE = 'invalid type for comparison';
const BAD_COMPARISON = 'incompatible types for comparison';

/** text/template's eq/lt family as forked into client-go: a boolean, or the error text. */
function compare(op: string, a: Value, b: Value): boolean | string {
  const ka = basicKind(a);
  const kb = basicKind(b);
  if (!ka || !kb) return BAD_TYPE;
  const x = a instanceof GoFloat ? a.value : a;
  const y = b instanceof GoFloat ? b.value : b;
  const equal = (): boolean | string => (ka !== kb ? BAD_COMPARISON : x === y);
  const less = (): boolean | string => {
    if (ka !== kb) return BAD_COMPARISON;
    if (ka === 'bool') return BAD_TYPE;
    return (x as number | string) < (y as number | string);
  };
  switch (op) {
    case '==':
      return equal();
    case '!=': {
      const e = equal();
      return typeof e === 'string' ? e : !e;
    }
    case '<':
      return less();
    case '<=': {
      const l = less();
      return l === true || typeof l === 'string' ? l : equal();
    }
    case '>': {
      const l = less();
      if (typeof l === 'string') return l;
      if (l) return false;
      const e = equal();
      return typeof e === 'string' ? e : !e;
    }
    case '>=': {
      const l = less();
      return typeof l === 'string' ? l : !l;
    }
    default:
      return `unrecognized filter operator ${op}`;
  }
}
