/**
 * Custom resource validation against a CRD version's `openAPIV3Schema`. The schema is WALKED against each object
 * (schema-walk.ts), as kube-apiserver's kube-openapi validator walks it: no code is generated per schema, so a
 * tenant's wide CRD costs one pass over its nodes, not the seconds of compilation (ajv, until 2026-11-29) that every
 * other tenant's requests waited behind (docs/security.md, work budgets).
 * The walker reports ajv-shaped errors (keyword, instancePath, params), translated here into kube field errors worded
 * like kube-openapi's validator (`spec.replicas in body must be of type integer: "string"`).
 */
import { ChangeDetector } from '../machinery/canonical-json.js';
import { fieldErrors, type FieldError } from '../machinery/status.js';
import { ownValue } from '../machinery/own-properties.js';
import { goQuote } from '../machinery/query-params.js';
import { ratchetSchemaErrors } from './ratcheting.js';
import { prepareSchema, type SchemaError } from './schema-walk.js';
import { isPlainObject, type JSONSchemaProps } from './types.js';

export interface CompiledCRSchema {
  /**
   * Validate a whole custom resource, ratcheting against `old` on an update (ratcheting.ts); never mutates `obj`.
   * `changes`: the request's unchanged-value comparisons (shared with its CEL rules, so one budget bounds both).
   */
  validate(obj: unknown, old?: unknown, changes?: ChangeDetector): FieldError[];
}

interface KubeErrorParams {
  kind: 'embeddedRequired' | 'intOrString' | 'duplicate' | 'duplicateMap' | 'format';
  field?: string;
  value?: unknown;
}

/** Prepared once per schema object (a CRD version's schema, or a default's sub-schema in structural.ts). */
const cache = new WeakMap<object, CompiledCRSchema>();

export function compileCRSchema(openAPIV3Schema: JSONSchemaProps): CompiledCRSchema {
  const hit = cache.get(openAPIV3Schema);
  if (hit) return hit;
  const prepared = prepareSchema(openAPIV3Schema);
  const compiled: CompiledCRSchema = {
    validate(obj: unknown, old?: unknown, changes = new ChangeDetector()): FieldError[] {
      let errors = prepared.validate(obj);
      if (old !== undefined) errors = ratchetSchemaErrors(errors, obj, old, openAPIV3Schema, () => prepared.validate(old), changes);
      return errors.length === 0 ? [] : translateErrors(errors, obj);
    },
  };
  cache.set(openAPIV3Schema, compiled);
  return compiled;
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

export function translateErrors(errors: SchemaError[], data: unknown): FieldError[] {
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
      default:
        push(fieldErrors.invalid(path, value, `${body} ${e.message ?? 'is invalid'}`));
    }
  }
  return out;
}
