/**
 * The ajv compilation custom resources were validated with until the schema walker
 * (src/engine/apiextensions/schema-walk.ts): the same options, x-kubernetes-* keywords and draft-07 normalisation,
 * with cr-validator.ts's kube translation. Tests compare the walker with it; bench/crd-schema-pairs.js times both.
 */
import AjvModule, { type ErrorObject } from 'ajv';
import { translateErrors } from '../../src/engine/apiextensions/cr-validator.js';
import { re2Pattern } from '../../src/engine/apiextensions/schema-pattern.js';
import { stringFormatCheck } from '../../src/engine/apiextensions/string-formats.js';
import { isPlainObject, type JSONSchemaProps } from '../../src/engine/apiextensions/types.js';
import { ownValue, setOwnValue } from '../../src/engine/machinery/own-properties.js';
import type { FieldError } from '../../src/engine/machinery/status.js';

const Ajv = AjvModule.default;
type DataCxt = { instancePath: string };
type KwFn = ((schema: unknown, data: unknown, parent?: unknown, dataCxt?: DataCxt) => boolean) & { errors?: ErrorObject[] };

function makeOracle(): InstanceType<typeof Ajv> {
  const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false, addUsedSchema: false, validateSchema: false, code: { regExp: re2Pattern } });
  const err = (d: DataCxt | undefined, keyword: string, params: Record<string, unknown>, suffix = ''): ErrorObject => ({
    keyword,
    instancePath: (d?.instancePath ?? '') + suffix,
    schemaPath: '',
    params,
  });
  const intOrString: KwFn = (schema, data, parent, d) => {
    intOrString.errors = [];
    if (schema !== true) return true;
    if (data === null && (parent as Record<string, unknown> | undefined)?.['x-kcpt-nullable'] === true) return true;
    if (typeof data === 'string' || (typeof data === 'number' && Number.isInteger(data))) return true;
    intOrString.errors = [err(d, 'x-kubernetes-int-or-string', { kind: 'intOrString', value: data })];
    return false;
  };
  const embedded: KwFn = (schema, data, _p, d) => {
    embedded.errors = [];
    if (schema !== true || !isPlainObject(data)) return true;
    for (const f of ['apiVersion', 'kind']) {
      if (typeof data[f] !== 'string' || data[f] === '') embedded.errors.push(err(d, 'x-kubernetes-embedded-resource', { kind: 'embeddedRequired', field: f }, `/${f}`));
    }
    return embedded.errors.length === 0;
  };
  const listType: KwFn = (schema, data, parent, d) => {
    listType.errors = [];
    if (!Array.isArray(data)) return true;
    const seen = new Set<string>();
    if (schema === 'set') {
      data.forEach((item, i) => {
        const k = JSON.stringify(item);
        if (seen.has(k)) listType.errors!.push(err(d, 'x-kubernetes-list-type', { kind: 'duplicate', value: item }, `/${i}`));
        seen.add(k);
      });
    } else if (schema === 'map') {
      const keys = ((parent as JSONSchemaProps)['x-kubernetes-list-map-keys'] ?? []) as string[];
      data.forEach((item, i) => {
        if (!isPlainObject(item)) return;
        const kv: Record<string, unknown> = {};
        for (const k of keys) if (Object.hasOwn(item, k)) setOwnValue(kv, k, item[k]);
        const sig = JSON.stringify(keys.map((k) => ownValue(item, k)));
        if (seen.has(sig)) listType.errors!.push(err(d, 'x-kubernetes-list-type', { kind: 'duplicateMap', value: kv }, `/${i}`));
        seen.add(sig);
      });
    }
    return listType.errors.length === 0;
  };
  const format: KwFn = (schema, data, _p, d) => {
    format.errors = [];
    if (typeof data !== 'string' || typeof schema !== 'string') return true;
    if (stringFormatCheck(schema)?.(data) !== false) return true;
    format.errors = [err(d, 'x-kcpt-format', { kind: 'format', field: schema, value: data })];
    return false;
  };
  ajv.addKeyword({ keyword: 'x-kcpt-format', errors: true, validate: format });
  ajv.addKeyword({ keyword: 'x-kubernetes-int-or-string', errors: true, validate: intOrString });
  ajv.addKeyword({ keyword: 'x-kubernetes-embedded-resource', errors: true, validate: embedded });
  ajv.addKeyword({ keyword: 'x-kubernetes-list-type', errors: true, validate: listType });
  for (const k of ['x-kcpt-nullable', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-list-map-keys', 'x-kubernetes-map-type', 'x-kubernetes-validations']) {
    ajv.addKeyword({ keyword: k });
  }
  return ajv;
}

/** ajv's draft-07 terms for a kube schema: nullable as a type, boolean exclusive bounds as numeric ones. */
function toDraft07Schema(s: unknown): unknown {
  if (!isPlainObject(s)) return s;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) {
    switch (k) {
      case 'properties':
      case 'patternProperties':
      case 'definitions':
        out[k] = isPlainObject(v) ? Object.fromEntries(Object.entries(v).map(([pk, pv]) => [pk, toDraft07Schema(pv)])) : v;
        break;
      case 'items':
      case 'additionalProperties':
      case 'not':
        out[k] = toDraft07Schema(v);
        break;
      case 'allOf':
      case 'anyOf':
      case 'oneOf':
        out[k] = Array.isArray(v) ? v.map(toDraft07Schema) : v;
        break;
      case 'default':
      case 'example':
      case 'description':
      case 'title':
      case 'externalDocs':
      case '$schema':
      case 'id':
      case '$ref':
      case 'exclusiveMaximum':
      case 'exclusiveMinimum':
        break;
      case 'format':
        if (typeof v === 'string' && stringFormatCheck(v)) out['x-kcpt-format'] = v;
        break;
      case 'nullable':
        if (v === true && typeof s.type === 'string') out.type = [s.type, 'null'];
        else if (v === true) out['x-kcpt-nullable'] = true;
        break;
      case 'type':
        if (out.type === undefined) out.type = v;
        break;
      default:
        out[k] = v;
    }
  }
  if (s.exclusiveMaximum === true && typeof s.maximum === 'number') {
    delete out.maximum;
    out.exclusiveMaximum = s.maximum;
  }
  if (s.exclusiveMinimum === true && typeof s.minimum === 'number') {
    delete out.minimum;
    out.exclusiveMinimum = s.minimum;
  }
  return out;
}

let oracle: InstanceType<typeof Ajv> | undefined;

/** The CR validator as ajv compiled it (cr-validator.ts until 2026-11-29): the walker's oracle, and its bench's `old`. */
export function ajvCRValidator(schema: JSONSchemaProps): (obj: unknown) => FieldError[] {
  const s = toDraft07Schema(schema) as object;
  oracle ??= makeOracle();
  const fn = oracle.compile(s);
  oracle.removeSchema(s);
  return (obj) => (fn(obj) ? [] : translateErrors(fn.errors ?? [], obj));
}
