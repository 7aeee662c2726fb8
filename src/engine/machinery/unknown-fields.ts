/**
 * Finds and drops fields a schema does not declare: what kube's strict decoding calls "unknown fields" for
 * built-ins and what structural pruning drops for custom resources — one walker for both. The caller decides what
 * the finding means (fieldValidation Strict → error, Warn → Warning headers, Ignore → silence).
 */
export type SchemaNode = Record<string, unknown>;
export type SchemaMap = Record<string, SchemaNode>;

import { OBJECT_META } from './openapi-schemas/helpers.js';
import { metaSchemas } from './openapi-schemas/meta.js';
import { ownValue } from './own-properties.js';
import { settleSchemaPropsNulls } from './go-schema-props-nulls.js';
import type { NumberLiterals } from './json-number-literals.js';
import { checkValue, goShape, refOf, goTypeName, namedFieldType, goZeroValue, nullElementValue, nullFieldValue } from './go-decode.js';

const refPrefix = '#/components/schemas/';
/** A CRD version's schema: open in kcpt's OpenAPI, typed in kube's Go (go-schema-props-nulls.ts). */
const JSON_SCHEMA_PROPS = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps';

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
  const state: WalkState = { schemas, found: [], goTypes: false };
  walk(value, resolve(rootSchema, schemas), '', state, true);
  return state.found;
}

/**
 * The same walk for a built-in kind, which kube decodes into Go structs: besides the unknown fields, the error
 * that decoding reports for the first wrongly typed value (see go-decode.ts), if any. `rootStruct` is the kind's Go
 * struct name. When `decodeError` is set, the pruning may have stopped part-way: the object is to be refused.
 * Null elements of scalar slices and maps become their zero values, and with `nullFields` null struct fields become
 * what Go's round trip leaves of them (most disappear), as kube stores the object. With `literals` (a JSON body's
 * number texts), an int field is judged by the text Go would see: `1.0` and `1e3` are not ints.
 */
export function decodeBuiltin(
  value: unknown,
  rootSchema: SchemaNode,
  schemas: SchemaMap,
  rootStruct: string,
  options: { nullFields?: boolean; literals?: () => NumberLiterals | undefined } = {},
): { unknown: string[]; decodeError?: string } {
  const state: WalkState = { schemas, found: [], goTypes: true, nullFields: options.nullFields ?? true, literals: options.literals };
  walk(value, resolve(rootSchema, schemas), '', state, true, rootStruct, '', rootStruct, 0);
  return { unknown: state.found, decodeError: state.error };
}

interface WalkState {
  schemas: SchemaMap;
  found: string[];
  /** Check values against their Go types (built-ins), not only field names. */
  goTypes: boolean;
  /** Replace a null struct field by what Go's decode and encode make of it (go-decode's nullFieldValue). */
  nullFields?: boolean;
  /** The body's number literals JSON.parse altered (`1.0`), which an int field refuses; asked for at the first number. */
  literals?: () => NumberLiterals | undefined;
  /** The decode error to report: the first remembered type error, unless a fatal one came later. */
  error?: string;
  fatal?: boolean;
}

/**
 * One node. With `state.goTypes`, `ctxStruct`/`ctxField` are Go's error context for values met here (the innermost
 * struct whose field holds this value, and the dotted field path), `self` this node's own Go struct name, and
 * `elem` how many slice/map levels below that field the node sits.
 */
function walk(
  value: unknown,
  schema: SchemaNode | undefined,
  path: string,
  state: WalkState,
  resource = false,
  ctxStruct = '',
  ctxField = '',
  self = '',
  elem = 0,
): void {
  if (!schema || value === null || typeof value !== 'object') return;
  const { schemas, found } = state;
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  if (preserve && !schema.properties && !resource) return;
  if (Array.isArray(value)) {
    const itemSchema = schema.items as SchemaNode | undefined;
    const items = resolve(itemSchema, schemas);
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      if (item === null && state.goTypes && itemSchema) zeroNullElement(value, i, itemSchema, state);
      if (state.goTypes && itemSchema && !typed(item, itemSchema, state, ctxStruct, ctxField, undefined, elem + 1, literalOf(state, value, i, item))) {
        if (state.fatal) return;
        continue;
      }
      walk(item, items, `${path}[${i}]`, state, embedded(items), ctxStruct, ctxField, goStructName(state, itemSchema), elem + 1);
      if (state.fatal) return;
    }
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
      // Own properties only: a schema declares `constructor` only if it says so.
      const prop = ownValue(properties, key);
      if (item === null && prop && state.nullFields) {
        const settled = nullFieldValue(prop, schemas, self, key);
        if (settled.omitted) delete record[key];
        else record[key] = settled.value;
        continue;
      }
      // Inside a struct, a field's values are decoded in the context of this struct and the field's path.
      if (state.goTypes && prop && !typed(item, prop, state, self, ctxField, key, 0, literalOf(state, record, key, item))) {
        if (state.fatal) return;
        continue;
      }
      if (resource && key === 'metadata') {
        const field = state.goTypes && prop ? fieldPath(ctxField, key) : '';
        pruneMetadata(item, resolve(ownValue(properties, 'metadata'), schemas), childPath(path, key), state, self, field);
        if (state.fatal) return;
        continue;
      }
      if (prop) {
        if (item === null || typeof item !== 'object') continue;
        if (state.nullFields && refOf(prop) === JSON_SCHEMA_PROPS) settleSchemaPropsNulls(item);
        const resolved = resolve(prop, schemas);
        const field = state.goTypes ? fieldPath(ctxField, key) : '';
        walk(item, resolved, childPath(path, key), state, embedded(resolved), self, field, goStructName(state, prop), 0);
        if (state.fatal) return;
      } else if (additional && typeof additional === 'object') {
        if (item === null || typeof item !== 'object') continue;
        walk(item, resolve(additional as SchemaNode, schemas), childPath(path, key), state);
      } else if (additional !== true && !preserve) {
        found.push(childPath(path, key));
        delete record[key];
      }
    }
    return;
  }
  if (additional && typeof additional === 'object') {
    const child = resolve(additional as SchemaNode, schemas);
    const isEmbedded = embedded(child);
    const childStruct = goStructName(state, additional as SchemaNode);
    for (const key of Object.keys(record)) {
      const item = record[key];
      if (item === null && state.goTypes) zeroNullElement(record, key, additional as SchemaNode, state);
      if (state.goTypes && !typed(item, additional as SchemaNode, state, ctxStruct, ctxField, undefined, elem + 1, literalOf(state, record, key, item))) {
        if (state.fatal) return;
        continue;
      }
      if (item !== null && typeof item === 'object') {
        walk(item, child, childPath(path, key), state, isEmbedded, ctxStruct, ctxField, childStruct, elem + 1);
        if (state.fatal) return;
      }
    }
  }
}

