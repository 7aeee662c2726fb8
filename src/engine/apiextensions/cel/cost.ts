/**
 * An upper bound of a rule's evaluation cost, computed over the parsed expression with the most elements each value
 * can have: from the schema at CRD write time (kube's static estimate, refused past its limits), from the object's
 * actual sizes just before a rule runs (charged against the per-request budget before any work is done). Costs
 * follow cel-go's model (checker/cost.go): 1 per variable, field selection, index and simple call; strings cost a
 * tenth of their length to traverse; a comprehension costs its range's size times its body; regexes cost
 * string traversal times a quarter of the pattern's length.
 * Sound rather than exact: where cel-go's estimate would depend on a detail we do not model, this charges the larger.
 */
import { MAX_REQUEST_SIZE_BYTES, type CelNode } from './decl-types.js';
import { SETS_COST_FACTORS } from './sets.js';
import { MAX_NAME_FORMAT_REGEX_SIZE, NAMED_FORMATS, NAMESPACES, NOMINAL_COST_FUNCTIONS, PARSING_FUNCTIONS } from './typed-libraries.js';

const STRING_TRAVERSAL = 0.1;
/** cel-go's common.ListCreateBaseCost and MapCreateBaseCost. */
const LIST_CREATE_BASE_COST = 10;
const MAP_CREATE_BASE_COST = 30;
const REGEX_LENGTH = 0.25;

/** kube's limits (apiextensions-apiserver validation.go, apiserver celconfig). */
export const PER_CALL_LIMIT = 1_000_000;
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;

export interface Ast {
  op: string;
  args: unknown;
}

interface Estimate {
  cost: number;
  /** Most elements of the result (chars, items, entries); 1 for scalars. */
  size: number;
  node?: CelNode;
}

export type SizeOf = (node: CelNode) => number;

interface Scope {
  vars: Map<string, Estimate>;
  sizeOf: SizeOf;
  /** At run time: how many values (every nested one) the values at a node hold, for what deep equality walks. */
  deepOf?: SizeOf;
}

const MACROS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);
const STRING_FNS = new Set([
  'contains', 'startsWith', 'endsWith', 'lowerAscii', 'upperAscii', 'trim', 'replace', 'split', 'indexOf', 'lastIndexOf',
  'substring', 'charAt', 'reverse', 'join', 'string', 'bytes', 'int', 'uint', 'double', 'timestamp', 'duration',
]);
const REGEX_FNS = new Set(['matches', 'find', 'findAll']);
const LIST_FNS = new Set(['sum', 'min', 'max', 'isSorted', 'indexOf', 'lastIndexOf']);

const traverse = (n: number) => Math.ceil(n * STRING_TRAVERSAL);
const UNKNOWN: Estimate = { cost: 1, size: MAX_REQUEST_SIZE_BYTES };

/**
 * The cost bound of `ast` with `self` (and `oldSelf`) of `root`. `deepOf` (at run time only): comparing objects,
 * maps and lists is charged by every value they hold, not by their own entries as cel-go's estimate charges it.
 * cel-go walks them in a fraction of the time, and its run time rarely meets it; in kcpt, `self == oldSelf` on each of
 * 100 nested objects over a 600,000-item list walked it 100 times (5-8 s, 13-21 s over 900 levels) for a charge of
 * a few hundred.
 */
export function estimateCost(ast: Ast, root: CelNode, sizeOf: SizeOf, deepOf?: SizeOf): number {
  const self: Estimate = { cost: 1, size: sizeOf(root), node: root };
  const scope: Scope = { vars: new Map([['self', self], ['oldSelf', self]]), sizeOf, deepOf };
  return est(ast, scope).cost;
}

function child(e: Estimate, scope: Scope, fieldName?: string): Estimate {
  const n = e.node;
  // A value of unknown shape (no schema node): its items may be as large as a request.
  if (!n) return { cost: 0, size: MAX_REQUEST_SIZE_BYTES };
  let c: CelNode | undefined;
  if (n.kind === 'object' && fieldName !== undefined) c = n.fields?.get(fieldName)?.node;
  else if (n.kind === 'list' || n.kind === 'map') c = n.elem;
  if (!c) return { cost: 0, size: n.kind === 'dyn' ? e.size : MAX_REQUEST_SIZE_BYTES };
  return { cost: 0, size: c.fixedSize ?? scope.sizeOf(c), node: c };
}

