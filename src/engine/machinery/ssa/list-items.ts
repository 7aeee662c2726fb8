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
    return keyElement(item as Record<string, unknown>, t?.keys ?? []);
  }
  return `i:${index}`;
}

/** `k:` element from an item's key fields, in sorted field order (how upstream serializes them). */
export function keyElement(item: Record<string, unknown>, keys: readonly string[]): PathElement {
  const key: Record<string, unknown> = {};
  for (const k of [...keys].sort()) if (Object.hasOwn(item, k) && item[k] !== undefined) setOwnValue(key, k, item[k]);
  return `k:${canonicalJSON(key)}`;
}
