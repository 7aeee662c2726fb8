/**
 * JSON with every map's keys sorted: the one canonical form used for "did anything change?" comparisons
 * (stored objects, server-side apply field values and list keys).
 */

/** A copy of `value` with object keys sorted and undefined members dropped. */
export function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = canonical(v);
  }
  return out;
}

/** Canonical JSON text; `undefined` renders as `null` so it can be used as a map key. */
export function canonicalJSON(value: unknown): string {
  return JSON.stringify(canonical(value)) ?? 'null';
}

/** Structural equality of two JSON values, ignoring key order. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  // Scalars (the common case in field-by-field comparisons) need no serialisation.
  if (a !== undefined && b !== undefined && typeof a !== 'object' && typeof b !== 'object') return a === b;
  return canonicalJSON(a) === canonicalJSON(b);
}
