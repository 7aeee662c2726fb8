/**
 * CRD `selectableFields` (kube 1.31+ GA): extra field-selector labels for custom resources. The runtime side
 * follows apiextensions-apiserver pkg/registry/customresource/strategy.go (selectableFields/GetAttrs); the CRD
 * side follows ValidateCustomResourceSelectableFields and cel.ValidFieldPath with array notation disabled.
 */
import type { KubeObject } from '../registry/types.js';
import { ownValue } from '../machinery/own-properties.js';
import { fieldErrors, type FieldError } from '../machinery/status.js';
import { goSprint } from './go-format.js';
import { compileJSONPath, plainValue } from './kube-jsonpath.js';
import { isPlainObject, type JSONSchemaProps } from './types.js';

export interface SelectableField {
  jsonPath: string;
}

export const MAX_SELECTABLE_FIELDS = 8;

/**
 * Field-selector extractors for a CR version: the label is the jsonPath without its leading dot (`spec.color`);
 * the value is Go's fmt.Sprint of what the path finds, and "" when it finds nothing or null (so `spec.color=`
 * matches objects without a colour).
 */
export function fieldSelectorsFor(
  selectableFields: readonly SelectableField[] | undefined,
): Record<string, (obj: KubeObject) => string | undefined> {
  const out: Record<string, (obj: KubeObject) => string | undefined> = {};
  for (const sf of selectableFields ?? []) {
    const label = sf.jsonPath.replace(/^\./, '');
    let path: ReturnType<typeof compileJSONPath> | undefined;
    let parseError: string | undefined;
    try {
      path = compileJSONPath(`{${sf.jsonPath}}`);
    } catch (e) {
      parseError = (e as Error).message;
    }
    out[label] = (obj) => {
      // Unreachable for a CRD that passed validation (only simple paths are accepted); kube fails the request.
      if (!path) throw new Error(`unexpected error parsing jsonPath: ${parseError}`);
      let results: unknown[][];
      try {
        results = path.findResults(obj);
      } catch (e) {
        throw new Error(`unexpected error finding value with jsonPath: ${(e as Error).message}`);
      }
      const first = results[0] ?? [];
      if (results.length > 1 || first.length > 1) throw new Error('unexpectedly received more than one JSON path result');
      const value = first.length > 0 ? plainValue(first[0]) : null;
      return value === null || value === undefined ? '' : goSprint(value);
    };
  }
  return out;
}

/** The structural-schema view ValidFieldPath walks: properties if any, else additionalProperties. */
interface SchemaStep {
  schema: JSONSchemaProps | undefined;
}

function hasProperties(s: JSONSchemaProps | undefined): boolean {
  // NewStructural keeps no properties map for an empty one.
  return !!s && isPlainObject(s.properties) && Object.keys(s.properties).length > 0;
}

/**
 * cel.ValidFieldPath(jsonPath, schema, WithFieldPathAllowArrayNotation(false)): the kube field path
 * (`spec.color`) and the schema it names, or kube's error text.
 */
export function validFieldPath(jsonPath: string, root: JSONSchemaProps | undefined): { path: string[]; schema: JSONSchemaProps | undefined } | { error: string } {
  // kube's scanner: '.', '[' and ']' are one-character tokens; a token starting with a quote runs to the closing quote.
  const tokens: string[] = [];
  for (let i = 0; i < jsonPath.length; ) {
    const c = jsonPath[i] ?? '';
    if (c === '.' || c === '[' || c === ']') {
      tokens.push(c);
      i++;
      continue;
    }
    let j = i + 1;
    if (c === "'") {
      while (j < jsonPath.length && !(jsonPath[j] === "'" && jsonPath[j - 1] !== '\\')) j++;
      j = Math.min(j + 1, jsonPath.length);
    } else {
      while (j < jsonPath.length && !'.[]'.includes(jsonPath[j] ?? '')) j++;
    }
    tokens.push(jsonPath.slice(i, j));
    i = j;
  }
  const path: string[] = [];
  const step: SchemaStep = { schema: root };
  for (let t = 0; t < tokens.length; t++) {
    const tok = tokens[t];
    if (tok === '[') return { error: 'array notation is not allowed' };
    if (tok !== '.') return { error: `expected [ or . but got: ${tok}` };
    const name = tokens[++t];
    if (name === undefined) return { error: 'unexpected end of JSON path' };
    const s = step.schema;
    if (hasProperties(s)) {
      path.push(name);
      const next = ownValue(s?.properties, name);
      if (!isPlainObject(next)) return { error: 'does not refer to a valid field' };
      step.schema = next as JSONSchemaProps;
    } else if (s && s.additionalProperties !== undefined) {
      path.push(`[${name}]`);
      step.schema = isPlainObject(s.additionalProperties) ? (s.additionalProperties as JSONSchemaProps) : undefined;
    } else return { error: 'does not refer to a valid field' };
  }
  return { path, schema: step.schema };
}

/** field.Path.String() of the segments validFieldPath produced (keys are already bracketed). */
const renderPath = (segments: string[]) => segments.reduce((acc, s) => (s.startsWith('[') || !acc ? acc + s : `${acc}.${s}`), '');

/**
 * ValidateCustomResourceSelectableFields for `list` at `fieldPath` (`spec.versions[0].selectableFields` or
 * `spec.selectableFields`), against the version's openAPIV3Schema.
 */
export function validateSelectableFields(list: unknown, schema: unknown, fieldPath: string): FieldError[] {
  if (!Array.isArray(list)) return [];
  const errs: FieldError[] = [];
  const unique = new Set<string>();
  const root = isPlainObject(schema) ? (schema as JSONSchemaProps) : undefined;
  list.forEach((raw, i) => {
    const p = `${fieldPath}[${i}].jsonPath`;
    const jsonPath = isPlainObject(raw) && typeof raw.jsonPath === 'string' ? raw.jsonPath : '';
    if (!jsonPath) {
      errs.push(fieldErrors.required(p));
      return;
    }
    const found = validFieldPath(jsonPath, root);
    if ('error' in found) {
      errs.push(fieldErrors.invalid(p, jsonPath, `is an invalid path: ${found.error}`));
      return;
    }
    if (found.path[0] === 'metadata') errs.push(fieldErrors.invalid(p, jsonPath, 'must not point to fields in metadata'));
    const type = found.schema?.type;
    if (type !== 'string' && type !== 'boolean' && type !== 'integer') {
      errs.push(
        fieldErrors.invalid(p, jsonPath, 'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.'),
      );
    }
    const key = renderPath(found.path);
    if (unique.has(key)) errs.push(fieldErrors.duplicate(p, jsonPath));
    else unique.add(key);
  });
  if (unique.size > MAX_SELECTABLE_FIELDS) {
    errs.push({ type: 'FieldValueTooMany', field: fieldPath, detail: `Too many: ${unique.size}: must have at most ${MAX_SELECTABLE_FIELDS} items` });
  }
  return errs;
}
