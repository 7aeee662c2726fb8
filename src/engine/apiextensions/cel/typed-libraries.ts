/**
 * kube's CEL libraries that bring their own value types (k8s.io/apiserver pkg/cel/library: quantity.go, ip.go,
 * cidr.go, semverlib.go, format.go) and cel-go's `strings.quote`, with kube's overloads and error texts. The values
 * are Go's (machinery/go-quantity, go-net-parse's netip port, go-semver), so rules answer as kube's do.
 * cel-js has no namespaced functions: `strings`, `format` and `ip` are constants of namespace types whose members
 * are the functions (`strings.quote(s)` is a member call on the constant `strings`).
 */
import { Optional, type Environment } from '@marcbachmann/cel-js';
import {
  addGoQuantities,
  compareGoQuantities,
  goQuantityApproximateFloat,
  goQuantityAsInt64,
  goQuantitySign,
  isGoQuantity,
  parseGoQuantityCached,
  type GoQuantity,
} from '../../machinery/go-quantity.js';
import {
  goAddrEqual,
  goAddrString,
  goPrefixContains,
  goPrefixEqual,
  goPrefixMasked,
  goPrefixOverlaps,
  goPrefixString,
  isGo4In6,
  isGoAddrGlobalUnicast,
  isGoAddrLinkLocalMulticast,
  isGoAddrLinkLocalUnicast,
  isGoAddrLoopback,
  isGoAddrUnspecified,
  parseGoAddr,
  parseGoPrefix,
  parseGoRequestURI,
  type GoAddr,
  type GoPrefix,
} from '../../machinery/go-net-parse.js';
import { compareGoSemver, parseGoSemver, parseGoSemverNormalized, type GoSemver } from '../../machinery/go-semver.js';
import { LazyMessageError } from '../../machinery/lazy-error.js';
import { goQuote } from '../../machinery/query-params.js';
import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue, maskTrailingDash } from '../../machinery/validation.js';
import { stringFormatCheck } from '../string-formats.js';

/** A kube Quantity. `fromArithmetic`: kube's add/sub return a pointer, which its Quantity.Equal refuses as operand. */
export class CelQuantity {
  constructor(
    public q: GoQuantity,
    readonly fromArithmetic = false,
  ) {}
}

export class CelIP {
  constructor(readonly addr: GoAddr) {}
}

export class CelCIDR {
  constructor(readonly prefix: GoPrefix) {}
}

export class CelSemver {
  constructor(readonly v: GoSemver) {}
}

/** kube's apiservercel.Format: a named validation (format.dns1123Label(), format.named('uuid')). */
export class CelFormat {
  constructor(
    readonly name: string,
    readonly check: (s: string) => string[],
    /** kube's MaxRegexSize, which its runtime cost of validate() multiplies. */
    readonly maxRegexSize: number,
  ) {}
}

/** The CEL type name of a value of these libraries, else undefined (cel-go's format refuses them for %s). */
export function typedValueName(v: unknown): string | undefined {
  if (v instanceof CelQuantity) return QUANTITY;
  if (v instanceof CelIP) return IP;
  if (v instanceof CelCIDR) return CIDR;
  if (v instanceof CelSemver) return SEMVER;
  if (v instanceof CelFormat) return FORMAT;
  return undefined;
}

/** The namespaces cel-js cannot declare functions in: one constant each, of a class of its own (cel-js types values by class). */
class StringsNamespace {}
class FormatNamespace {}
class IPNamespace {}
/** cel-go's ext sets (sets.ts). */
class SetsNamespace {}
type CelNamespace = StringsNamespace | FormatNamespace | IPNamespace | SetsNamespace;
const NAMESPACE_CLASSES: Record<string, new () => CelNamespace> = { strings: StringsNamespace, format: FormatNamespace, ip: IPNamespace, sets: SetsNamespace };

const QUANTITY = 'kubernetes.Quantity';
const IP = 'net.IP';
const CIDR = 'net.CIDR';
const SEMVER = 'kubernetes.Semver';
const FORMAT = 'kubernetes.NamedFormat';

/** kube's "no such overload" for a Quantity compared with the result of add/sub (Go: a *Quantity, not a Quantity). */
function quantityEqual(a: CelQuantity, b: CelQuantity): boolean {
  if (b.fromArithmetic) throw new Error('no such overload');
  return compareGoQuantities(a.q, b.q) === 0;
}

