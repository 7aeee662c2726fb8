/**
 * Value checks the built-in strategies need beyond machinery/validation (which holds kube's name, qualified-name and
 * config-key rules): field-path and Go-style value rendering (resource.Quantity parsing is machinery/quantity.ts,
 * base64 as Go decodes it machinery/go-decode.ts).
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