function sumArgs(list: Estimate[]): number {
  return list.reduce((a, e) => a + e.cost, 0);
}

/** Cost of comparing two values of `size` elements each for equality (deep values: every element once). */
function equalityCost(a: Estimate, b: Estimate, scope: Scope): number {
  const kind = a.node?.kind ?? b.node?.kind;
  if (kind === 'string') return Math.max(1, traverse(Math.min(a.size, b.size)));
  if (kind === 'int' || kind === 'double' || kind === 'bool') return 1;
  const deep = (e: Estimate) => (scope.deepOf && e.node ? Math.max(e.size, scope.deepOf(e.node)) : e.size);
  return Math.max(1, Math.min(deep(a), deep(b), MAX_REQUEST_SIZE_BYTES));
}

function est(ast: Ast, scope: Scope): Estimate {
  const args = ast.args as unknown;
  switch (ast.op) {
    case 'value': {
      const v = args;
      if (typeof v === 'string') return { cost: 0, size: v.length, node: STRING };
      if (v instanceof Uint8Array) return { cost: 0, size: v.length };
      return { cost: 0, size: 1 };
    }
    case 'id':
      return scope.vars.get(args as string) ? { ...scope.vars.get(args as string)!, cost: 1 } : { cost: 1, size: MAX_REQUEST_SIZE_BYTES };
    case '.':
    case '.?': {
      const [obj, name] = args as [Ast, string];
      const o = est(obj, scope);
      const c = child(o, scope, name);
      return { ...c, cost: o.cost + 1 };
    }
    case '[]':
    case '[?]': {
      const [obj, idx] = args as [Ast, Ast];
      const o = est(obj, scope);
      const i = est(idx, scope);
      const c = child(o, scope, idx.op === 'value' && typeof idx.args === 'string' ? idx.args : undefined);
      return { ...c, cost: o.cost + i.cost + 1 };
    }
    case 'list': {
      // Building a list literal: cel-go's 10 (ListCreateBaseCost), or 1 per element where that is more (the
      // work is per element, even of constants, which cost nothing themselves).
      // Its items are as large as its largest item: iterating `[self.a, self.b]` visits lists of their sizes.
      const items = (args as Ast[]).map((a) => est(a, scope));
      const largest = items.reduce<Estimate | undefined>((m, e) => (!m || e.size > m.size ? e : m), undefined);
      const node = largest && listOf({ cost: 0, size: largest.size, node: largest.node ?? SCALAR });
      return { cost: sumArgs(items) + Math.max(LIST_CREATE_BASE_COST, 1 + items.length), size: items.length, node };
    }
    case 'map': {
      const entries = (args as Array<[Ast, Ast]>).flatMap(([k, v]) => [est(k, scope), est(v, scope)]);
      // Likewise a map literal: cel-go's 30 (MapCreateBaseCost), or 1 per key and value where that is more.
      return { cost: sumArgs(entries) + Math.max(MAP_CREATE_BASE_COST, 1 + entries.length), size: entries.length / 2 };
    }
    case '&&':
    case '||':
    case '?:': {
      const parts = (args as Ast[]).map((a) => est(a, scope));
      const [, then, otherwise] = parts;
      const node = ast.op === '?:' ? widen(then, otherwise, scope) : undefined;
      return { cost: sumArgs(parts), size: Math.max(...parts.map((p) => p.size)), node };
    }
    case 'call':
      return call(args as [string, Ast[]], undefined, scope);
    case 'rcall': {
      const [name, recv, rest] = args as [string, Ast, Ast[]];
      return call([name, rest], recv, scope);
    }
    default:
      return operator(ast, scope);
  }
}

