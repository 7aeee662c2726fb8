/**
 * github.com/blang/semver/v4 as kube's CEL semver library calls it: Parse (with its error texts), Compare, and kube's
 * normalizeAndParse (the `semver(s, true)` form: a leading "v" dropped, missing minor/patch added, leading zeros
 * removed).
 */
import { goQuote } from './query-params.js';

export interface GoSemver {
  major: bigint;
  minor: bigint;
  patch: bigint;
  /** Prerelease identifiers: numbers (bigint) or alphanumerics (string). */
  pre: Array<bigint | string>;
  build: string[];
}

export class SemverError extends Error {}

const NUMBERS = /^[0-9]*$/;
const ALPHANUM = /^[0-9A-Za-z-]*$/;
const UINT64_MAX = (1n << 64n) - 1n;
const hasLeadingZeroes = (s: string) => s.length > 1 && s[0] === '0';

/** strconv.ParseUint(s, 10, 64) for a string of digits. */
function parseUint(s: string): bigint {
  if (s.length === 0) throw new SemverError(`strconv.ParseUint: parsing ${goQuote(s)}: invalid syntax`);
  // Past 20 digits it is out of range whatever they are (and V8 reads long digit strings in quadratic time).
  const n = s.length > 20 ? UINT64_MAX + 1n : BigInt(s);
  if (n > UINT64_MAX) throw new SemverError(`strconv.ParseUint: parsing ${goQuote(s)}: value out of range`);
  return n;
}

function versionNumber(s: string, which: 'major' | 'minor' | 'patch'): bigint {
  const name = which[0].toUpperCase() + which.slice(1);
  if (!NUMBERS.test(s)) throw new SemverError(`Invalid character(s) found in ${which} number ${goQuote(s)}`);
  if (hasLeadingZeroes(s)) throw new SemverError(`${name} number must not contain leading zeroes ${goQuote(s)}`);
  return parseUint(s);
}

/**
 * The longest version kcpt parses (blang/semver has no bound). compareTo costs 1 in kube's budget whatever the
 * versions' lengths, so a version's size must be bounded for that unit to bound the work; real versions are short.
 */
export const MAX_SEMVER_LENGTH = 1024;

export const SEMVER_TOO_LONG = `semver out of kcpt's range: longer than ${MAX_SEMVER_LENGTH} characters`;

/** semver.Parse. */
export function parseGoSemver(s: string): GoSemver {
  if (s.length === 0) throw new SemverError('Version string empty');
  if (s.length > MAX_SEMVER_LENGTH) throw new SemverError(SEMVER_TOO_LONG);
  const parts = splitN(s, '.', 3);
  if (parts.length !== 3) throw new SemverError('No Major.Minor.Patch elements found');
  const major = versionNumber(parts[0], 'major');
  const minor = versionNumber(parts[1], 'minor');
  let patchStr = parts[2];
  let build: string[] = [];
  let prerelease: string[] = [];
  const plus = patchStr.indexOf('+');
  if (plus !== -1) {
    build = patchStr.slice(plus + 1).split('.');
    patchStr = patchStr.slice(0, plus);
  }
  const dash = patchStr.indexOf('-');
  if (dash !== -1) {
    prerelease = patchStr.slice(dash + 1).split('.');
    patchStr = patchStr.slice(0, dash);
  }
  const patch = versionNumber(patchStr, 'patch');
  const pre = prerelease.map((p): bigint | string => {
    if (p.length === 0) throw new SemverError('Prerelease is empty');
    if (NUMBERS.test(p)) {
      if (hasLeadingZeroes(p)) throw new SemverError(`Numeric PreRelease version must not contain leading zeroes ${goQuote(p)}`);
      return parseUint(p);
    }
    if (ALPHANUM.test(p)) return p;
    throw new SemverError(`Invalid character(s) found in prerelease ${goQuote(p)}`);
  });
  for (const b of build) {
    if (b.length === 0) throw new SemverError('Build meta data is empty');
    if (!ALPHANUM.test(b)) throw new SemverError(`Invalid character(s) found in build meta data ${goQuote(b)}`);
  }
  return { major, minor, patch, pre, build };
}

/** strings.SplitN(s, sep, n). */
function splitN(s: string, sep: string, n: number): string[] {
  const out: string[] = [];
  let rest = s;
  while (out.length < n - 1) {
    const i = rest.indexOf(sep);
    if (i < 0) break;
    out.push(rest.slice(0, i));
    rest = rest.slice(i + sep.length);
  }
  out.push(rest);
  return out;
}

/** kube's normalizeAndParse (apiserver pkg/cel/library semverlib.go). */
export function parseGoSemverNormalized(input: string): GoSemver {
  if (input.length > MAX_SEMVER_LENGTH + 1) throw new SemverError(SEMVER_TOO_LONG);
  const s = input.startsWith('v') ? input.slice(1) : input;
  const parts = splitN(s, '.', 3).map((p) => {
    if (p.length <= 1) return p;
    const t = p.replace(/^0+/, '');
    return t.length === 0 || !/^[0-9]/.test(t[0]) ? `0${t}` : t;
  });
  if (parts.length < 3) {
    if (/[+-]/.test(parts[parts.length - 1])) throw new SemverError('short version cannot contain PreRelease/Build meta data');
    while (parts.length < 3) parts.push('0');
  }
  return parseGoSemver(parts.join('.'));
}

const cmp = <T extends bigint | string | number>(a: T, b: T): number => (a === b ? 0 : a > b ? 1 : -1);

/** Version.Compare (build metadata does not count). */
export function compareGoSemver(v: GoSemver, o: GoSemver): number {
  const c = cmp(v.major, o.major) || cmp(v.minor, o.minor) || cmp(v.patch, o.patch);
  if (c !== 0) return c;
  if (v.pre.length === 0 || o.pre.length === 0) return v.pre.length === o.pre.length ? 0 : v.pre.length === 0 ? 1 : -1;
  for (let i = 0; i < v.pre.length && i < o.pre.length; i++) {
    const a = v.pre[i];
    const b = o.pre[i];
    const num = typeof a === 'bigint';
    if (num !== (typeof b === 'bigint')) return num ? -1 : 1;
    const p = cmp(a, b);
    if (p !== 0) return p;
  }
  return cmp(v.pre.length, o.pre.length);
}