const ipEqual = (a: CelIP, b: CelIP): boolean => goAddrEqual(a.addr, b.addr);
const cidrEqual = (a: CelCIDR, b: CelCIDR): boolean => goPrefixEqual(a.prefix, b.prefix);
const semverEqual = (a: CelSemver, b: CelSemver): boolean => compareGoSemver(a.v, b.v) === 0;
const formatEqual = (a: CelFormat, b: CelFormat): boolean => a.name === b.name;

/** `==` of two values of one of these types (as their operators), else undefined: for equality outside cel-js's. */
export function typedEqual(a: unknown, b: unknown): boolean | undefined {
  if (a instanceof CelQuantity) return b instanceof CelQuantity && quantityEqual(a, b);
  if (a instanceof CelIP) return b instanceof CelIP && ipEqual(a, b);
  if (a instanceof CelCIDR) return b instanceof CelCIDR && cidrEqual(a, b);
  if (a instanceof CelSemver) return b instanceof CelSemver && semverEqual(a, b);
  if (a instanceof CelFormat) return b instanceof CelFormat && formatEqual(a, b);
  return undefined;
}

/** Quantity.Cmp: when either side is an inf.Dec, kube converts the receiver to one in place (and it stays one). */
function quantityCmp(a: CelQuantity, b: CelQuantity): number {
  if (!a.q.dec && b.q.dec) a.q = { ...a.q, dec: true };
  return compareGoQuantities(a.q, b.q);
}

/** kube's parseIPAddr: netip.ParseAddr, then no zone and no IPv4-mapped IPv6 address. */
function kubeIPProblem(s: string): { addr: GoAddr } | { error: () => string } {
  let addr: GoAddr;
  try {
    addr = parseGoAddr(s);
  } catch (err) {
    return { error: () => `IP Address ${goQuote(s)} parse error during conversion from string: ${(err as Error).message}` };
  }
  if (addr.zone !== '') return { error: () => `IP address ${goQuote(s)} with zone value is not allowed` };
  if (isGo4In6(addr)) return { error: () => `IPv4-mapped IPv6 address ${goQuote(s)} is not allowed` };
  return { addr };
}

function stringToIP(s: string): GoAddr {
  const r = kubeIPProblem(s);
  if ('error' in r) throw new LazyMessageError(r.error);
  return r.addr;
}

/** kube's parseCIDR (its errors wrapped once more by stringToCIDR). */
function kubeCIDRProblem(s: string): { prefix: GoPrefix } | { error: () => string } {
  const wrap = (detail: string) => `network address parse error during conversion from string: ${detail}`;
  let prefix: GoPrefix;
  try {
    prefix = parseGoPrefix(s);
  } catch (err) {
    return { error: () => wrap(wrap((err as Error).message)) };
  }
  if (isGo4In6(prefix.addr)) return { error: () => wrap(`IPv4-mapped IPv6 address ${goQuote(s)} is not allowed`) };
  return { prefix };
}

function stringToCIDR(s: string): GoPrefix {
  const r = kubeCIDRProblem(s);
  if ('error' in r) throw new LazyMessageError(r.error);
  return r.prefix;
}

const succeeds = (f: () => unknown): boolean => {
  try {
    f();
    return true;
  } catch {
    return false;
  }
};

/** cel-go's ext strings quote: Go escapes for \a \b \f \n \r \t \v \\ \", invalid runes as U+FFFD, the rest as is. */
export function celQuote(s: string): string {
  // Over UTF-8 bytes (Buffer.from turns a lone surrogate into U+FFFD, as Go's sanitize): one typed-array pass,
  // where a replacement per escaped character costs a microsecond each on the megabyte strings a tenant can send.
  const src = Buffer.from(s, 'utf8');
  const out = Buffer.allocUnsafe(src.length * 2 + 2);
  let j = 0;
  out[j++] = 0x22;
  for (const b of src) {
    const e = QUOTE_ESCAPES[b];
    if (e !== 0) {
      out[j++] = 0x5c;
      out[j++] = e;
    } else out[j++] = b;
  }
  out[j++] = 0x22;
  return out.toString('utf8', 0, j);
}

