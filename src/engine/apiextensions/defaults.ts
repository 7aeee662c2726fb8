/**
 * Schema defaulting for custom resources (apiextensions-apiserver pkg/apiserver/schema/defaulting): run after
 * pruning. Where a field is absent, set its `default` (deep-cloned). A `null` for a field without
 * `nullable: true` is removed first, then defaulted. Mutates `obj` in place.
 */
import { ownValue, setOwnValue } from '../machinery/own-properties.js';
import { isPlainObject, type JSONSchemaProps } from './types.js';

/** Returns whether anything changed. */
export function applyDefaults(obj: unknown, schema: JSONSchemaProps | undefined): boolean {
  if (!schema) return false;
  return defaultValue(obj, schema);
}

/** A schema's properties that are schemas, listed once per schema (objects are defaulted on every read and write). */
const propertyLists = new WeakMap<JSONSchemaProps, Array<[string, JSONSchemaProps]>>();

function propertiesOf(s: JSONSchemaProps, props: NonNullable<JSONSchemaProps['properties']>): Array<[string, JSONSchemaProps]> {
  let list = propertyLists.get(s);
  if (!list) {
    list = Object.entries(props).filter((e): e is [string, JSONSchemaProps] => isPlainObject(e[1]));
    propertyLists.set(s, list);
  }
  return list;
}

function defaultValue(v: unknown, s: JSONSchemaProps): boolean {
  let changed = false;
  if (Array.isArray(v)) {
    const items = s.items;
    if (!isPlainObject(items)) return false;
    for (let i = 0; i < v.length; i++) {
      if (v[i] === null && items.default !== undefined && items.nullable !== true) {
        v[i] = structuredClone(items.default);
        changed = true;
      }
      if (defaultValue(v[i], items as JSONSchemaProps)) changed = true;
    }
    return changed;
  }
  if (!isPlainObject(v)) return false;
  const props = s.properties;
  if (props) {
    const list = propertiesOf(s, props);
    for (const [k, sub] of list) {
      if (ownValue(v, k) === null && sub.nullable !== true) {
        delete v[k];
        changed = true;
      }
      if (sub.default !== undefined && !Object.hasOwn(v, k)) {
        setOwnValue(v, k, structuredClone(sub.default));
        changed = true;
      }
    }
    for (const [k, sub] of list) {
      if (Object.hasOwn(v, k) && defaultValue(v[k], sub)) changed = true;
    }
  } else if (isPlainObject(s.additionalProperties)) {
    const ap = s.additionalProperties as JSONSchemaProps;
    for (const k of Object.keys(v)) {
      if (v[k] === null && ap.nullable !== true) {
        if (ap.default !== undefined) v[k] = structuredClone(ap.default);
        else delete v[k];
        changed = true;
      }
      if (defaultValue(v[k], ap)) changed = true;
    }
  }
  return changed;
}
