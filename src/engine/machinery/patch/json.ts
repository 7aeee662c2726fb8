/**
 * Plain-JSON helpers shared by the patch functions.
 *
 * Patch bodies come straight from clients, so keys such as `__proto__` or `constructor` are data, never object
 * machinery: reads go through own properties only, and writes of `__proto__` define an own property instead of
 * assigning (an assignment would replace the object's prototype).
 */

import { ownValue, setOwnValue } from '../own-properties.js';

export type JsonObject = { [key: string]: unknown };

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function hasOwn(obj: JsonObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/** The own property `key`, or undefined; never an inherited member such as `constructor`. */
export const getOwn: (obj: JsonObject, key: string) => unknown = ownValue;

export const setOwn: (obj: JsonObject, key: string, value: unknown) => void = setOwnValue;

/** Deep copy of a JSON value. */
export function cloneJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => cloneJson(v)) as T;
  if (isJsonObject(value)) {
    const out: JsonObject = {};
    for (const key of Object.keys(value)) setOwn(out, key, cloneJson(value[key]));
    return out as T;
  }
  return value;
}

/** Structural equality of JSON values (object key order does not matter). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  }
  if (isJsonObject(a) && isJsonObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => hasOwn(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

/**
 * Renders a value the way Go's `%v` prints decoded JSON (`map[a:1 b:[x y]]`), so error messages read exactly like
 * the ones kube-apiserver returns for the same patch.
 */
export function goFormat(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(goFormat).join(' ')}]`;
  if (isJsonObject(value)) {
    const keys = Object.keys(value).sort();
    return `map[${keys.map((k) => `${k}:${goFormat(value[k])}`).join(' ')}]`;
  }
  return String(value);
}

/** A short description of a JSON value's type for messages: `object`, `array`, `string`, `null`, … */
export function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
