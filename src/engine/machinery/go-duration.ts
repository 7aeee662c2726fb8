/**
 * Go's time.ParseDuration, for the query parameters kube reads with it (`?timeout=`): a signed sequence of decimal
 * numbers with units (`300ms`, `-1.5h`, `2h45m`; ns, us, µs, ms, s, m, h), "0" alone, and Go's error texts.
 */

const NANOS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  'µs': 1_000n, // U+00B5 micro sign
  'μs': 1_000n, // U+03BC Greek mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

const MAX = (1n << 63n) - 1n;

export class GoDurationError extends Error {}

/** Go's time.quote: the text in double quotes, with `"` and `\` escaped. */
function quote(s: string): string {
  return `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** The duration in nanoseconds; throws GoDurationError with Go's message. */
export function parseGoDuration(text: string): bigint {
  const invalid = () => new GoDurationError(`time: invalid duration ${quote(text)}`);
  let s = text;
  let neg = false;
  if (s !== '' && (s[0] === '-' || s[0] === '+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') throw invalid();
  let total = 0n;
  while (s !== '') {
    const number = /^(\d*)(?:\.(\d*))?/.exec(s)!;
    const [whole = '', intPart = '', fracPart] = number;
    if (!/^[.\d]/.test(s) || (intPart === '' && (fracPart === undefined || fracPart === ''))) throw invalid();
    s = s.slice(whole.length);
    const unitEnd = s.search(/[.\d]/);
    const unit = unitEnd < 0 ? s : s.slice(0, unitEnd);
    if (unit === '') throw new GoDurationError(`time: missing unit in duration ${quote(text)}`);
    s = s.slice(unit.length);
    const scale = NANOS[unit];
    if (scale === undefined) throw new GoDurationError(`time: unknown unit ${quote(unit)} in duration ${quote(text)}`);
    let v = BigInt(intPart || '0') * scale;
    if (fracPart) v += BigInt(Math.trunc(Number(`0.${fracPart}`) * Number(scale)));
    total += v;
    if (total > MAX + 1n) throw invalid();
  }
  if (neg) return -total;
  if (total > MAX) throw invalid();
  return total;
}