function operator(ast: Ast, scope: Scope): Estimate {
  const raw = ast.args;
  const operands = (Array.isArray(raw) ? raw : [raw]).filter((a): a is Ast => !!a && typeof a === 'object' && 'op' in a);
  const parts = operands.map((a) => est(a, scope));
  const base = sumArgs(parts);
  const [l, r] = parts;
  switch (ast.op) {
    case '==':
    case '!=': {
      const typed = typedEqualityCost(ast.op, l);
      return { cost: base + (typed ?? equalityCost(l, r, scope)), size: 1 };
    }
    case '<':
    case '<=':
    case '>':
    case '>=':
      return { cost: base + (l.node?.kind === 'string' || r?.node?.kind === 'string' ? Math.max(1, traverse(Math.min(l.size, r.size))) : 1), size: 1 };
    case '+': {
      const size = l.size + r.size;
      const kind = l.node?.kind;
      return { cost: base + Math.max(1, kind === 'list' ? size : traverse(size)), size, node: kind === 'list' ? widen(l, r, scope) : kind === 'string' ? STRING : undefined };
    }
    case 'in':
      return { cost: base + (r.node?.kind === 'map' ? 1 : r.size * equalityCost(l, { cost: 0, size: l.size, node: r.node?.elem }, scope)), size: 1 };
    default:
      return { cost: base + 1, size: Math.max(1, ...parts.map((p) => p.size)) };
  }
}

function call([name, argAsts]: [string, Ast[]], recvAst: Ast | undefined, scope: Scope): Estimate {
  if (MACROS.has(name) && recvAst && argAsts.length >= 2 && argAsts[0].op === 'id') {
    const recv = est(recvAst, scope);
    const n = recv.size;
    const elem: Estimate = recv.node?.kind === 'map' ? { cost: 1, size: MAX_REQUEST_SIZE_BYTES } : { ...child(recv, scope), cost: 1 };
    const inner: Scope = { sizeOf: scope.sizeOf, deepOf: scope.deepOf, vars: new Map(scope.vars).set(argAsts[0].args as string, elem) };
    const body = argAsts.slice(1).map((a) => est(a, inner));
    const per = sumArgs(body) + 1;
    const produced = name === 'map' ? body[body.length - 1] : elem;
    return { cost: recv.cost + n * per + (name === 'map' || name === 'filter' ? n : 0), size: name === 'map' || name === 'filter' ? n : 1, node: name === 'map' || name === 'filter' ? listOf(produced) : undefined };
  }
  if (name === 'has') return { cost: 1 + sumArgs(argAsts.map((a) => est(a, scope))) , size: 1 };
  // `strings.quote(s)`, `format.named(n)`, `ip.isCanonical(s)`: one function in kube, no variable read.
  const namespaced = recvAst?.op === 'id' && NAMESPACES.has(recvAst.args as string) && !scope.vars.has(recvAst.args as string);
  const recv = recvAst && !namespaced ? est(recvAst, scope) : undefined;
  const args = argAsts.map((a) => est(a, scope));
  if (namespaced && recvAst?.args === 'sets' && args.length === 2) return setsCall(name, args, scope);
  const typed = typedLibraryCall(name, namespaced, recv, args, recvAst);
  if (typed) return typed;
  const base = (recv?.cost ?? 0) + sumArgs(args);
  const subject = recv ?? args[0];
  if (name === 'size') return { cost: base + 1, size: 1 };
  if (name === 'format') {
    // The result holds the template and every argument's text: sizes of a list literal's items, else unknown.
    const list = argAsts[0];
    const parts = list?.op === 'list' ? (list.args as Ast[]).map((a) => est(a, scope).size) : [MAX_REQUEST_SIZE_BYTES];
    const size = (recv?.size ?? 0) + parts.reduce((a, b) => a + b, 0);
    return { cost: base + Math.max(1, traverse(size)), size };
  }
  if (REGEX_FNS.has(name)) {
    const s = recv ?? args[0];
    const re = recv ? args[0] : args[1];
    const node = name === 'findAll' ? listOf({ cost: 0, size: s?.size ?? MAX_REQUEST_SIZE_BYTES, node: STRING }) : undefined;
    return { cost: base + Math.max(1, traverse(s?.size ?? 0)) * Math.max(1, Math.ceil((re?.size ?? 0) * REGEX_LENGTH)), size: name === 'matches' ? 1 : (s?.size ?? 1), node };
  }
  if (LIST_FNS.has(name) && subject?.node?.kind === 'list') {
    const elem = child(subject, scope);
    return { cost: base + subject.size * (elem.node?.kind === 'string' ? Math.max(1, traverse(elem.size)) : 1), size: elem.size, node: elem.node };
  }
  if (STRING_FNS.has(name)) {
    const total = (subject?.size ?? 0) + args.reduce((a, e) => a + e.size, 0);
    let size = subject?.size ?? 1;
    if (name === 'replace') size = (subject?.size ?? 0) * Math.max(1, args[1]?.size ?? 1) + (subject?.size ?? 0);
    if (name === 'join') size = subject?.size ? subject.size * (child(subject, scope).size + (args[0]?.size ?? 0)) : total;
    if (name === 'split') size = (subject?.size ?? 0) + 1;
    const cost = name === 'join' || name === 'replace' ? traverse(size) : traverse(total);
    // split's items are each at most the string.
    const node = name === 'split' ? listOf({ cost: 0, size: subject?.size ?? MAX_REQUEST_SIZE_BYTES, node: STRING }) : undefined;
    return { cost: base + Math.max(1, cost), size, node };
  }
  return { cost: base + Math.max(1, traverse(args.reduce((a, e) => a + e.size, recv?.size ?? 0))), size: Math.max(1, recv?.size ?? 1, ...args.map((a) => a.size)) };
}