/** Byte → the letter after the backslash (0: copied as is). */
const QUOTE_ESCAPES = new Uint8Array(256);
const QUOTED: Array<[number, string]> = [[0x22, '"'], [0x5c, '\\'], [0x07, 'a'], [0x08, 'b'], [0x0c, 'f'], [0x0a, 'n'], [0x0d, 'r'], [0x09, 't'], [0x0b, 'v']];
for (const [byte, letter] of QUOTED) QUOTE_ESCAPES[byte] = letter.charCodeAt(0);

const prefixed = (check: (s: string) => string[]) => (s: string) => check(maskTrailingDash(s));
const strfmt = (format: string, message: string) => {
  const ok = stringFormatCheck(format)!;
  return (s: string) => (ok(s) ? [] : [message]);
};

/** kube's ConstantFormats (format.go): name, validation, MaxRegexSize. */
export const NAMED_FORMATS: Record<string, CelFormat> = {
  dns1123Label: new CelFormat('DNS1123Label', isDNS1123Label, 30),
  dns1123Subdomain: new CelFormat('DNS1123Subdomain', isDNS1123Subdomain, 60),
  dns1035Label: new CelFormat('DNS1035Label', isDNS1035Label, 30),
  qualifiedName: new CelFormat('QualifiedName', isQualifiedName, 60),
  dns1123LabelPrefix: new CelFormat('DNS1123LabelPrefix', prefixed(isDNS1123Label), 30),
  dns1123SubdomainPrefix: new CelFormat('DNS1123SubdomainPrefix', prefixed(isDNS1123Subdomain), 60),
  dns1035LabelPrefix: new CelFormat('DNS1035LabelPrefix', prefixed(isDNS1035Label), 30),
  labelValue: new CelFormat('LabelValue', isValidLabelValue, 40),
  uri: new CelFormat('URI', (s) => (parseGoRequestURI(s) ? [] : [`parse ${goQuote(s)}: invalid URI for request`]), 1103),
  uuid: new CelFormat('uuid', strfmt('uuid', 'does not match the UUID format'), 70),
  byte: new CelFormat('byte', strfmt('byte', 'invalid base64'), 84),
  date: new CelFormat('date', strfmt('date', 'invalid date'), 71),
  datetime: new CelFormat('datetime', strfmt('datetime', 'invalid datetime'), 71),
};

/** kube's MaxNameFormatRegexSize: the static estimate of validate() assumes a regex this long. */
export const MAX_NAME_FORMAT_REGEX_SIZE = 128;

/** Functions of these libraries whose cost is kube's nominal 1 (accessors, comparisons, arithmetic). */
export const NOMINAL_COST_FUNCTIONS = new Set([
  'sign', 'asInteger', 'isInteger', 'asApproximateFloat', 'isGreaterThan', 'isLessThan', 'compareTo', 'add', 'sub',
  'major', 'minor', 'patch', 'masked', 'prefixLength', 'family', 'isUnspecified', 'isLoopback', 'isLinkLocalMulticast',
  'isLinkLocalUnicast', 'isGlobalUnicast', 'named', ...Object.keys(NAMED_FORMATS),
]);

/** Functions that parse their (first) string argument: kube charges a traversal of it. */
export const PARSING_FUNCTIONS = new Set(['quantity', 'isQuantity', 'semver', 'isSemver', 'ip', 'isIP', 'cidr', 'isCIDR']);

/** The namespace constants, by name. */
export const NAMESPACES = new Set(Object.keys(NAMESPACE_CLASSES));

