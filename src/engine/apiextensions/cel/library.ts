/**
 * The CEL environment CRD validation rules compile in: the CEL standard library of @marcbachmann/cel-js plus the
 * Kubernetes library functions kube-apiserver adds (k8s.io/apiserver pkg/cel/library: lists, regex, the strings
 * extension), with kube's semantics where the library's differ (bindKubeImplementations): `matches` and the regex
 * functions are RE2 (linear time: a tenant's pattern can not backtrack), lowerAscii/upperAscii change ASCII letters.
 * The libraries with their own value types (quantity, ip, cidr, semver, format, strings.quote) are in
 * typed-libraries.ts, cel-go's ext sets in sets.ts. Functions kube has that kcpt does not (yet) are named in
 * UNSUPPORTED_FUNCTIONS: a rule calling one is stored, not evaluated (a messageExpression calling one gives way to the
 * rule's message), and the CRD write says so.
 */
import { Environment } from '@marcbachmann/cel-js';
import type { RE2JS } from 're2js';
import { compileRE2 } from '../re2-bounded.js';
import { registerTypedLibraries, typedValueName } from './typed-libraries.js';
import { registerSetsLibrary } from './sets.js';
import { goURLEscapedPath, goURLQuery, parseGoRequestURI, splitGoHostPort, type GoRequestURI } from '../../machinery/go-net-parse.js';

/** kube library functions kcpt does not evaluate: rules using them are skipped (and named in a warning). None left. */
export const UNSUPPORTED_FUNCTIONS = new Set<string>();

const MAX_CACHED_PATTERNS = 256;
const patterns = new Map<string, RE2JS>();

/**
 * RE2 compile (bounded: re2-bounded.ts) with a small cache: rules usually match constant patterns. Throws the CEL
 * runtime error on a bad one.
 */
export function re2(pattern: string): RE2JS {
  let re = patterns.get(pattern);
  if (re) return re;
  try {
    re = compileRE2(pattern);
  } catch (err) {
    // cel-go's error is Go's regexp error, which (as re2js's and compileRE2's) reads `error parsing regexp: …`.
    const message = (err as Error).message;
    throw new Error(message.startsWith('error parsing regexp: ') ? message : `error parsing regexp: ${message}`);
  }
  if (patterns.size >= MAX_CACHED_PATTERNS) patterns.delete(patterns.keys().next().value as string);
  patterns.set(pattern, re);
  return re;
}

const asciiLower = (s: string): string => s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
const asciiUpper = (s: string): string => s.replace(/[a-z]+/g, (m) => m.toUpperCase());

interface CallNode {
  op: string;
  args: unknown;
  handle?: (args: unknown[], ...rest: unknown[]) => unknown;
}

function noOverload(name: string): never {
  throw new Error(`no such overload: ${name}`);
}

/** kube's implementations of standard functions whose cel-js ones differ (JavaScript RegExp backtracks). */
const KUBE_IMPLEMENTATIONS: Record<string, (args: unknown[]) => unknown> = {
  matches: ([s, p]) => (typeof s === 'string' && typeof p === 'string' ? re2(p).matcher(s).find() : noOverload('matches')),
  lowerAscii: ([s]) => (typeof s === 'string' ? asciiLower(s) : noOverload('lowerAscii')),
  upperAscii: ([s]) => (typeof s === 'string' ? asciiUpper(s) : noOverload('upperAscii')),
};

/**
 * Point every call of a function in KUBE_IMPLEMENTATIONS at kube's implementation. cel-js refuses a second overload
 * of a signature it has and freezes its declarations, but a checked expression calls through the handle each call
 * node holds: after the type check, those handles are replaced, so no rule ever runs a JavaScript RegExp.
 */
export function bindKubeImplementations(ast: unknown): void {
  if (!ast || typeof ast !== 'object') return;
  if (Array.isArray(ast)) {
    for (const a of ast) bindKubeImplementations(a);
    return;
  }
  const node = ast as CallNode;
  if ((node.op === 'rcall' || node.op === 'call') && Array.isArray(node.args)) {
    const impl = KUBE_IMPLEMENTATIONS[node.args[0] as string];
    if (impl) node.handle = (args: unknown[]) => impl(args);
  }
  bindKubeImplementations(node.args);
}

function listCompare(a: unknown, b: unknown): number {
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  const x = a as number | bigint;
  const y = b as number | bigint;
  return x < y ? -1 : x > y ? 1 : 0;
}

