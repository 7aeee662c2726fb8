/**
 * The nulls of a CRD version's `openAPIV3Schema` as kube stores them. kcpt publishes JSONSchemaProps as an open
 * object, so the typed walk does not go into it; kube decodes it into apiextensions' Go JSONSchemaProps, where every
 * field is a pointer or has omitempty: a null field disappears (`description: null`), and a null element becomes its
 * zero value (`allOf: [null]` is `{}`, `required: [null]` is `""`, an x-kubernetes-validations rule is
 * `{rule: ""}`). Raw JSON (`default`, `example`, `enum` items) keeps its nulls. Bodies are at most
 * MAX_NESTING_DEPTH deep before this runs, so the recursion is bounded.
 */
type Json = Record<string, unknown>;

/** Fields holding one schema (or, for items, a list of them; additionalProperties/Items, a bool or a schema). */
const schemaFields = new Set(['not', 'items', 'additionalProperties', 'additionalItems']);
/** Fields holding a list of schemas. */
const schemaListFields = new Set(['allOf', 'anyOf', 'oneOf']);
/** Fields holding a map of schemas. */
const schemaMapFields = new Set(['properties', 'patternProperties', 'definitions']);
/** Fields holding a list of strings. */
const stringListFields = new Set(['required', 'x-kubernetes-list-map-keys']);

export function settleSchemaPropsNulls(schema: unknown): void {
  if (schema === null || typeof schema !== 'object') return;
  if (Array.isArray(schema)) {
    // items given as a list of schemas ([]JSONSchemaProps): a null element is the zero schema.
    for (let i = 0; i < schema.length; i++) {
      if (schema[i] === null) schema[i] = {};
      else settleSchemaPropsNulls(schema[i]);
    }
    return;
  }
  const props = schema as Json;
  for (const key of Object.keys(props)) {
    const value = props[key];
    if (value === null) {
      delete props[key];
      continue;
    }
    if (typeof value !== 'object') continue;
    if (schemaFields.has(key)) settleSchemaPropsNulls(value);
    else if (schemaListFields.has(key) && Array.isArray(value)) settleSchemaPropsNulls(value);
    else if (schemaMapFields.has(key) && !Array.isArray(value)) {
      const map = value as Json;
      for (const name of Object.keys(map)) {
        if (map[name] === null) map[name] = {};
        else settleSchemaPropsNulls(map[name]);
      }
    } else if (key === 'dependencies' && !Array.isArray(value)) {
      // JSONSchemaPropsOrStringArray: a schema, or a list of property names.
      for (const dependency of Object.values(value as Json)) {
        if (Array.isArray(dependency)) zeroNullStrings(dependency);
        else settleSchemaPropsNulls(dependency);
      }
    } else if (stringListFields.has(key) && Array.isArray(value)) {
      zeroNullStrings(value);
    } else if (key === 'x-kubernetes-validations' && Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) value[i] = validationRule(value[i]);
    } else if (key === 'externalDocs' && !Array.isArray(value)) {
      dropNullFields(value as Json);
    }
  }
}

function zeroNullStrings(list: unknown[]): void {
  for (let i = 0; i < list.length; i++) if (list[i] === null) list[i] = '';
}

function dropNullFields(record: Json): void {
  for (const key of Object.keys(record)) if (record[key] === null) delete record[key];
}

/** A ValidationRule: `rule` has no omitempty (null is ""), the others drop. */
function validationRule(rule: unknown): unknown {
  if (rule === null) return { rule: '' };
  if (typeof rule !== 'object' || Array.isArray(rule)) return rule;
  const record = rule as Json;
  const hadRule = Object.hasOwn(record, 'rule') && record.rule === null;
  dropNullFields(record);
  if (hadRule) record.rule = '';
  return record;
}