/**
 * cel-go's ext sets: 1 plus the factor times both lists' sizes (every pair compared). At run time each pair is
 * priced as `==` on the elements (deep values: every value they hold), for cel-js compares them pairwise.
 */
function setsCall(name: string, args: Estimate[], scope: Scope): Estimate {
  const [a, b] = args;
  const pair = scope.deepOf ? equalityCost(child(a, scope), child(b, scope), scope) : 1;
  return { cost: sumArgs(args) + 1 + Math.ceil((SETS_COST_FACTORS[name] ?? 1) * a.size * b.size * pair), size: 1 };
}

/** The MaxRegexSize of the format a validate() receiver names (`format.uri()`), else the largest any has. */
function namedFormatRegexSize(recv: Ast | undefined): number {
  const largest = Math.max(...Object.values(NAMED_FORMATS).map((f) => f.maxRegexSize));
  if (recv?.op !== 'rcall') return largest;
  const [fn, on] = recv.args as [string, Ast];
  return on.op === 'id' && on.args === 'format' && Object.hasOwn(NAMED_FORMATS, fn) ? NAMED_FORMATS[fn].maxRegexSize : largest;
}

/**
 * kube's costs for the typed libraries (apiserver pkg/cel/library cost.go): a traversal of the string parsed, 1 for
 * accessors, comparisons and arithmetic, byte-list comparisons for containsIP/containsCIDR, validate() as a regex of
 * MaxNameFormatRegexSize. strings.quote costs 1 in kube whatever the length; here 1 more per character: it writes
 * each (escaping a byte costs ~20-60 ns here, ten times a traversal's share), and at 1 a rule could copy megabytes
 * per unit of budget.
 * Their values (Quantity, IP, CIDR, Semver, Format) have size 1: equality on them is kube's 1.
 */
/** A value of one of kube's typed library types (size 1), so that equality on it is priced as kube prices it. */
const typedNode = (type: string): CelNode => ({ kind: 'dyn', schema: {}, type, maxSize: 1, bounded: true, minSerializedSize: 1 });
const TYPED = {
  quantity: typedNode('kubernetes.Quantity'),
  ip: typedNode('net.IP'),
  cidr: typedNode('net.CIDR'),
  semver: typedNode('kubernetes.Semver'),
  format: typedNode('kubernetes.NamedFormat'),
};
const TYPED_NODES = new Set<CelNode>(Object.values(TYPED));

/** What each typed-library function returns (for the functions returning one of the types). */
const RETURNS: Record<string, CelNode> = { quantity: TYPED.quantity, add: TYPED.quantity, sub: TYPED.quantity, cidr: TYPED.cidr, masked: TYPED.cidr, semver: TYPED.semver };

/** kube's MaxFormatSize: equality on a NamedFormat compares names of at most this many characters. */
const MAX_FORMAT_SIZE = 64;

/**
 * `==` on a typed value is kube's 1 (a NamedFormat: its name's traversal). `!=` is not in kube's estimator, so
 * cel-go prices it as a comparison of values of unknown, maximal size: ~1.8e18, and kube refuses at CRD write any
 * rule writing `!=` between quantities, IPs, CIDRs, semvers or formats (`!(a == b)` costs 1) — so does kcpt.
 */
