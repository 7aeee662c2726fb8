/**
 * Value checks the built-in strategies need beyond machinery/validation (which holds kube's name, qualified-name and
 * config-key rules): field-path and Go-style value rendering, base64 and resource.Quantity parsing.
 */
import type { FieldError } from '../machinery/status.js';

export { isConfigMapKey, isDNS1123Subdomain, isQualifiedName, isValidPathSegmentName } from '../machinery/validation.js';

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
