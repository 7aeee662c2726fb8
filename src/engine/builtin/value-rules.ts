/**
 * Value checks of k8s.io/apimachinery/pkg/util/validation that the built-in strategies need, returning kube's exact
 * messages (people search for them), plus the small helpers that render field paths and values like Go does.
 */
import type { FieldError } from '../machinery/status.js';

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123SubdomainRe = new RegExp(`^${dns1123SubdomainFmt}$`);
const qualifiedNameFmt = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const qualifiedNameRe = new RegExp(`^${qualifiedNameFmt}$`);
const configMapKeyFmt = '[-._a-zA-Z0-9]+';
const configMapKeyRe = new RegExp(`^${configMapKeyFmt}$`);

/** Go's validation.RegexError, double spaces included ("'a',  or 'b', regex used …"). */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

export function maxLenError(n: number): string {
  return `must be no more than ${n} characters`;
}

export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push(maxLenError(253));
  if (!dns1123SubdomainRe.test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        dns1123SubdomainFmt,
        'example.com',
      ),
    );
  }
  return errs;
}

export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  const nameMsg = regexError(
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
    qualifiedNameFmt,
    'MyName',
    'my.name',
    '123-abc',
  );
  let name: string;
  if (parts.length === 1) {
    name = parts[0];
  } else if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1];
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else errs.push(...isDNS1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [`a qualified name ${nameMsg} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!qualifiedNameRe.test(name)) errs.push(`name part ${nameMsg}`);
  return errs;
}

/** Keys of ConfigMap/Secret data: they become file names in volumes, hence the '..' rules. */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push(maxLenError(253));
  if (!configMapKeyRe.test(value)) {
    errs.push(
      regexError(
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
        configMapKeyFmt,
        'key.name',
        'KEY_NAME',
        'key_name',
      ),
    );
  }
  if (value === '.') errs.push("must not be '.'");
  else if (value === '..') errs.push("must not be '..'");
  else if (value.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

/** path.IsValidPathSegmentName: what RBAC allows for names (they only have to fit in a URL path segment). */
export function isValidPathSegmentName(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  const errs: string[] = [];
  for (const bad of ['/', '%']) if (name.includes(bad)) errs.push(`may not contain '${bad}'`);
  return errs;
}

/** field.NewPath(base).Key(key): `data[tls.crt]`. */
export function keyPath(base: string, key: string): string {
  return `${base}[${key}]`;
}

/**
 * An Invalid error whose value is pre-rendered, for values Go prints with %#v (structs, slices) where JSON would
 * read differently from kube's message.
 */
export function invalidRendered(field: string, rendered: string, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, detail: `Invalid value: ${rendered}: ${detail}` };
}

/** Go's %#v of a []string: `[]string{"a", "b"}`. */
export function goStringSlice(values: unknown): string {
  const list = Array.isArray(values) ? values : [];
  return `[]string{${list.map((v) => JSON.stringify(String(v))).join(', ')}}`;
}

export const fieldImmutable = 'field is immutable';

/**
 * Length of the bytes a standard (padded) base64 string decodes to, or the offset Go's decoder would report as
 * "illegal base64 data at input byte N". Go skips \r and \n.
 */
export function decodedBase64Length(value: string): { bytes: number } | { illegalAt: number } {
  let chars = 0;
  let padding = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === '\r' || c === '\n') continue;
    if (c === '=') {
      padding++;
      chars++;
      continue;
    }
    if (padding > 0 || !/[A-Za-z0-9+/]/.test(c)) return { illegalAt: i };
    chars++;
  }
  if (chars % 4 !== 0 || padding > 2) return { illegalAt: value.length };
  return { bytes: (chars / 4) * 3 - padding };
}

const quantityRe = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const binarySuffixes: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const decimalSuffixes: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

export const quantityFormatError =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/**
 * The numeric value of a resource.Quantity ("500m", "1Gi", "2e3", or a JSON number), precise enough for the sign and
 * integer checks validation makes; undefined when it does not parse.
 */
export function quantityValue(q: unknown): number | undefined {
  if (typeof q === 'number') return Number.isFinite(q) ? q : undefined;
  if (typeof q !== 'string') return undefined;
  const m = quantityRe.exec(q.trim());
  if (!m) return undefined;
  const num = Number(m[1]);
  if (Number.isNaN(num)) return undefined;
  const suffix = m[2];
  if (suffix in binarySuffixes) return num * binarySuffixes[suffix];
  if (suffix in decimalSuffixes) return num * decimalSuffixes[suffix];
  const exp = /^[eE]([-+]?[0-9]+)$/.exec(suffix);
  if (exp) return num * 10 ** Number(exp[1]);
  return undefined;
}