function typedEqualityCost(op: string, l: Estimate): number | undefined {
  if (!l.node || !TYPED_NODES.has(l.node)) return undefined;
  if (op === '!=') return Math.ceil(Number(2n ** 64n - 1n) * STRING_TRAVERSAL);
  return l.node === TYPED.format ? Math.ceil(MAX_FORMAT_SIZE * STRING_TRAVERSAL) : 1;
}

function typedLibraryCall(name: string, namespaced: boolean, recv: Estimate | undefined, args: Estimate[], recvAst?: Ast): Estimate | undefined {
  const base = (recv?.cost ?? 0) + sumArgs(args);
  const strArg = args[0];
  const parse = (factor: number) => Math.ceil((strArg?.size ?? 0) * STRING_TRAVERSAL * factor);
  // containsIP/containsCIDR given an IP or CIDR (not a string) parse nothing.
  const parseArg = strArg?.node && TYPED_NODES.has(strArg.node) ? 0 : parse(1);
  if (namespaced) {
    if (name === 'quote') return { cost: base + 1 + (strArg?.size ?? 0), size: 2 * (strArg?.size ?? 0) + 2, node: STRING };
    if (name === 'isCanonical') return { cost: base + parse(2), size: 1 };
    return { cost: base + 1, size: 1, node: name === 'named' ? undefined : TYPED.format };
  }
  if (PARSING_FUNCTIONS.has(name) && !recv) return { cost: base + parse(1), size: 1, node: name === 'ip' ? TYPED.ip : RETURNS[name] };
  if (name === 'ip' && recv && args.length === 0) return { cost: base + 1, size: 1, node: TYPED.ip };
  if (NOMINAL_COST_FUNCTIONS.has(name) && recv) return { cost: base + 1, size: 1, node: RETURNS[name] };
  if (name === 'sign' && !recv && args.length === 1) return { cost: base + 1, size: 1 };
  if (name === 'containsIP' && recv) return { cost: base + 4 + parseArg, size: 1 };
  if (name === 'containsCIDR' && recv) return { cost: base + 7 + parseArg, size: 1 };
  if (name === 'validate' && recv) {
    // kube's estimate assumes MaxNameFormatRegexSize, its runtime charge the format's own (uri: 1103): the larger.
    const regex = Math.ceil(Math.max(MAX_NAME_FORMAT_REGEX_SIZE, namedFormatRegexSize(recvAst)) * REGEX_LENGTH);
    return { cost: base + Math.max(1, Math.ceil((1 + (strArg?.size ?? 0)) * STRING_TRAVERSAL)) * regex, size: 1 };
  }
  return undefined;
}

const STRING: CelNode = { kind: 'string', schema: {}, type: 'string', maxSize: MAX_REQUEST_SIZE_BYTES, bounded: false, minSerializedSize: 2 };
/** A literal's item that is no string: its size is the estimate's. */
const SCALAR: CelNode = { kind: 'dyn', schema: {}, type: 'dyn', maxSize: MAX_REQUEST_SIZE_BYTES, bounded: false, minSerializedSize: 1 };

/** A list computed by the expression whose items are `e` (of e.size elements each). */
function listOf(e: Estimate): CelNode | undefined {
  if (!e.node) return undefined;
  const elem: CelNode = { ...e.node, fixedSize: e.size };
  return { kind: 'list', schema: {}, type: `list<${e.node.type}>`, elem, maxSize: 0, bounded: false, minSerializedSize: 2 };
}

/** One of two lists (a ternary's branches, a concatenation's parts): items as large as the larger side's. */
function widen(a: Estimate | undefined, b: Estimate | undefined, scope: Scope): CelNode | undefined {
  if (!a?.node || !b?.node) return a?.node ?? b?.node;
  if (a.node.kind !== 'list' || b.node.kind !== 'list') return a.node;
  const ea = child(a, scope);
  const eb = child(b, scope);
  if (!ea.node || !eb.node) return undefined;
  return listOf({ cost: 0, size: Math.max(ea.size, eb.size), node: ea.node });
}

/** kube's getCostErrorMessage. */
export function costErrorMessage(costName: string, cost: number, limit: number): string {
  const factor = cost / limit;
  let f: string;
  if (factor > 100) f = 'more than 100x';
  else if (factor < 1.5) f = `${factor.toFixed(6)}x`;
  else f = `${factor.toFixed(1)}x`;
  return `${costName} exceeds budget by factor of ${f} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}
