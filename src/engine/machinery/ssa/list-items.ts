/**
 * The identity of a list item in a field path: `k:{"name":"c"}` for associative (map) lists, keyed by their key
 * fields; `v:<json>` for sets, keyed by the value; `i:<index>` when neither applies (an item of a map list that
 * is not an object).
 */
import { setOwnValue } from '../own-properties.js';
import { canonicalJSON } from '../canonical-json.js';
import type { PathElement } from './fieldset.js';
import { listTypeOf, type TypeInfo } from './type-info.js';

export function listItemElement(item: unknown, t: TypeInfo, index: number): PathElement {
  const listType = listTypeOf(t);
  if (listType === 'set') return `v:${canonicalJSON(item)}`;
  if (listType === 'map' && typeof item === 'object' && item !== null && !Array.isArray(item)) {
    return keyElement(item as Record<string, unknown>, t?.keys ?? [], t?.keyDefaults);
  }
  return `i:${index}`;
}

/**
 * `k:` element from an item's key fields, in sorted field order (how upstream serializes them). A key field the item
 * omits takes its schema default, or stays out of the key when it has none (structured-merge-diff's
 * keyedAssociativeListItemToPathElement).
 */
export function keyElement(item: Record<string, unknown>, keys: readonly string[], defaults?: Record<string, unknown>): PathElement {
  const key: Record<string, unknown> = {};
  for (const k of [...keys].sort()) {
    const value = Object.hasOwn(item, k) && item[k] !== undefined ? item[k] : defaults && Object.hasOwn(defaults, k) ? defaults[k] : undefined;
    if (value !== undefined) setOwnValue(key, k, value);
  }
  return `k:${canonicalJSON(key)}`;
}
