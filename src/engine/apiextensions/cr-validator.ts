/**
 * Custom resource validation against a CRD version's `openAPIV3Schema`, with ajv doing the JSON-schema work and
 * the `x-kubernetes-*` vocabulary registered as keywords. ajv errors are translated into kube field errors worded
 * like kube-openapi's validator (`spec.replicas in body must be of type integer: "string"`).
 */
import AjvModule, { type ErrorObject } from 'ajv';
import { LRUCache } from 'lru-cache';
import { ownValue, setOwnValue } from '../machinery/own-properties.js';
import { fieldErrors, type FieldError } from '../machinery/status.js';
import { re2Pattern } from './schema-pattern.js';
import { jsonEqual } from '../machinery/canonical-json.js';
import { goQuote } from '../machinery/query-params.js';
import { stringFormatCheck } from './string-formats.js';
import { isPlainObject, type JSONSchemaProps } from './types.js';

export interface CompiledCRSchema {
  /** Validate a whole custom resource; never mutates `obj`. */
  validate(obj: unknown): FieldError[];
}

interface KubeErrorParams {
  kind: 'embeddedRequired' | 'intOrString' | 'duplicate' | 'duplicateMap' | 'format';
  field?: string;
  value?: unknown;
}

type DataCxt = { instancePath: string };

// ajv is CommonJS; under Node16 ESM interop the class is the module's `default`.
const Ajv = AjvModule.default;
type Ajv = InstanceType<typeof Ajv>;