/**
 * A null element of a typed slice or map becomes what Go's decode and encode make of it: a scalar's zero value
 * (go-decode's nullElementValue) always, and with `nullFields` a struct's zero value too (go-decode's goZeroValue).
 */
function zeroNullElement(container: unknown[] | Record<string, unknown>, at: number | string, node: SchemaNode, state: WalkState): void {
  const shape = goShape(node, state.schemas);
  const zero = state.nullFields ? goZeroValue(node, state.schemas) : nullElementValue(shape);
  if (zero !== undefined) (container as Record<string | number, unknown>)[at] = zero;
}

/**
 * Whether `item` decodes into the Go type of `node` (null always does, as a no-op); a mismatch is recorded in
 * `state` and the value is not walked further, as Go skips it. `key` is the struct field being decoded, if any:
 * the field path is only built for an error.
 */
function typed(
  item: unknown,
  node: SchemaNode,
  state: WalkState,
  ctxStruct: string,
  ctxField: string,
  key: string | undefined,
  elem: number,
  literal: string | undefined,
): boolean {
  if (item === null || item === undefined) return true;
  // The commonest value, a string where the schema says string, needs no shape lookup.
  if (typeof item === 'string' && node.type === 'string' && node.format !== 'byte') return true;
  const shape = goShape(node, state.schemas);
  // The shapes that fit without a verdict (no closure, no field path): the walk's usual case.
  switch (shape.kind) {
    case 'raw':
      return true;
    case 'struct':
    case 'map':
      if (typeof item === 'object' && !Array.isArray(item)) return true;
      break;
    case 'slice':
      if (Array.isArray(item)) return true;
      break;
    case 'string':
      if (typeof item === 'string') return true;
      break;
    case 'bool':
      if (typeof item === 'boolean') return true;
      break;
    default:
  }
  const field = key === undefined ? ctxField : fieldPath(ctxField, key);
  const verdict = checkValue(item, shape, ctxStruct, field, () =>
    namedFieldType(ctxStruct, field, elem) ?? goTypeName(node, state.schemas), literal);
  if (!verdict) return true;
  if (verdict.fatal) {
    state.error = verdict.error;
    state.fatal = true;
  } else {
    state.error ??= verdict.error;
  }
  return false;
}

/** The text the body gave for the number `item` held at `container[at]`, when JSON.parse altered it. */
function literalOf(state: WalkState, container: object, at: string | number, item: unknown): string | undefined {
  if (typeof item !== 'number' || !state.literals) return undefined;
  const literal = state.literals()?.get(container)?.get(at);
  // Admission ahead of decoding may have replaced the value: the text speaks only for the number it was.
  return literal !== undefined && Number(literal) === item ? literal : undefined;
}

function goStructName(state: WalkState, node: SchemaNode | undefined): string {
  if (!state.goTypes || !node) return '';
  const shape = goShape(node, state.schemas);
  return shape.kind === 'struct' ? shape.name : '';
}

/**
 * A resource's metadata: walked against the full ObjectMeta schema when the kind has one (built-ins), otherwise
 * (custom resources, whose schemas may only restrict name) kept to the ObjectMeta field names.
 */
function pruneMetadata(value: unknown, schema: SchemaNode | undefined, path: string, state: WalkState, ctxStruct: string, ctxField: string): void {
  const properties = schema?.properties as Record<string, SchemaNode> | undefined;
  if (properties?.ownerReferences) {
    walk(value, schema, path, state, false, ctxStruct, ctxField, 'ObjectMeta', 0);
  } else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      if (objectMetaFields.has(key)) continue;
      state.found.push(`${path}.${key}`);
      delete record[key];
    }
  }
  // kube round-trips a custom resource's metadata through Go's ObjectMeta (apiextensions' GetObjectMeta and
  // SetObjectMeta): its nulls come back as Go leaves them (`labels: null` disappears). A built-in's walk did so.
  if (!state.goTypes && value !== null && typeof value === 'object') {
    const objectMeta = resolve(metaSchemas[OBJECT_META], metaSchemas);
    walk(value, objectMeta, '', { schemas: metaSchemas, found: [], goTypes: true, nullFields: true }, false, '', '', 'ObjectMeta', 0);
  }
}

/** Go's error-context field path: JSON field names from the root, dotted, without map keys or indices. */
function fieldPath(parent: string, key: string): string {
  return parent ? `${parent}.${key}` : key;
}

function childPath(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function embedded(schema: SchemaNode | undefined): boolean {
  return schema?.['x-kubernetes-embedded-resource'] === true;
}
