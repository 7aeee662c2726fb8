/**
 * Schema defaulting for custom resources (apiextensions-apiserver pkg/apiserver/schema/defaulting): run after
 * pruning. Where a field is absent, set its `default` (deep-cloned). A `null` for a field without
 * `nullable: true` is removed first, then defaulted. Mutates `obj` in place.
 */
import { isPlainObject, type JSONSchemaProps } from './types.js';

export function applyDefaults(obj: unknown, schema: JSONSchemaProps | undefined): void {
  if (!schema) return;
  defaultValue(obj, schema);
}

function defaultValue(v: unknown, s: JSONSchemaProps): void {
  if (Array.isArray(v)) {
    const items = s.items;
    if (!isPlainObject(items)) return;
    for (let i = 0; i < v.length; i++) {
      if (v[i] === null && items.default !== undefined && items.nullable !== true) v[i] = structuredClone(items.default);
      defaultValue(v[i], items as JSONSchemaProps);
    }
    return;
  }
  if (!isPlainObject(v)) return;
  const props = s.properties;
  if (props) {
    for (const [k, sub] of Object.entries(props)) {
      if (!isPlainObject(sub)) continue;
      if (v[k] === null && sub.nullable !== true) delete v[k];
      if (!(k in v) && sub.default !== undefined) v[k] = structuredClone(sub.default);
    }
    for (const [k, sub] of Object.entries(props)) {
      if (isPlainObject(sub) && k in v) defaultValue(v[k], sub as JSONSchemaProps);
    }
  } else if (isPlainObject(s.additionalProperties)) {
    const ap = s.additionalProperties as JSONSchemaProps;
    for (const k of Object.keys(v)) {
      if (v[k] === null && ap.nullable !== true) {
        if (ap.default !== undefined) v[k] = structuredClone(ap.default);
        else delete v[k];
      }
      defaultValue(v[k], ap);
    }
  }
}
