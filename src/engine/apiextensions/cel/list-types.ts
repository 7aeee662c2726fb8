/**
 * x-kubernetes-list-type in CEL, as kube's values (apiserver/pkg/cel/common valuesunstructured.go and
 * valuesreflect.go, v0.37: unstructuredSetList, unstructuredMapList, addToSetList, addToMapList): the left operand
 * decides. A set list's `==` ignores order (same size, same distinct values) and its `X + Y` is a union (X's order,
 * then Y's new elements); both refuse elements that are lists, maps or objects. A map list's `==` matches items by
 * their map keys, then compares them, and its `X + Y` merges by key (X's positions, Y's values, Y's new keys
 * appended). Results of `+` keep the list type; atomic and untyped lists stay positional.
 * Both sides are indexed (Set/Map), never matched pairwise: linear, as the run-time charge of equality and `+` assumes.
 */
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { typedValueName } from './typed-libraries.js';

/** How a converted list's items are matched: by value (set), or by these fields (map; escaped and raw names). */
export type ListSemantics = { kind: 'set' } | { kind: 'map'; fields: string[]; names: string[] };

const SEMANTICS = Symbol('kcpt.listType');

/**
 * The semantics of a schema's list type (none for atomic or untyped lists). `escape`: CEL's field-name escaping;
 * as kube's escapeKeyProps, a name CEL cannot spell is kept as is.
 */
export function listTypeOf(listType: unknown, mapKeys: unknown, escape: (n: string) => string | undefined): ListSemantics | undefined {
  if (listType === 'set') return { kind: 'set' };
  if (listType !== 'map' || !Array.isArray(mapKeys)) return undefined;
  const names = mapKeys.filter((k): k is string => typeof k === 'string');
  return { kind: 'map', names, fields: names.map((n) => escape(n) ?? n) };
}

/** Mark a converted list with its list type. */
export function withListType<T extends unknown[]>(list: T, s: ListSemantics | undefined): T {
  if (s) Object.defineProperty(list, SEMANTICS, { value: s });
  return list;
}

export function listSemantics(v: unknown): ListSemantics | undefined {
  return Array.isArray(v) ? (v as unknown as Record<symbol, ListSemantics | undefined>)[SEMANTICS] : undefined;
}

const bytesKeys = new WeakMap<Uint8Array, string>();

/**
 * A Map key standing for a value as kube keys it (its Go value: an int and a double are different keys, a NaN matches
 * nothing, bytes by content, a typed library value by identity). Undefined for lists, maps and objects.
 */
function valueKey(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return typeof v === 'number' && Number.isNaN(v) ? Symbol('NaN') : v;
  if (Array.isArray(v) || v instanceof Map) return undefined;
  if (v instanceof Date) return `\u0000t${v.getTime()}`;
  if (v instanceof Duration) return `\u0000d${v.seconds}.${v.nanos}`;
  if (v instanceof UnsignedInt) return `\u0000u${v.valueOf()}`;
  if (v instanceof Uint8Array) {
    let k = bytesKeys.get(v);
    if (k === undefined) bytesKeys.set(v, (k = `\u0000b${Buffer.from(v).toString('base64')}`));
    return k;
  }
  return typedValueName(v) === undefined ? undefined : v;
}

/** kube's setElementKey: a set's operations refuse lists, maps and objects as elements. */
function setKey(v: unknown): unknown {
  const k = valueKey(v);
  if (k === undefined) throw new Error('listSet operations are only supported on lists of scalar values');
  return k;
}

function field(item: unknown, s: Extract<ListSemantics, { kind: 'map' }>, i: number): unknown {
  if (item instanceof Map) return item.get(s.names[i]);
  return item && typeof item === 'object' ? (item as Record<string, unknown>)[s.fields[i]] : undefined;
}

/**
 * kube's refValMapKey: the key fields' values (an absent one as null; a non-scalar one, which a valid schema does
 * not have, by identity).
 */
function mapKey(item: unknown, s: Extract<ListSemantics, { kind: 'map' }>): unknown {
  const one = (i: number) => {
    const v = field(item, s, i) ?? null;
    return valueKey(v) ?? v;
  };
  if (s.fields.length === 1) return one(0);
  let key = '';
  for (let i = 0; i < s.fields.length; i++) {
    const k = one(i);
    key += `${typeof k}:${String(k)}\u0001`;
  }
  return key;
}

/**
 * `a == b` with `a` a set or map list (kube's Equal on the left operand): the same size, every item of `b` matched
 * in `a` (by value, or by map keys and then compared with `eq`), and as many distinct ones on both sides.
 */
export function listTypeEqual(a: unknown[], s: ListSemantics, b: unknown, eq: (x: unknown, y: unknown) => boolean): boolean {
  if (!Array.isArray(b) || a.length !== b.length) return false;
  const seen = new Set<unknown>();
  if (s.kind === 'set') {
    const set = new Set(a.map(setKey));
    for (const x of b) {
      const k = setKey(x);
      if (!set.has(k)) return false;
      seen.add(k);
    }
    return seen.size === set.size;
  }
  const byKey = new Map<unknown, unknown>();
  for (const item of a) byKey.set(mapKey(item, s), item);
  for (const item of b) {
    const k = mapKey(item, s);
    if (!byKey.has(k) || !eq(byKey.get(k), item)) return false;
    seen.add(k);
  }
  return seen.size === byKey.size;
}

/** `a + b` with `a` a set list (union) or map list (merge by key); the result keeps `a`'s list type. */
export function listTypeAdd(a: unknown[], s: ListSemantics, b: unknown[]): unknown[] {
  const out = a.slice();
  if (s.kind === 'set') {
    const set = new Set(a.map(setKey));
    for (const x of b) {
      const k = setKey(x);
      if (set.has(k)) continue;
      set.add(k);
      out.push(x);
    }
  } else {
    const at = new Map<unknown, number>();
    a.forEach((item, i) => at.set(mapKey(item, s), i));
    for (const item of b) {
      const i = at.get(mapKey(item, s));
      if (i === undefined) out.push(item);
      else out[i] = item;
    }
  }
  return withListType(out, s);
}

interface BinaryNode {
  op: string;
  args: unknown;
  handle?: (l: unknown, r: unknown, ast: unknown, ev: unknown) => unknown;
}

/**
 * Point `==`, `!=` and `+` at the list-type semantics when their left operand is a set or map list (cel-js's own
 * list overloads are positional and cannot be replaced; the handles of a checked expression can, as
 * bindKubeImplementations does for calls). `eq`: deep equality of items (celEqual).
 */
export function bindListTypeOperators(ast: unknown, eq: (x: unknown, y: unknown) => boolean): void {
  if (!ast || typeof ast !== 'object') return;
  if (Array.isArray(ast)) {
    for (const a of ast) bindListTypeOperators(a, eq);
    return;
  }
  const node = ast as BinaryNode;
  const own = node.handle;
  if (own && (node.op === '==' || node.op === '!=' || node.op === '+')) {
    const op = node.op;
    node.handle = (l, r, n, ev) => {
      const s = listSemantics(l);
      if (!s || !Array.isArray(r)) return own(l, r, n, ev);
      if (op === '+') return listTypeAdd(l as unknown[], s, r);
      const equal = listTypeEqual(l as unknown[], s, r, eq);
      return op === '==' ? equal : !equal;
    };
  }
  bindListTypeOperators(node.args, eq);
}
