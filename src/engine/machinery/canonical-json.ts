/**
 * JSON with every map's keys sorted: the one canonical form used for "did anything change?" comparisons
 * (stored objects, server-side apply field values and list keys).
 */
import { setOwnValue } from './own-properties.js';

/** A copy of `value` with object keys sorted and undefined members dropped. */
export function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) setOwnValue(out, key, canonical(v));
  }
  return out;
}

/**
 * `value` in canonical form without copying what already is: the same object when its keys are sorted and its
 * members canonical (an object read back from storage, mostly), else a sorted copy that shares the canonical parts.
 * The result may be (or contain) the input: never mutate it.
 */
export function canonicalView(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const v = item !== null && typeof item === 'object' ? canonicalView(item) : item;
      if (out) out.push(v);
      else if (v !== value[i]) {
        out = value.slice(0, i);
        out.push(v);
      }
    }
    return out ?? value;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  let copy = false;
  for (let i = 1; i < keys.length && !copy; i++) copy = keys[i - 1]! > keys[i]!;
  // Each member is walked once (a walk per pass would double at every level of nesting); a scalar is its own view.
  let views: unknown[] | undefined;
  for (let i = 0; i < keys.length; i++) {
    const v = record[keys[i]!];
    if (v === undefined) copy = true;
    else if (v !== null && typeof v === 'object') {
      const view = canonicalView(v);
      if (view !== v) (views ??= new Array(keys.length))[i] = view;
    }
  }
  if (!copy && !views) return value;
  const out: Record<string, unknown> = {};
  if (!views) {
    // Members unchanged, order not: the key array itself sorted (a string sort compares UTF-16 code units, as `<`).
    keys.sort();
    for (const key of keys) {
      const v = record[key];
      if (v !== undefined) setOwnValue(out, key, v);
    }
    return out;
  }
  const order = keys.map((_, i) => i).sort((a, b) => (keys[a]! < keys[b]! ? -1 : 1));
  for (const i of order) {
    const v = views[i] ?? record[keys[i]!];
    if (v !== undefined) setOwnValue(out, keys[i]!, v);
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
