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

/**
 * jsonEqual for the many comparisons one request makes among the nested parts of an object and the object it
 * replaces ("is this value unchanged?" at every level that ratcheting or a CEL rule asks about), with the values they
 * visit together bounded: each level compares its whole value, so in a deep object they cost its depth times its
 * size (100 levels over a 2 MB list: 56 s). Past the budget every answer is "changed", which is always safe there:
 * the update is validated as kube validates a create, with no error excused by ratcheting.
 */
export class ChangeDetector {
  constructor(private remaining = 2 ** 22) {}

  /** Whether `a` equals `b` (key order ignored, undefined members absent); false once the budget is spent. */
  unchanged(a: unknown, b: unknown): boolean {
    if (this.remaining <= 0) return false;
    const equal = this.same(a, b);
    return equal && this.remaining > 0;
  }

  private same(a: unknown, b: unknown): boolean {
    if (--this.remaining <= 0) return false;
    if (a === b) return true;
    if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return (a ?? null) === (b ?? null);
    if (Array.isArray(a)) {
      if (!Array.isArray(b) || a.length !== b.length) return false;
      for (let i = 0, n = a.length; i < n; i++) if (!this.same(a[i], b[i])) return false;
      return true;
    }
    if (Array.isArray(b)) return false;
    const x = a as Record<string, unknown>;
    const y = b as Record<string, unknown>;
    let defined = 0;
    for (const k in x) {
      if (!Object.hasOwn(x, k) || x[k] === undefined) continue;
      if (!Object.hasOwn(y, k) || !this.same(x[k], y[k])) return false;
      defined++;
    }
    for (const k in y) if (Object.hasOwn(y, k) && y[k] !== undefined) defined--;
    return defined === 0;
  }
}
