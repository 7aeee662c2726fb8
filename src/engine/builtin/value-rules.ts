/**
 * Value checks the built-in strategies need beyond machinery/validation (which holds kube's name, qualified-name and
 * config-key rules): field-path and Go-style value rendering and base64 (resource.Quantity parsing is machinery/quantity.ts).
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