function extreme(list: unknown[], sign: 1 | -1, fn: string): unknown {
  if (list.length === 0) throw new Error(`${fn} called on empty list`);
  let best = list[0];
  for (const v of list) if (listCompare(v, best) * sign > 0) best = v;
  return best;
}

function sum(list: unknown[], zero: bigint | number): unknown {
  let total: bigint | number = zero;
  for (const v of list) total = (total as number) + (v as number);
  if (typeof total === 'bigint' && (total > 9223372036854775807n || total < -9223372036854775808n)) throw new Error('integer overflow');
  return total;
}

function indexOf(list: unknown[], v: unknown, last: boolean): bigint {
  const same = (x: unknown) => x === v || (typeof x === 'object' && JSON.stringify(x, bigintJSON) === JSON.stringify(v, bigintJSON));
  if (last) {
    for (let i = list.length - 1; i >= 0; i--) if (same(list[i])) return BigInt(i);
  } else for (let i = 0; i < list.length; i++) if (same(list[i])) return BigInt(i);
  return -1n;
}

const bigintJSON = (_k: string, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v instanceof Map ? Object.fromEntries(v) : v);

/** CEL's string conversion of a value, as `%s` prints it. */
function celString(v: unknown): string {
  if (typeof v === 'string') return v;
  const typed = typedValueName(v);
  // cel-go refuses these when it checks a constant format string; kcpt, when it formats.
  if (typed) {
    throw new Error(
      `error during formatting: string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given ${typed}`,
    );
  }
  if (typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) < 1e21 ? String(v) : String(v);
  if (v === null || v === undefined) return 'null';
  if (v instanceof Date) return v.toISOString().replace('.000Z', 'Z');
  if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
  if (Array.isArray(v)) return `[${v.map(celString).join(', ')}]`;
  if (v instanceof Map) return `{${[...v].map(([k, x]) => `${celString(k)}: ${celString(x)}`).join(', ')}}`;
  if (typeof v === 'object' && 'seconds' in v) return `${String((v as { seconds: unknown }).seconds)}s`;
  return String(v);
}

/** Go's %e exponent has at least two digits. */
const goExponent = (s: string) => s.replace(/e([+-])(\d)$/, 'e$10$2');

/** kube's strings library `format` (k8s.io/apiserver pkg/cel/library, cel-go ext.Strings): %s %d %f %e %b %o %x %X %%. */
function formatString(template: string, args: unknown[]): string {
  let i = 0;
  const next = (): unknown => {
    if (i >= args.length) throw new Error('index out of range: not enough arguments for format');
    return args[i++];
  };
  const num = (v: unknown, verb: string): number | bigint => {
    if (typeof v === 'bigint' || typeof v === 'number') return v;
    throw new Error(`error during formatting: ${verb} clause can only be used on numbers, was given ${typeof v}`);
  };
  return template.replace(/%(?:\.(\d+))?([sdfeboxX%])/g, (_m, precision: string | undefined, verb: string) => {
    if (verb === '%') return '%';
    const v = next();
    const p = precision === undefined ? 6 : Number(precision);
    switch (verb) {
      case 's':
        return celString(v);
      case 'd': {
        const n = num(v, 'decimal');
        return typeof n === 'bigint' ? n.toString() : Number.isInteger(n) ? String(n) : String(Math.trunc(n));
      }
      case 'f':
        return Number(num(v, 'fixed-point')).toFixed(p);
      case 'e':
        return goExponent(Number(num(v, 'scientific')).toExponential(p));
      case 'b':
        return typeof v === 'boolean' ? String(v) : BigInt(num(v, 'binary') as bigint).toString(2);
      case 'o':
        return BigInt(num(v, 'octal') as bigint).toString(8);
      default: {
        const hex = typeof v === 'string' ? Buffer.from(v, 'utf8').toString('hex') : v instanceof Uint8Array ? Buffer.from(v).toString('hex') : BigInt(num(v, 'hex') as bigint).toString(16);
        return verb === 'X' ? hex.toUpperCase() : hex;
      }
    }
  });
}

/** A value of kube's CEL `URL` type (k8s.io/apiserver pkg/cel/library urls.go): what url.ParseRequestURI kept. */
export class CelURL {
  constructor(readonly parts: GoRequestURI) {}
}

