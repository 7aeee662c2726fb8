/**
 * `/openapi/v2`: the Swagger 2.0 document of a logical cluster, derived from the same per-group-version OpenAPI v3
 * documents `/openapi/v3` serves (built-ins, CRDs, bound resources), so the two never disagree.
 *
 * Who reads it: the npm `kubernetes-client` builds its whole API from it, Helm and Terraform's
 * `kubernetes_manifest` take their types from it, and kubectl validates on the client side with it (before 1.27
 * always, later for `kind: List` files).
 *
 * The conversion is kube's: paths keep their operations, with the v3 request body as a `body` parameter, media
 * types as `consumes`/`produces`, responses with a schema; component schemas become `definitions`, with what
 * Swagger 2.0 has no words for dropped the way kube publishes CRD schemas in v2 (`nullable` and
 * `x-kubernetes-preserve-unknown-fields` leave the value untyped, `oneOf`/`anyOf`/`not` go, an array without
 * items loses its type).
 */
import type { OpenAPIDocument } from './document.js';
import type { Schema } from '../../machinery/openapi-schemas/index.js';

export interface SwaggerDocument {
  swagger: '2.0';
  info: { title: string; version: string };
  paths: Record<string, Record<string, unknown>>;
  definitions: Record<string, Schema>;
  securityDefinitions: Record<string, unknown>;
  security: Array<Record<string, string[]>>;
}

const V3_REF = '#/components/schemas/';
const V2_REF = '#/definitions/';
const OPERATIONS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;

/** One Swagger 2.0 document from a cluster's v3 group-version documents. */
export function buildSwaggerDocument(docs: Iterable<OpenAPIDocument>, kubeVersion: string): SwaggerDocument {
  const paths: Record<string, Record<string, unknown>> = {};
  const definitions: Record<string, Schema> = {};
  for (const doc of docs) {
    for (const [path, item] of Object.entries(doc.paths)) paths[path] = pathItem(item);
    for (const [name, schema] of Object.entries(doc.components.schemas)) {
      // Kube publishes custom resources (kcp's own kinds are CRDs in kcp) in v2 without value validations:
      // kubectl then checks only types and field names, and leaves required fields to server-side defaulting.
      definitions[name] ??= convertSchema(schema, !name.startsWith('io.k8s.'));
    }
  }
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: kubeVersion },
    paths: sortedKeys(paths),
    definitions: sortedKeys(definitions),
    securityDefinitions: {
      BearerToken: { description: 'Bearer Token authentication', in: 'header', name: 'authorization', type: 'apiKey' },
    },
    security: [{ BearerToken: [] }],
  };
}

interface V3Parameter {
  name: string;
  in: string;
  description?: string;
  required?: boolean;
  schema?: { type?: string; uniqueItems?: boolean };
}

interface V3Operation {
  parameters?: V3Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }>; required?: boolean };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: Schema }> }>;
  [key: string]: unknown;
}

function pathItem(item: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(item)) {
    if (key === 'parameters') out.parameters = (value as V3Parameter[]).map(parameter);
    else if ((OPERATIONS as readonly string[]).includes(key)) out[key] = operation(value as V3Operation);
    else out[key] = value;
  }
  return sortedKeys(out);
}

function parameter(p: V3Parameter): Record<string, unknown> {
  return {
    description: p.description,
    in: p.in,
    name: p.name,
    ...(p.required ? { required: true } : {}),
    type: p.schema?.type ?? 'string',
    uniqueItems: true,
  };
}

function operation(op: V3Operation): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const produces = new Set<string>();
  for (const response of Object.values(op.responses ?? {})) for (const type of Object.keys(response.content ?? {})) produces.add(type);
  const parameters = (op.parameters ?? []).map(parameter);
  if (op.requestBody) {
    const content = op.requestBody.content ?? {};
    const schema = Object.values(content)[0]?.schema;
    out.consumes = Object.keys(content).some((t) => t.includes('patch')) ? Object.keys(content).sort() : ['*/*'];
    parameters.unshift({ in: 'body', name: 'body', required: true, schema: schema ? convertSchema(schema) : {} });
  }
  for (const [key, value] of Object.entries(op)) {
    if (key === 'parameters' || key === 'requestBody' || key === 'responses') continue;
    out[key] = value;
  }
  if (parameters.length > 0) out.parameters = parameters;
  out.produces = [...produces].sort();
  out.responses = responses(op.responses ?? {});
  out.schemes = ['https'];
  return sortedKeys(out);
}