function makeAjv(): Ajv {
  // validateSchema off: schemas reach here only after the CRD's own validation (crd-validation.ts, structural.ts), and
  // checking them against JSON Schema's meta-schema meant compiling that first: ~150 ms of every start-up.
  // Patterns are Go's (RE2, linear time), never JavaScript's backtracking RegExp: schema-pattern.ts.
  const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false, addUsedSchema: false, validateSchema: false, code: { regExp: re2Pattern } });
  const err = (dataCxt: DataCxt | undefined, keyword: string, params: KubeErrorParams, suffix = ''): ErrorObject => ({
    keyword,
    instancePath: (dataCxt?.instancePath ?? '') + suffix,
    schemaPath: '',
    params: params as unknown as Record<string, unknown>,
  });
  type KwFn = ((schema: unknown, data: unknown, parent?: unknown, dataCxt?: DataCxt) => boolean) & { errors?: ErrorObject[] };

  const intOrString: KwFn = (schema, data, parent, dataCxt) => {
    intOrString.errors = [];
    if (schema !== true) return true;
    if (data === null && (parent as Record<string, unknown> | undefined)?.['x-kcpt-nullable'] === true) return true;
    if (typeof data === 'string' || (typeof data === 'number' && Number.isInteger(data))) return true;
    intOrString.errors = [err(dataCxt, 'x-kubernetes-int-or-string', { kind: 'intOrString', value: data })];
    return false;
  };
  const embedded: KwFn = (schema, data, _p, dataCxt) => {
    embedded.errors = [];
    if (schema !== true || !isPlainObject(data)) return true;
    for (const f of ['apiVersion', 'kind']) {
      if (typeof data[f] !== 'string' || data[f] === '') {
        embedded.errors.push(err(dataCxt, 'x-kubernetes-embedded-resource', { kind: 'embeddedRequired', field: f }, `/${f}`));
      }
    }
    return embedded.errors.length === 0;
  };
  const listType: KwFn = (schema, data, parent, dataCxt) => {
    listType.errors = [];
    if (!Array.isArray(data)) return true;
    if (schema === 'set') {
      const seen = new Set<string>();
      data.forEach((item, i) => {
        const k = JSON.stringify(item);
        if (seen.has(k)) listType.errors!.push(err(dataCxt, 'x-kubernetes-list-type', { kind: 'duplicate', value: item }, `/${i}`));
        seen.add(k);
      });
    } else if (schema === 'map') {
      const keys = ((parent as JSONSchemaProps)['x-kubernetes-list-map-keys'] ?? []) as string[];
      const seen = new Set<string>();
      data.forEach((item, i) => {
        if (!isPlainObject(item)) return;
        const kv: Record<string, unknown> = {};
        for (const k of keys) if (Object.hasOwn(item, k)) setOwnValue(kv, k, item[k]);
        const sig = JSON.stringify(keys.map((k) => ownValue(item, k)));
        if (seen.has(sig)) listType.errors!.push(err(dataCxt, 'x-kubernetes-list-type', { kind: 'duplicateMap', value: kv }, `/${i}`));
        seen.add(sig);
      });
    }
    return listType.errors.length === 0;
  };
  const format: KwFn = (schema, data, _p, dataCxt) => {
    format.errors = [];
    if (typeof data !== 'string' || typeof schema !== 'string') return true;
    if (stringFormatCheck(schema)?.(data) !== false) return true;
    format.errors = [err(dataCxt, 'x-kcpt-format', { kind: 'format', field: schema, value: data })];
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

let sharedAjv: Ajv | undefined;
const cache = new WeakMap<object, CompiledCRSchema>();
/**
 * The same schema in many workspaces (a test suite installs its CRD in a workspace per test; a bound API repeats
 * in every consumer) arrives as a different object each time: compiled validators are also shared by the schema's
 * text, which costs a JSON.stringify instead of an ajv compilation (~15 ms for a small schema). Bounded by the
 * total length of the texts kept.
 */
const bySchemaText = new LRUCache<string, CompiledCRSchema>({ maxSize: 8 * 1024 * 1024, sizeCalculation: (_v, key) => Math.max(1, key.length) });

/** Turn an OpenAPI v3 (kube flavoured) schema into one ajv's draft-07 engine understands. */
function toAjvSchema(s: unknown): unknown {
  if (!isPlainObject(s)) return s;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) {
    switch (k) {
      case 'properties':
      case 'patternProperties':
      case 'definitions':
        out[k] = isPlainObject(v) ? Object.fromEntries(Object.entries(v).map(([pk, pv]) => [pk, toAjvSchema(pv)])) : v;
        break;
      case 'items':
      case 'additionalProperties':
      case 'not':
        out[k] = toAjvSchema(v);
        break;
      case 'allOf':
      case 'anyOf':
      case 'oneOf':
        out[k] = Array.isArray(v) ? v.map(toAjvSchema) : v;
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
        // Only the string formats kube checks (string-formats.ts); the others (int32, int64, …) are documentation.
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

export function compileCRSchema(openAPIV3Schema: JSONSchemaProps): CompiledCRSchema {
  const hit = cache.get(openAPIV3Schema);
  if (hit) return hit;
  const text = JSON.stringify(openAPIV3Schema);
  const same = bySchemaText.get(text);
  if (same) {
    cache.set(openAPIV3Schema, same);
    return same;
  }
  sharedAjv ??= makeAjv();
  const ajvSchema = toAjvSchema(openAPIV3Schema) as object;
  const fn = sharedAjv.compile(ajvSchema);
  // ajv keeps every compiled schema in its own cache; ours is the WeakMap, so drop ajv's entry (no leak as CRDs change).
  sharedAjv.removeSchema(ajvSchema);
  const compiled: CompiledCRSchema = {
    validate(obj: unknown): FieldError[] {
      // ajv never mutates data unless useDefaults/removeAdditional/coerceTypes are on; they are off.
      if (fn(obj)) return [];
      return translateErrors(fn.errors ?? [], obj);
    },
  };
  cache.set(openAPIV3Schema, compiled);
  bySchemaText.set(text, compiled);
  return compiled;
}

/**
 * kube's CRD validation ratcheting (on by default since 1.30): on an update, the schema is not applied to a subtree
 * the update left as it was, so an object stored before a stricter schema (or a stricter kcpt) can still be written
 * where it changes. Subtrees are matched through object fields only: an error under a list is dropped when the
 * whole list is unchanged (kube also matches map-list items by key), one on a value the new object lacks is kept.
 */
export function ratchetUnchanged(errors: FieldError[], obj: unknown, old: unknown): FieldError[] {
  if (old === undefined || errors.length === 0) return errors;
  return errors.filter((e) => {
    const bracket = e.field.indexOf('[');
    const matched = bracket < 0 ? e.field : e.field.slice(0, bracket);
    if (!matched) return true;
    const now = valueAt(obj, matched);
    return now === undefined || !jsonEqual(now, valueAt(old, matched));
  });
}

function valueAt(data: unknown, fieldPath: string): unknown {
  let cur = data;
  for (const seg of fieldPath.split('.')) {
    if (!isPlainObject(cur)) return undefined;
    cur = ownValue(cur, seg);
  }
  return cur;
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** `/spec/ports/0/name` → `spec.ports[0].name`, walking the data to tell array indices from keys. */
function toFieldPath(instancePath: string, data: unknown): { path: string; value: unknown } {
  if (!instancePath) return { path: '', value: data };
  const segs = instancePath.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  let path = '';
  let cur: unknown = data;
  for (const seg of segs) {
    if (Array.isArray(cur)) {
      path += `[${seg}]`;
      cur = cur[Number(seg)];
    } else {
      path = path ? `${path}.${seg}` : seg;
      cur = isPlainObject(cur) ? ownValue(cur, seg) : undefined;
    }
  }
  return { path, value: cur };
}

/** Go's %#v of a map[string]interface{} holding JSON scalars, as kube prints duplicate list-map keys. */
function goMapString(kv: Record<string, unknown>): string {
  const parts = Object.keys(kv)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${typeof kv[k] === 'string' ? JSON.stringify(kv[k]) : String(kv[k])}`);
  return `map[string]interface {}{${parts.join(', ')}}`;
}

function translateErrors(errors: ErrorObject[], data: unknown): FieldError[] {
  const out: FieldError[] = [];
  const seen = new Set<string>();
  const push = (e: FieldError): void => {
    const k = `${e.field}\0${e.detail}`;
    if (!seen.has(k)) {
      seen.add(k);
      out.push(e);
    }
  };
  for (const e of errors) {
    const { path, value } = toFieldPath(e.instancePath, data);
    const body = path ? `${path} in body` : 'in body';
    const p = e.params as Record<string, unknown>;
    switch (e.keyword) {
      case 'type': {
        const want = (Array.isArray(p.type) ? (p.type as string[]) : String(p.type).split(','))
          .filter((t) => t !== 'null')
          .join(',');
        const got = jsonType(value);
        push(fieldErrors.typeInvalid(path, got, `${body} must be of type ${want}: ${JSON.stringify(got)}`));
        break;
      }
      case 'required': {
        const missing = String(p.missingProperty);
        push(fieldErrors.required(path ? `${path}.${missing}` : missing));
        break;
      }
      case 'enum':
        push(fieldErrors.notSupported(path, value, ((p.allowedValues as unknown[]) ?? []).map((v) => (typeof v === 'string' ? v : JSON.stringify(v)))));
        break;
      case 'const':
        push(fieldErrors.notSupported(path, value, [typeof p.allowedValue === 'string' ? p.allowedValue : JSON.stringify(p.allowedValue)]));
        break;
      case 'minimum':
        push(fieldErrors.invalid(path, value, `${body} should be greater than or equal to ${p.limit}`));
        break;
      case 'maximum':
        push(fieldErrors.invalid(path, value, `${body} should be less than or equal to ${p.limit}`));
        break;
      case 'exclusiveMinimum':
        push(fieldErrors.invalid(path, value, `${body} should be greater than ${p.limit}`));
        break;
      case 'exclusiveMaximum':
        push(fieldErrors.invalid(path, value, `${body} should be less than ${p.limit}`));
        break;
      case 'multipleOf':
        push(fieldErrors.invalid(path, value, `${body} should be a multiple of ${p.multipleOf}`));
        break;
      case 'maxLength':
        push(fieldErrors.tooLong(path, Number(p.limit)));
        break;
      case 'minLength':
        push(fieldErrors.invalid(path, value, `${body} should be at least ${p.limit} chars long`));
        break;
      case 'pattern':
        push(fieldErrors.invalid(path, value, `${body} should match '${p.pattern}'`));
        break;
      case 'maxItems':
        push({
          type: 'FieldValueTooMany',
          field: path,
          detail: `Too many: ${Array.isArray(value) ? value.length : '?'}: must have at most ${p.limit} items`,
        });
        break;
      case 'minItems':
        push(fieldErrors.invalid(path, value, `${body} should have at least ${p.limit} items`));
        break;
      case 'maxProperties':
        push(fieldErrors.invalid(path, value, `${body} should have at most ${p.limit} properties`));
        break;
      case 'minProperties':
        push(fieldErrors.invalid(path, value, `${body} should have at least ${p.limit} properties`));
        break;
      case 'uniqueItems': {
        const j = Number(p.i);
        const { path: ip, value: iv } = toFieldPath(`${e.instancePath}/${j}`, data);
        push(fieldErrors.duplicate(ip, iv));
        break;
      }
      case 'oneOf':
        push(fieldErrors.invalid(path, value, `${body} must validate one and only one schema (oneOf)`));
        break;
      case 'anyOf':
        push(fieldErrors.invalid(path, value, `${body} must validate at least one schema (anyOf)`));
        break;
      case 'not':
        push(fieldErrors.invalid(path, value, `${body} must not validate the schema (not)`));
        break;
      case 'additionalProperties':
        push(fieldErrors.forbidden(path ? `${path}.${String(p.additionalProperty)}` : String(p.additionalProperty), 'field not declared in schema'));
        break;
      case 'x-kubernetes-int-or-string': {
        const got = jsonType(value);
        push(fieldErrors.typeInvalid(path, got, `${body} must be of type integer,string: ${JSON.stringify(got)}`));
        break;
      }
      case 'x-kubernetes-embedded-resource':
        push(fieldErrors.required(path, 'must not be empty'));
        break;
      case 'x-kcpt-format':
        // kube-openapi's errors.InvalidType with the schema's format as the type.
        push(fieldErrors.typeInvalid(path, value, `${body} must be of type ${String(p.field)}: ${goQuote(String(value))}`));
        break;
      case 'x-kubernetes-list-type': {
        const kp = p as unknown as KubeErrorParams;
        if (kp.kind === 'duplicateMap') {
          push({ type: 'FieldValueDuplicate', field: path, detail: `Duplicate value: ${goMapString(kp.value as Record<string, unknown>)}` });
        } else push(fieldErrors.duplicate(path, kp.value));
        break;
      }
      case 'if':
      case 'then':
      case 'else':
        break;
      default:
        push(fieldErrors.invalid(path, value, `${body} ${e.message ?? 'is invalid'}`));
    }
  }
  return out;
}