function parseURL(s: string): CelURL {
  const parts = parseGoRequestURI(s);
  if (!parts) throw new Error(`URL parse error during conversion from string: parse "${s}": invalid URI for request`);
  return new CelURL(parts);
}

/** kube's url library: url(), isURL() and the URL getters. */
function registerURLLibrary(env: Environment): void {
  env.registerType('URL', { ctor: CelURL, fields: {} });
  env.registerFunction('url(string): URL', parseURL);
  env.registerFunction('isURL(string): bool', (s: string) => parseGoRequestURI(s) !== undefined);
  env.registerFunction('URL.getScheme(): string', (u: CelURL) => u.parts.scheme);
  env.registerFunction('URL.getHost(): string', (u: CelURL) => u.parts.host);
  env.registerFunction('URL.getHostname(): string', (u: CelURL) => splitGoHostPort(u.parts.host)[0]);
  env.registerFunction('URL.getPort(): string', (u: CelURL) => splitGoHostPort(u.parts.host)[1]);
  env.registerFunction('URL.getEscapedPath(): string', (u: CelURL) => goURLEscapedPath(u.parts.rawPath));
  env.registerFunction('URL.getQuery(): map<string, list<string>>', (u: CelURL) => goURLQuery(u.parts.rawQuery));
}

let base: Environment | undefined;

/** The shared base environment (frozen once cloned: per-schema environments clone it and add types). */
export function baseEnvironment(): Environment {
  if (base) return base;
  const env = new Environment({ enableOptionalTypes: true, limits: { maxAstNodes: 2000, maxDepth: 100, maxListElements: 1000, maxMapEntries: 1000 } });
  for (const t of ['int', 'double', 'string']) {
    env.registerFunction(`list<${t}>.isSorted(): bool`, (l: unknown[]) => l.every((v, i) => i === 0 || listCompare(l[i - 1], v) <= 0));
    env.registerFunction(`list<${t}>.min(): ${t}`, (l: unknown[]) => extreme(l, -1, 'min'));
    env.registerFunction(`list<${t}>.max(): ${t}`, (l: unknown[]) => extreme(l, 1, 'max'));
    env.registerFunction(`list<${t}>.indexOf(${t}): int`, (l: unknown[], v: unknown) => indexOf(l, v, false));
    env.registerFunction(`list<${t}>.lastIndexOf(${t}): int`, (l: unknown[], v: unknown) => indexOf(l, v, true));
  }
  env.registerFunction('list<int>.sum(): int', (l: unknown[]) => sum(l, 0n));
  env.registerFunction('list<double>.sum(): double', (l: unknown[]) => sum(l, 0));
  env.registerFunction('string.find(string): string', (s: string, p: string) => {
    const m = re2(p).matcher(s);
    return m.find() ? m.group() : '';
  });
  const findAll = (s: string, p: string, limit: bigint): string[] => {
    const out: string[] = [];
    const m = re2(p).matcher(s);
    while ((limit < 0n || BigInt(out.length) < limit) && m.find()) out.push(m.group() ?? '');
    return out;
  };
  env.registerFunction('string.findAll(string): list<string>', (s: string, p: string) => findAll(s, p, -1n));
  env.registerFunction('string.findAll(string, int): list<string>', findAll);
  const replace = (s: string, from: string, to: string, n: bigint): string => {
    if (n < 0n) return s.split(from).join(to);
    let out = s;
    let at = 0;
    for (let i = 0n; i < n; i++) {
      const k = out.indexOf(from, at);
      if (k < 0) break;
      out = out.slice(0, k) + to + out.slice(k + from.length);
      at = k + to.length + (from === '' ? 1 : 0);
    }
    return out;
  };
  env.registerFunction('string.replace(string, string): string', (s: string, a: string, b: string) => replace(s, a, b, -1n));
  env.registerFunction('string.replace(string, string, int): string', replace);
  env.registerFunction('string.charAt(int): string', (s: string, i: bigint) => {
    const chars = [...s];
    if (i < 0n || i > BigInt(chars.length)) throw new Error(`index out of range: ${i}`);
    return chars[Number(i)] ?? '';
  });
  env.registerFunction('string.reverse(): string', (s: string) => [...s].reverse().join(''));
  env.registerFunction('string.format(list): string', formatString);
  registerURLLibrary(env);
  registerTypedLibraries(env);
  registerSetsLibrary(env);
  base = env;
  return env;
}
