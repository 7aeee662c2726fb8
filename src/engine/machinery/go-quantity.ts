/**
 * kube's resource.Quantity (k8s.io/apimachinery pkg/api/resource), exactly, for CEL's quantity library: the same
 * strings parse, to the same value, held the way kube holds it — an int64 amount (value × 10^scale) while it fits,
 * else an inf.Dec (unscaled × 10^scale, rounded up to nano when parsed) — because asInteger() and
 * asApproximateFloat() answer from that representation (kube: quantity("1.5Ki").isInteger() is false).
 * Go's int32 wrap-arounds of the exponent are kept. What is not kept: kube materialises 10^(scale difference) when
 * it rescales an inf.Dec, so "1111111111111111111e2000000000" makes it compute for ever; here no number grows by more
 * than MAX_QUANTITY_SCALE_SHIFT digits and none has more than MAX_QUANTITY_DIGITS when parsed (past either, kcpt's
 * range error), and comparisons never materialise anything.
 */

export interface GoQuantity {
  /** true: an inf.Dec; false: an int64Amount. */
  dec: boolean;
  unscaled: bigint;
  /** kube's Scale: the value is unscaled × 10^scale (an inf.Dec's own scale is the negation). */
  scale: number;
}

/** The kube errors ParseQuantity returns. */
export const QUANTITY_FORMAT_WRONG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
export const QUANTITY_NUMERIC = 'unable to parse numeric part of quantity';
export const QUANTITY_SUFFIX = "unable to parse quantity's suffix";

/**
 * The most digits kcpt lets one rescaling add to a number (kube: no bound, and unbounded time). Real quantities
 * span nano to exa (27 digits) with an int64's 19: 100 is ample, and keeps every operation's numbers small.
 */
export const MAX_QUANTITY_SCALE_SHIFT = 100;
/**
 * The most digits a quantity kcpt computes with may have (kube: no bound). Each operation on a quantity costs 1 in
 * kube's budget whatever its size, and V8 converts a decimal string to a BigInt in quadratic time, so this bounds
 * the work of one unit of budget. Legitimate quantities have at most a few dozen digits (an int64 has 19).
 */
export const MAX_QUANTITY_DIGITS = 100;

const outOfRange = (what: string): QuantityError =>
  new QuantityError(`quantity out of kcpt's range: computing it exactly needs more than ${what}`);

const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);
const NANO = -9;

const int32 = (n: number): number => n | 0;
const fitsInt64 = (n: bigint): boolean => n >= INT64_MIN && n <= INT64_MAX;

export class QuantityError extends Error {}

const DECIMAL_SUFFIXES: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

interface QuantityParts {
  positive: boolean;
  value: string;
  num: string;
  denom: string;
  suffix: string;
}

/** The length of the run of `re` (a sticky regex) at `from`: native scanning, megabyte strings are tenants' to send. */
function runLength(re: RegExp, str: string, from: number): number {
  re.lastIndex = from;
  return re.exec(str)?.[0].length ?? 0;
}
const ZEROS = /0*/y;
const DIGITS = /[0-9]*/y;
const SUFFIX_CHARS = /[eEinumkKMGTP]*/y;