function responses(v3: NonNullable<V3Operation['responses']>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [code, response] of Object.entries(v3)) {
    const schema = Object.values(response.content ?? {})[0]?.schema;
    out[code] = { description: response.description ?? '', ...(schema ? { schema: convertSchema(schema) } : {}) };
  }
  return out;
}

/** The schema keywords Swagger 2.0 knows (vendor extensions `x-*` are kept as well). */
const V2_KEYWORDS = new Set([
  '$ref', 'format', 'title', 'description', 'default', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum',
  'exclusiveMinimum', 'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'maxProperties',
  'minProperties', 'required', 'enum', 'additionalProperties', 'type', 'items', 'allOf', 'properties',
  'discriminator', 'readOnly', 'xml', 'externalDocs', 'example',
]);

/** The value validations kube strips from a custom resource's schema in v2 (structural schema's ValueValidation). */
const VALUE_VALIDATIONS = [
  'format', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength', 'minLength', 'pattern',
  'maxItems', 'minItems', 'uniqueItems', 'multipleOf', 'enum', 'maxProperties', 'minProperties', 'required',
];

/** A v3 schema in v2's words (see the module comment); `stripValues`: a custom resource's, without value validations. */
export function convertSchema(v3: Schema, stripValues = false): Schema {
  const s: Record<string, unknown> = { ...(v3 as Record<string, unknown>) };
  if (stripValues) for (const key of VALUE_VALIDATIONS) delete s[key];
  const convert = (child: Schema) => convertSchema(child, stripValues);
  // `allOf: [{$ref}]` is how v3 documents give a reference a description of its own; v2 puts them side by side.
  const allOf = s.allOf as Schema[] | undefined;
  if (allOf) {
    delete s.allOf;
    const only = allOf.length === 1 ? (allOf[0] as Record<string, unknown>) : undefined;
    if (only && typeof only.$ref === 'string' && s.$ref === undefined) s.$ref = only.$ref;
  }
  if (s.nullable === true || s['x-kubernetes-preserve-unknown-fields'] === true) {
    if (s.nullable === true) delete s.type;
    delete s.items;
    delete s.properties;
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(s)) {
    if (!V2_KEYWORDS.has(key) && !key.startsWith('x-')) continue;
    if (key === '$ref' && typeof value === 'string') out.$ref = value.startsWith(V3_REF) ? V2_REF + value.slice(V3_REF.length) : value;
    else if (key === 'properties') out.properties = mapValues(value as Record<string, Schema>, convert);
    else if (key === 'items' && value && typeof value === 'object' && !Array.isArray(value)) out.items = convert(value as Schema);
    else if (key === 'additionalProperties' && value && typeof value === 'object') out.additionalProperties = convert(value as Schema);
    else out[key] = value;
  }
  if (out.type === 'array' && out.items === undefined) delete out.type;
  // A nullable property may be absent or null: not required in v2's terms.
  const properties = (v3 as { properties?: Record<string, { nullable?: boolean }> }).properties;
  if (Array.isArray(out.required) && properties) {
    out.required = (out.required as string[]).filter((name) => properties[name]?.nullable !== true);
    if ((out.required as string[]).length === 0) delete out.required;
  }
  return out as Schema;
}

function mapValues<T, U>(o: Record<string, T>, f: (v: T) => U): Record<string, U> {
  const out: Record<string, U> = {};
  for (const [k, v] of Object.entries(o)) out[k] = f(v);
  return out;
}

function sortedKeys<T>(o: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const k of Object.keys(o).sort()) out[k] = o[k] as T;
  return out;
}
