/**
 * Finds and drops fields a schema does not declare — what kube's strict decoding calls "unknown fields" for
 * built-ins and what structural pruning drops for CRDs. The caller decides what the finding means
 * (fieldValidation Strict → error, Warn → Warning headers, Ignore → silence).
 */
export type SchemaNode = Record<string, unknown>;
export type SchemaMap = Record<string, SchemaNode>;

const refPrefix = '#/components/schemas/';

function resolve(schema: SchemaNode | undefined, schemas: SchemaMap, depth = 0): SchemaNode | undefined {
  if (!schema || depth > 16) return schema;
  const ref = schema.$ref as string | undefined;
  if (ref?.startsWith(refPrefix)) return resolve(schemas[ref.slice(refPrefix.length)], schemas, depth + 1);
  const allOf = schema.allOf as SchemaNode[] | undefined;
  if (allOf?.length === 1 && !schema.properties) return resolve(allOf[0], schemas, depth + 1);
  return schema;
}

/**
 * Removes undeclared fields from `value` (in place) and returns their paths as kube prints them:
 * `spec.foo`, `spec.items[0].bar`. Root `apiVersion`/`kind` are always allowed.
 */
export function pruneUnknownFields(value: unknown, rootSchema: SchemaNode | undefined, schemas: SchemaMap): string[] {
  const found: string[] = [];
  walk(value, resolve(rootSchema, schemas), '', schemas, found, true);
  return found;
}

function walk(value: unknown, schema: SchemaNode | undefined, path: string, schemas: SchemaMap, found: string[], root = false): void {
  if (!schema || value === null || typeof value !== 'object') return;
  if (schema['x-kubernetes-preserve-unknown-fields'] === true && !schema.properties) return;
  if (Array.isArray(value)) {
    const items = resolve(schema.items as SchemaNode | undefined, schemas);
    value.forEach((item, i) => walk(item, items, `${path}[${i}]`, schemas, found));
    return;
  }
  const record = value as Record<string, unknown>;
  const properties = schema.properties as Record<string, SchemaNode> | undefined;
  const additional = schema.additionalProperties;
  if (properties) {
    for (const key of Object.keys(record)) {
      const child = path ? `${path}.${key}` : key;
      const prop = properties[key];
      if (prop) {
        walk(record[key], resolve(prop, schemas), child, schemas, found);
      } else if (root && (key === 'apiVersion' || key === 'kind')) {
        continue;
      } else if (additional && typeof additional === 'object') {
        walk(record[key], resolve(additional as SchemaNode, schemas), child, schemas, found);
      } else if (additional !== true && schema['x-kubernetes-preserve-unknown-fields'] !== true) {
        found.push(child);
        delete record[key];
      }
    }
    return;
  }
  if (additional && typeof additional === 'object') {
    const child = resolve(additional as SchemaNode, schemas);
    for (const key of Object.keys(record)) walk(record[key], child, path ? `${path}.${key}` : key, schemas, found);
  }
}