/** parseQuantityString: the same splits and the same errors. */
function splitQuantity(str: string): QuantityParts {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (str[0] === '-') {
    positive = false;
    pos++;
  } else if (str[0] === '+') pos++;
  pos += runLength(ZEROS, str, pos);
  if (pos >= end) return { positive, value: '0', num: '0', denom: '', suffix: '' };
  const numEnd = pos + runLength(DIGITS, str, pos);
  if (numEnd >= end) return { positive, value: str, num: str.slice(pos, end), denom: '', suffix: '' };
  const num = numEnd > pos ? str.slice(pos, numEnd) : '0';
  pos = numEnd;
  let denom = '';
  if (str[pos] === '.') {
    const denomEnd = pos + 1 + runLength(DIGITS, str, pos + 1);
    denom = str.slice(pos + 1, denomEnd);
    if (denomEnd >= end) return { positive, value: str, num, denom, suffix: '' };
    pos = denomEnd;
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  pos += runLength(SUFFIX_CHARS, str, pos);
  if (pos >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
  if (str[pos] === '-' || str[pos] === '+') pos++;
  pos += runLength(DIGITS, str, pos);
  if (pos >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
  throw new QuantityError(QUANTITY_FORMAT_WRONG);
}

/** suffixHandler.interpret: [base, exponent, binary?]; a decimal exponent is Go's int32 of an int64. */
function interpretSuffix(suffix: string): [base: 2 | 10, exponent: number, format: 'DecimalSI' | 'BinarySI' | 'DecimalExponent'] {
  if (Object.hasOwn(DECIMAL_SUFFIXES, suffix)) return [10, DECIMAL_SUFFIXES[suffix], 'DecimalSI'];
  if (Object.hasOwn(BINARY_SUFFIXES, suffix)) return [2, BINARY_SUFFIXES[suffix], 'BinarySI'];
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E')) {
    const m = /^[+-]?[0-9]+$/.exec(suffix.slice(1));
    const n = m ? BigInt(m[0]) : undefined;
    if (n === undefined || !fitsInt64(n)) throw new QuantityError(QUANTITY_SUFFIX);
    return [10, Number(BigInt.asIntN(32, n)), 'DecimalExponent'];
  }
  throw new QuantityError(QUANTITY_SUFFIX);
}


function pow10(k: number): bigint {
  if (k > MAX_QUANTITY_SCALE_SHIFT) throw outOfRange(`${MAX_QUANTITY_SCALE_SHIFT} digits beyond those written`);
  return cachedPow10(k);
}

/** inf.Dec.Round(x, 9, RoundUp) of a non-negative unscaled at infScale: away from zero, to nano. */
function roundUpToNano(abs: bigint, infScale: number): bigint {
  if (infScale <= 9) return abs * pow10(9 - infScale);
  const shift = infScale - 9;
  // Past the number's own digits (its bits bound them) the quotient is 0: rounded up, 1.
  if (shift > approxLog2(abs)) return abs === 0n ? 0n : 1n;
  const d = 10n ** BigInt(shift);
  const q = abs / d;
  return abs % d === 0n ? q : q + 1n;
}

/** Whether resource.ParseQuantity accepts the string (its errors are all syntactic: nothing is computed). */
export function isGoQuantity(str: string): boolean {
  try {
    parseGoQuantity(str, true);
    return true;
  } catch (err) {
    if (err instanceof QuantityError && err.message.startsWith("quantity out of kcpt's range")) return true;
    return false;
  }
}

const PARSED = new Map<string, GoQuantity>();
const PARSED_ENTRIES = 256;

/**
 * parseGoQuantity, remembered for short strings: a rule parses the same field once per iteration of a comprehension
 * (kube charges the traversal each time; the BigInt work is paid once). The values are never mutated.
 */
export function parseGoQuantityCached(str: string): GoQuantity {
  if (str.length > 128) return parseGoQuantity(str);
  let q = PARSED.get(str);
  if (q === undefined) {
    q = parseGoQuantity(str);
    if (PARSED.size >= PARSED_ENTRIES) PARSED.delete(PARSED.keys().next().value as string);
    PARSED.set(str, q);
  }
  return q;
}

/** resource.ParseQuantity; throws QuantityError with kube's message. `syntaxOnly`: stop before computing the value. */
export function parseGoQuantity(str: string, syntaxOnly = false): GoQuantity {
  if (str.length === 0) throw new QuantityError(QUANTITY_FORMAT_WRONG);
  if (str === '0') return { dec: false, unscaled: 0n, scale: 0 };
  const { positive, value, num, denom, suffix } = splitQuantity(str);
  const [base, exponent, format] = interpretSuffix(suffix);
  let precision = 0;
  let scale = 0;
  let mantissa = 1n;
  if (format === 'BinarySI') {
    if (exponent >= 0 && denom.length === 0) {
      mantissa = 1n << BigInt(exponent);
      precision = 15 - num.length - Math.trunc(Math.fround((Math.fround(exponent) * 3) / 10)) - 1;
    } else precision = -1;
  } else {
    scale = exponent;
    precision = 18 - (num.length + denom.length);
  }
  if (precision >= 0) {
    scale = int32(scale - denom.length);
    if (scale >= NANO) {
      const shifted = BigInt(num + denom);
      const result = shifted * mantissa;
      if (fitsInt64(shifted) && fitsInt64(result)) return { dec: false, unscaled: positive ? result : -result, scale };
    }
  }
  // inf.Dec.SetString(value): the digits (sign included), scale = digits after a '.'.
  // The value's digits are num and denom (the zeros before num add nothing); none at all ('.', '-.') does not parse.
  if (!/[0-9]/.test(value)) throw new QuantityError(QUANTITY_NUMERIC);
  if (syntaxOnly) return { dec: true, unscaled: 0n, scale: 0 };
  if (num.length + denom.length > MAX_QUANTITY_DIGITS) throw outOfRange(`${MAX_QUANTITY_DIGITS} digits`);
  let abs = BigInt(num + denom);
  let infScale = value.includes('.') ? value.length - value.indexOf('.') - 1 : 0;
  if (base === 10) infScale = int32(infScale - exponent);
  else abs <<= BigInt(exponent);
  if (abs !== 0n) {
    abs = roundUpToNano(abs, infScale);
    infScale = 9;
  }
  // BinarySI is capped at MaxInt64 (inf.Dec of scale 0); abs is at scale 9 here.
  if (format === 'BinarySI' && abs > INT64_MAX * 1_000_000_000n) {
    abs = INT64_MAX;
    infScale = 0;
  }
  const negative = value.startsWith('-');
  return { dec: true, unscaled: negative ? -abs : abs, scale: -infScale };
}

export function goQuantitySign(q: GoQuantity): number {
  return q.unscaled === 0n ? 0 : q.unscaled > 0n ? 1 : -1;
}

/** log2 of |n| to within 4: hexadecimal is linear to print, decimal is not (V8). */
function approxLog2(n: bigint): number {
  return n === 0n ? 0 : (n < 0n ? -n : n).toString(16).length * 4;
}

const LOG2_CACHE = new WeakMap<GoQuantity, number>();

/** approxLog2 of a quantity's unscaled value, once per value: comparisons cost 1 in kube's budget however repeated. */
function quantityLog2(q: GoQuantity): number {
  let l = LOG2_CACHE.get(q);
  if (l === undefined) LOG2_CACHE.set(q, (l = approxLog2(q.unscaled)));
  return l;
}

const POW10_CACHE = new Map<number, bigint>();

/** 10^k for the k alignments need (at most the digits of the numbers kcpt keeps, plus the shift bound). */
function cachedPow10(k: number): bigint {
  let p = POW10_CACHE.get(k);
  if (p === undefined) {
    p = 10n ** BigInt(k);
    if (POW10_CACHE.size >= 256) POW10_CACHE.delete(POW10_CACHE.keys().next().value as number);
    POW10_CACHE.set(k, p);
  }
  return p;
}

/** The exact order of two quantities, without materialising either (kube's Cmp, minus its rescaling cost). */
export function compareGoQuantities(a: GoQuantity, b: GoQuantity): number {
  const sa = goQuantitySign(a);
  const sb = goQuantitySign(b);
  if (sa !== sb) return sa < sb ? -1 : 1;
  if (sa === 0) return 0;
  const ma = sa < 0 ? -a.unscaled : a.unscaled;
  const mb = sb < 0 ? -b.unscaled : b.unscaled;
  // log10 of each to within ~1.3: far apart, that decides; close, the scales differ by at most the digits kept.
  const la = quantityLog2(a) * Math.LOG10E * Math.LN2 + a.scale;
  const lb = quantityLog2(b) * Math.LOG10E * Math.LN2 + b.scale;
  let m: number;
  if (Math.abs(la - lb) > 3) m = la < lb ? -1 : 1;
  else {
    const [x, y] = a.scale >= b.scale ? [ma * cachedPow10(a.scale - b.scale), mb] : [ma, mb * cachedPow10(b.scale - a.scale)];
    m = x === y ? 0 : x < y ? -1 : 1;
  }
  return sa < 0 ? -m : m;
}

/** positiveScaleInt64: value × 10^scale, or undefined on int64 overflow; Go leaves the value as is for a negative scale. */
function positiveScaleInt64(value: bigint, scale: number): bigint | undefined {
  if (scale <= 0 || value === 0n) return value;
  let v = value;
  for (let i = 0; i < scale; i++) {
    v *= 10n;
    if (!fitsInt64(v)) return undefined;
  }
  return v;
}

function int64Add(a: bigint, b: bigint): bigint | undefined {
  const c = a + b;
  return fitsInt64(c) ? c : undefined;
}

/** int64Amount.Add, with Go's int32 scale difference. */
function addInt64Amounts(a: GoQuantity, b: GoQuantity): GoQuantity | undefined {
  if (b.unscaled === 0n) return a;
  if (a.unscaled === 0n) return { dec: false, unscaled: b.unscaled, scale: b.scale };
  if (a.scale === b.scale) {
    const c = int64Add(a.unscaled, b.unscaled);
    return c === undefined ? undefined : { dec: false, unscaled: c, scale: a.scale };
  }
  if (a.scale > b.scale) {
    const s = positiveScaleInt64(a.unscaled, int32(a.scale - b.scale));
    const c = s === undefined ? undefined : int64Add(s, b.unscaled);
    return c === undefined ? undefined : { dec: false, unscaled: c, scale: b.scale };
  }
  const s = positiveScaleInt64(b.unscaled, int32(b.scale - a.scale));
  const c = s === undefined ? undefined : int64Add(a.unscaled, s);
  return c === undefined ? undefined : { dec: false, unscaled: c, scale: a.scale };
}

/** inf.Dec.Add: both at the larger inf scale (the smaller kube scale). */
function addDecs(a: GoQuantity, b: GoQuantity): GoQuantity {
  const scale = Math.min(a.scale, b.scale);
  // The sum's digits are at most the larger aligned operand's, plus a carry: bounded before computing anything.
  const digits = (q: GoQuantity) => (q.unscaled === 0n ? 0 : quantityLog2(q) * Math.LOG10E * Math.LN2 + q.scale - scale);
  if (Math.max(digits(a), digits(b)) + 1 > MAX_QUANTITY_DIGITS + MAX_QUANTITY_SCALE_SHIFT) throw outOfRange(`${MAX_QUANTITY_DIGITS + MAX_QUANTITY_SCALE_SHIFT} digits`);
  const align = (q: GoQuantity) => (q.unscaled === 0n ? 0n : q.unscaled * pow10(q.scale - scale));
  return { dec: true, unscaled: align(a) + align(b), scale };
}

/** Quantity.Add (sub: Quantity.Sub, y negated as int64Amount.Sub negates it). */
export function addGoQuantities(a: GoQuantity, b: GoQuantity, sub = false): GoQuantity {
  if (!a.dec && !b.dec) {
    // int64Amount.Sub negates the int64 as Go does: -MinInt64 is MinInt64.
    const r = addInt64Amounts(a, sub ? { ...b, unscaled: BigInt.asIntN(64, -b.unscaled) } : b);
    if (r) return r;
  }
  return addDecs(a, sub ? { ...b, unscaled: -b.unscaled } : b);
}

/** Quantity.AsInt64: only an int64 amount converts (an inf.Dec never does, even when whole). */
export function goQuantityAsInt64(q: GoQuantity): bigint | undefined {
  if (q.dec) return undefined;
  if (q.scale === 0) return q.unscaled;
  if (q.scale < 0) return undefined;
  return positiveScaleInt64(q.unscaled, q.scale);
}

const POW10_TAB = Array.from({ length: 32 }, (_, i) => Number(`1e${i}`));
const POW10_POS32 = [1e0, 1e32, 1e64, 1e96, 1e128, 1e160, 1e192, 1e224, 1e256, 1e288];
const POW10_NEG32 = [1e-0, 1e-32, 1e-64, 1e-96, 1e-128, 1e-160, 1e-192, 1e-224, 1e-256, 1e-288, 1e-320];

/** Go's math.Pow10 (its tables, so the products round as Go's do). */
function goPow10(n: number): number {
  if (n >= 0 && n <= 308) return POW10_POS32[Math.floor(n / 32)] * POW10_TAB[n % 32];
  if (n >= -323 && n <= 0) return POW10_NEG32[Math.floor(-n / 32)] / POW10_TAB[-n % 32];
  return n > 0 ? Infinity : 0;
}

/** Quantity.AsApproximateFloat64: float64(unscaled) × math.Pow10(scale) (±Inf past float64; 0 × Inf is NaN, as Go's). */
export function goQuantityApproximateFloat(q: GoQuantity): number {
  const base = Number(q.unscaled);
  return q.scale === 0 ? base : base * goPow10(q.scale);
}

