/**
 * kube's CRD validation ratcheting (on by default since 1.30; apiextensions-apiserver's ratchetingValueValidator): on
 * an update, a schema error is dropped when the value at some node above it (or at it) is deep-equal to the old
 * object's value there, so an object stored before a stricter schema (or a stricter kcpt) can still be written where
 * it changes. Old and new values are matched ("correlated") from the root down: object fields by name when the schema
 * declares the field (or additionalProperties has a schema), except the root's apiVersion and kind; items of an
 * `x-kubernetes-list-type: map` list by their keys (the first old item with the same keys); nothing else, so items of
 * atomic lists and sets ratchet only with their whole list. An error's node is the value whose schema reported it
 * (a missing required field is its parent's error).
 * Two kinds of error follow the CRD strategy's own rules instead: an embedded resource's missing apiVersion or kind
 * (schemaobjectmeta.Validate, never ratcheted), and duplicates in list-type set/map lists (kept only when the old
 * object had none anywhere).
 */
import type { ChangeDetector } from '../machinery/canonical-json.js';
import { ownValue } from '../machinery/own-properties.js';
import type { SchemaError } from './schema-walk.js';
import { isPlainObject } from './types.js';

type Schema = Record<string, unknown>;

/** The schema of a field of an object with schema `s`, when kube's correlation follows it. */
function fieldSchema(s: Schema, field: string): Schema | undefined {
  const props = s.properties;
  if (isPlainObject(props) && isPlainObject(ownValue(props, field))) return ownValue(props, field) as Schema;
  return isPlainObject(s.additionalProperties) ? s.additionalProperties : undefined;
}

/**
 * A map-list item's composite key, as kube's listtype keyStrategy makes it: the key fields' scalar values (a missing
 * one is null); an item that is not an object or has a non-scalar key field has none.
 */
function mapListKey(item: unknown, keys: readonly string[]): string | undefined {
  if (!isPlainObject(item)) return undefined;
  const values: unknown[] = [];
  for (const k of keys) {
    const v = ownValue(item, k) ?? null;
    if (v !== null && typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') return undefined;
    values.push(v);
  }
  return JSON.stringify(values);
}

/**
 * The old item each new item of an `x-kubernetes-list-type: map` list is correlated with (the first old item with
 * the same keys), as kube correlates them for ratcheting and CEL transition rules: the old list is indexed once, so
 * correlating its n items costs O(n).
 */
export function correlateMapList(oldList: readonly unknown[], keys: readonly string[]): (item: unknown) => unknown {
  const byKey = new Map<string, unknown>();
  for (const o of oldList) {
    const k = mapListKey(o, keys);
    if (k !== undefined && !byKey.has(k)) byKey.set(k, o);
  }
  return (item) => {
    const k = mapListKey(item, keys);
    return k === undefined ? undefined : byKey.get(k);
  };
}

/**
 * What one ratcheting pass has worked out, so that n errors under one list cost O(n), not n walks of it: old lists'
 * correlations, and whether a (new) value equals its correlated old value (a value's place in the object fixes its
 * correlated old value, so the new object or list is the key).
 */
interface Correlations {
  lists: Map<readonly unknown[], (item: unknown) => unknown>;
  equal: Map<object, boolean>;
  /** The pass's comparisons, bounded together (errors at every level of a deep object compare each level's value). */
  changes: ChangeDetector;
}

/** The old item a new map-list item is correlated with. */
function correlatedItem(schema: Schema, item: unknown, oldList: unknown[], seen: Correlations): unknown {
  const keys = schema['x-kubernetes-list-map-keys'];
  if (schema.type !== 'array' || schema['x-kubernetes-list-type'] !== 'map' || !Array.isArray(keys) || keys.length === 0) return undefined;
  let lookup = seen.lists.get(oldList);
  if (!lookup) seen.lists.set(oldList, (lookup = correlateMapList(oldList, keys as string[])));
  return lookup(item);
}

/** Whether the deepest value correlated along `segments` is unchanged (then so is every correlated node above it). */
function unchangedAlong(segments: string[], obj: unknown, old: unknown, schema: Schema, seen: Correlations): boolean {
  let now = obj;
  let before = old;
  let s: Schema | undefined = schema;
  for (let i = 0; i < segments.length && s; i++) {
    const seg = segments[i]!;
    if (isPlainObject(now) && isPlainObject(before)) {
      if (i === 0 && (seg === 'apiVersion' || seg === 'kind')) break;
      const next = ownValue(now, seg);
      const prev = ownValue(before, seg);
      s = fieldSchema(s, seg);
      if (next === undefined || prev === undefined || !s) break;
      [now, before] = [next, prev];
    } else if (Array.isArray(now) && Array.isArray(before)) {
      const item = now[Number(seg)];
      const prev = correlatedItem(s, item, before, seen);
      s = isPlainObject(s.items) ? s.items : undefined;
      if (prev === undefined || !s) break;
      [now, before] = [item, prev];
    } else {
      break;
    }
  }
  if (now === null || typeof now !== 'object') return seen.changes.unchanged(now, before);
  let equal = seen.equal.get(now);
  if (equal === undefined) seen.equal.set(now, (equal = seen.changes.unchanged(now, before)));
  return equal;
}

/**
 * The errors an update keeps (all of them on a create, when there is no old object). `oldErrors` validates the old
 * object, asked only when the new one has duplicate-item errors.
 */
export function ratchetSchemaErrors(
  errors: SchemaError[],
  obj: unknown,
  old: unknown,
  schema: unknown,
  oldErrors: () => SchemaError[],
  changes: ChangeDetector,
): SchemaError[] {
  if (old === undefined || errors.length === 0 || !isPlainObject(schema)) return errors;
  let oldHadDuplicates: boolean | undefined;
  const seen: Correlations = { lists: new Map(), equal: new Map(), changes };
  return errors.filter((e) => {
    if (e.keyword === 'x-kubernetes-embedded-resource') return true;
    if (e.keyword === 'x-kubernetes-list-type') return !(oldHadDuplicates ??= oldErrors().some((o) => o.keyword === 'x-kubernetes-list-type'));
    const segments = e.instancePath ? e.instancePath.slice(1).split('/').map((seg) => seg.replace(/~1/g, '/').replace(/~0/g, '~')) : [];
    return !unchangedAlong(segments, obj, old, schema, seen);
  });
}