export function registerTypedLibraries(env: Environment): void {
  env.registerType(QUANTITY, { ctor: CelQuantity, fields: {} });
  env.registerType(IP, { ctor: CelIP, fields: {} });
  env.registerType(CIDR, { ctor: CelCIDR, fields: {} });
  env.registerType(SEMVER, { ctor: CelSemver, fields: {} });
  env.registerType(FORMAT, { ctor: CelFormat, fields: {} });
  for (const [ns, ctor] of Object.entries(NAMESPACE_CLASSES)) {
    env.registerType(`kcpt.namespace.${ns}`, { ctor, fields: {} });
    env.registerConstant(ns, `kcpt.namespace.${ns}`, new ctor());
  }

  // quantity.go
  const parseQuantity = (s: string) => {
    try {
      return parseGoQuantityCached(s);
    } catch (err) {
      throw new Error((err as Error).message);
    }
  };
  env.registerFunction(`quantity(string): ${QUANTITY}`, (s: string) => new CelQuantity(parseQuantity(s)));
  env.registerFunction('isQuantity(string): bool', (s: string) => isGoQuantity(s));
  env.registerFunction(`sign(${QUANTITY}): int`, (q: CelQuantity) => BigInt(goQuantitySign(q.q)));
  env.registerFunction(`${QUANTITY}.isGreaterThan(${QUANTITY}): bool`, (a: CelQuantity, b: CelQuantity) => quantityCmp(a, b) === 1);
  env.registerFunction(`${QUANTITY}.isLessThan(${QUANTITY}): bool`, (a: CelQuantity, b: CelQuantity) => quantityCmp(a, b) === -1);
  env.registerFunction(`${QUANTITY}.compareTo(${QUANTITY}): int`, (a: CelQuantity, b: CelQuantity) => BigInt(quantityCmp(a, b)));
  env.registerFunction(`${QUANTITY}.asApproximateFloat(): double`, (q: CelQuantity) => goQuantityApproximateFloat(q.q));
  env.registerFunction(`${QUANTITY}.isInteger(): bool`, (q: CelQuantity) => goQuantityAsInt64(q.q) !== undefined);
  env.registerFunction(`${QUANTITY}.asInteger(): int`, (q: CelQuantity) => {
    const v = goQuantityAsInt64(q.q);
    if (v === undefined) throw new Error('cannot convert value to integer');
    return v;
  });
  const arith = (a: CelQuantity, b: CelQuantity | bigint, sub: boolean) => {
    const y: GoQuantity = typeof b === 'bigint' ? { dec: false, unscaled: b, scale: 0 } : b.q;
    return new CelQuantity(addGoQuantities(a.q, y, sub), true);
  };
  env.registerFunction(`${QUANTITY}.add(${QUANTITY}): ${QUANTITY}`, (a: CelQuantity, b: CelQuantity) => arith(a, b, false));
  env.registerFunction(`${QUANTITY}.add(int): ${QUANTITY}`, (a: CelQuantity, b: bigint) => arith(a, b, false));
  env.registerFunction(`${QUANTITY}.sub(${QUANTITY}): ${QUANTITY}`, (a: CelQuantity, b: CelQuantity) => arith(a, b, true));
  env.registerFunction(`${QUANTITY}.sub(int): ${QUANTITY}`, (a: CelQuantity, b: bigint) => arith(a, b, true));
  env.registerOperator(`${QUANTITY} == ${QUANTITY}`, quantityEqual);

  // ip.go
  env.registerFunction(`ip(string): ${IP}`, (s: string) => new CelIP(stringToIP(s)));
  env.registerFunction('isIP(string): bool', (s: string) => 'addr' in kubeIPProblem(s));
  env.registerFunction('kcpt.namespace.ip.isCanonical(string): bool', (_ns: CelNamespace, s: string) => goAddrString(stringToIP(s)) === s);
  env.registerFunction(`${IP}.family(): int`, (ip: CelIP) => (ip.addr.bytes.length === 4 ? 4n : 6n));
  env.registerFunction(`${IP}.isUnspecified(): bool`, (ip: CelIP) => isGoAddrUnspecified(ip.addr));
  env.registerFunction(`${IP}.isLoopback(): bool`, (ip: CelIP) => isGoAddrLoopback(ip.addr));
  env.registerFunction(`${IP}.isLinkLocalMulticast(): bool`, (ip: CelIP) => isGoAddrLinkLocalMulticast(ip.addr));
  env.registerFunction(`${IP}.isLinkLocalUnicast(): bool`, (ip: CelIP) => isGoAddrLinkLocalUnicast(ip.addr));
  env.registerFunction(`${IP}.isGlobalUnicast(): bool`, (ip: CelIP) => isGoAddrGlobalUnicast(ip.addr));
  env.registerFunction(`string(${IP}): string`, (ip: CelIP) => goAddrString(ip.addr));
  env.registerOperator(`${IP} == ${IP}`, ipEqual);

  // cidr.go
  env.registerFunction(`cidr(string): ${CIDR}`, (s: string) => new CelCIDR(stringToCIDR(s)));
  env.registerFunction('isCIDR(string): bool', (s: string) => 'prefix' in kubeCIDRProblem(s));
  // kube passes the parse error on as the operand, which cidrContainsIP answers with "no such overload".
  env.registerFunction(`${CIDR}.containsIP(string): bool`, (c: CelCIDR, s: string) => {
    const r = kubeIPProblem(s);
    if (!('addr' in r)) throw new Error('no such overload');
    return goPrefixContains(c.prefix, r.addr);
  });
  env.registerFunction(`${CIDR}.containsIP(${IP}): bool`, (c: CelCIDR, ip: CelIP) => goPrefixContains(c.prefix, ip.addr));
  const containsCIDR = (c: GoPrefix, o: GoPrefix) => goPrefixOverlaps(c, o) && c.bits <= o.bits;
  env.registerFunction(`${CIDR}.containsCIDR(string): bool`, (c: CelCIDR, s: string) => containsCIDR(c.prefix, stringToCIDR(s)));
  env.registerFunction(`${CIDR}.containsCIDR(${CIDR}): bool`, (c: CelCIDR, o: CelCIDR) => containsCIDR(c.prefix, o.prefix));
  env.registerFunction(`${CIDR}.ip(): ${IP}`, (c: CelCIDR) => new CelIP(c.prefix.addr));
  env.registerFunction(`${CIDR}.prefixLength(): int`, (c: CelCIDR) => BigInt(c.prefix.bits));
  env.registerFunction(`${CIDR}.masked(): ${CIDR}`, (c: CelCIDR) => new CelCIDR(goPrefixMasked(c.prefix)));
  env.registerFunction(`string(${CIDR}): string`, (c: CelCIDR) => goPrefixString(c.prefix));
  env.registerOperator(`${CIDR} == ${CIDR}`, cidrEqual);

  // semverlib.go (SemverVersion 1: the normalize overloads)
  const semver = (s: string, normalize: boolean) => {
    try {
      return normalize ? parseGoSemverNormalized(s) : parseGoSemver(s);
    } catch (err) {
      throw new Error((err as Error).message);
    }
  };
  env.registerFunction(`semver(string): ${SEMVER}`, (s: string) => new CelSemver(semver(s, false)));
  env.registerFunction(`semver(string, bool): ${SEMVER}`, (s: string, n: boolean) => new CelSemver(semver(s, n)));
  env.registerFunction('isSemver(string): bool', (s: string) => succeeds(() => semver(s, false)));
  env.registerFunction('isSemver(string, bool): bool', (s: string, n: boolean) => succeeds(() => semver(s, n)));
  env.registerFunction(`${SEMVER}.isGreaterThan(${SEMVER}): bool`, (a: CelSemver, b: CelSemver) => compareGoSemver(a.v, b.v) === 1);
  env.registerFunction(`${SEMVER}.isLessThan(${SEMVER}): bool`, (a: CelSemver, b: CelSemver) => compareGoSemver(a.v, b.v) === -1);
  env.registerFunction(`${SEMVER}.compareTo(${SEMVER}): int`, (a: CelSemver, b: CelSemver) => BigInt(compareGoSemver(a.v, b.v)));
  // Go's types.Int of a uint64: past MaxInt64 it wraps.
  env.registerFunction(`${SEMVER}.major(): int`, (v: CelSemver) => BigInt.asIntN(64, v.v.major));
  env.registerFunction(`${SEMVER}.minor(): int`, (v: CelSemver) => BigInt.asIntN(64, v.v.minor));
  env.registerFunction(`${SEMVER}.patch(): int`, (v: CelSemver) => BigInt.asIntN(64, v.v.patch));
  env.registerOperator(`${SEMVER} == ${SEMVER}`, semverEqual);

  // format.go
  env.registerFunction(`kcpt.namespace.format.named(string): optional<${FORMAT}>`, (_ns: CelNamespace, name: string) =>
    Object.hasOwn(NAMED_FORMATS, name) ? Optional.of(NAMED_FORMATS[name]) : Optional.none(),
  );
  for (const [name, f] of Object.entries(NAMED_FORMATS)) env.registerFunction(`kcpt.namespace.format.${name}(): ${FORMAT}`, () => f);
  env.registerFunction(`${FORMAT}.validate(string): optional<list<string>>`, (f: CelFormat, s: string) => {
    const errs = f.check(s);
    return errs.length === 0 ? Optional.none() : Optional.of(errs);
  });
  env.registerOperator(`${FORMAT} == ${FORMAT}`, formatEqual);

  // cel-go ext strings (version 2+)
  env.registerFunction('kcpt.namespace.strings.quote(string): string', (_ns: CelNamespace, s: string) => celQuote(s));
}
