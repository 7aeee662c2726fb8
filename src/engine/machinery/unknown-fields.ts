/**
 * Finds and drops fields a schema does not declare: what kube's strict decoding calls "unknown fields" for
 * built-ins and what structural pruning drops for custom resources — one walker for both. The caller decides what
 * the finding means (fieldValidation Strict → error, Warn → Warning headers, Ignore → silence).
 */
export type SchemaNode = Record<string, unknown>;
export type SchemaMap = Record<string, SchemaNode>;

import { ownValue } from './own-properties.js';

const refPrefix = '#/components/schemas/';

/** ObjectMeta fields a resource's `metadata` keeps whatever its schema says (kube prunes metadata to these). */
const objectMetaFields = new Set([
  'name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp',
  'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers',
  'managedFields',
]);

function resolve(schema: SchemaNode | undefined, schemas: SchemaMap, depth = 0): SchemaNode | undefined {
  if (!schema || depth > 16) return schema;
  const ref = schema.$ref as string | undefined;
  if (ref?.startsWith(refPrefix)) return resolve(ownValue(schemas, ref.slice(refPrefix.length)), schemas, depth + 1);
  const allOf = schema.allOf as SchemaNode[] | undefined;
  if (allOf?.length === 1 && !schema.properties) return resolve(allOf[0], schemas, depth + 1);
  return schema;
}

/**
 * Removes undeclared fields from `value` (in place) and returns their paths as kube prints them:
 * `spec.foo`, `spec.items[0].bar`. At the root and in `x-kubernetes-embedded-resource` nodes, `apiVersion` and
 * `kind` are always allowed and `metadata` is pruned to ObjectMeta.
 */
export function pruneUnknownFields(value: unknown, rootSchema: SchemaNode | undefined, schemas: SchemaMap = {}): string[] {
  const found: string[] = [];
  walk(value, resolve(rootSchema, schemas), '', schemas, found, true);
  return found;
}

function walk(value: unknown, schema: SchemaNode | undefined, path: string, schemas: SchemaMap, found: string[], resource = false): void {
  if (!schema || value === null || typeof value !== 'object') return;
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  if (preserve && !schema.properties && !resource) return;
  if (Array.isArray(value)) {
    const items = resolve(schema.items as SchemaNode | undefined, schemas);
    value.forEach((item, i) => walk(item, items, `${path}[${i}]`, schemas, found, embedded(items)));
    return;
  }
  const record = value as Record<string, unknown>;
  const properties = (schema.properties as Record<string, SchemaNode> | undefined) ?? (resource && !preserve ? {} : undefined);
  const additional = schema.additionalProperties;
  // A child's path is built only for a value walked into or reported: most values are scalars, found nowhere.
  if (properties) {
    for (const key of Object.keys(record)) {
      if (resource && (key === 'apiVersion' || key === 'kind')) continue;
      const item = record[key];
      if (resource && key === 'metadata') {
        pruneMetadata(item, resolve(ownValue(properties, 'metadata'), schemas), childPath(path, key), schemas, found);
        continue;
      }
      // Own properties only: a schema declares `constructor` only if it says so.
      const prop = ownValue(properties, key);
      if (prop) {
        if (item === null || typeof item !== 'object') continue;
        const resolved = resolve(prop, schemas);
        walk(item, resolved, childPath(path, key), schemas, found, embedded(resolved));
      } else if (additional && typeof additional === 'object') {
        if (item === null || typeof item !== 'object') continue;
        walk(item, resolve(additional as SchemaNode, schemas), childPath(path, key), schemas, found);
      } else if (additional !== true && !preserve) {
        found.push(childPath(path, key));
        delete record[key];
      }
    }
    return;
  }
  if (additional && typeof additional === 'object') {
    const child = resolve(additional as SchemaNode, schemas);
    for (const key of Object.keys(record)) {
      const item = record[key];
      if (item !== null && typeof item === 'object') walk(item, child, childPath(path, key), schemas, found, embedded(child));
    }
  }
}

/**
 * A resource's metadata: walked against the full ObjectMeta schema when the kind has one (built-ins), otherwise
 * (custom resources, whose schemas may only restrict name) kept to the ObjectMeta field names.
 */
function pruneMetadata(value: unknown, schema: SchemaNode | undefined, path: string, schemas: SchemaMap, found: string[]): void {
  const properties = schema?.properties as Record<string, SchemaNode> | undefined;
  if (properties?.ownerReferences) {
    walk(value, schema, path, schemas, found);
    return;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (objectMetaFields.has(key)) continue;
    found.push(`${path}.${key}`);
    delete record[key];
  }
}

function childPath(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function embedded(schema: SchemaNode | undefined): boolean {
  return schema?.['x-kubernetes-embedded-resource'] === true;
}
