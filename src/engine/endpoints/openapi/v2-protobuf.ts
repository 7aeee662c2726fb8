/**
 * The Swagger 2.0 document in gnostic's protobuf form (`openapi.v2.Document`), what kubectl and client-go ask
 * `/openapi/v2` for. Only the messages and fields our documents use are written down, with gnostic's field
 * numbers (github.com/google/gnostic-models, openapiv2/OpenAPIv2.proto). Values of free form (defaults, enums,
 * examples, vendor extensions) travel as gnostic's `Any`, whose `yaml` field holds the value; JSON is YAML.
 */
import type protobufjs from 'protobufjs';
import { buildSchema, type PackageDefs } from '../../machinery/protobuf/schema.js';
import type { SwaggerDocument } from './v2-document.js';

const openapiV2: PackageDefs = {
  pkg: 'openapi.v2',
  messages: {
    Document: {
      swagger: '1 string',
      info: '2 Info',
      paths: '8 Paths',
      definitions: '9 Definitions',
      security: '12 []SecurityRequirement',
      securityDefinitions: '13 SecurityDefinitions',
    },
    Info: { title: '1 string', version: '2 string' },
    Paths: { vendorExtension: '1 []NamedAny', path: '2 []NamedPathItem' },
    NamedPathItem: { name: '1 string', value: '2 PathItem' },
    PathItem: {
      get: '2 Operation',
      put: '3 Operation',
      post: '4 Operation',
      delete: '5 Operation',
      options: '6 Operation',
      head: '7 Operation',
      patch: '8 Operation',
      parameters: '9 []ParametersItem',
      vendorExtension: '10 []NamedAny',
    },
    Operation: {
      tags: '1 []string',
      summary: '2 string',
      description: '3 string',
      operationId: '5 string',
      produces: '6 []string',
      consumes: '7 []string',
      parameters: '8 []ParametersItem',
      responses: '9 Responses',
      schemes: '10 []string',
      deprecated: '11 bool',
      vendorExtension: '13 []NamedAny',
    },
    ParametersItem: { parameter: '1 Parameter' },
    Parameter: { bodyParameter: '1 BodyParameter', nonBodyParameter: '2 NonBodyParameter' },
    BodyParameter: { description: '1 string', name: '2 string', in: '3 string', required: '4 bool', schema: '5 Schema' },
    NonBodyParameter: { queryParameterSubSchema: '3 QueryParameterSubSchema', pathParameterSubSchema: '4 PathParameterSubSchema' },
    QueryParameterSubSchema: {
      required: '1 bool',
      in: '2 string',
      description: '3 string',
      name: '4 string',
      type: '6 string',
      uniqueItems: '20 bool',
    },
    PathParameterSubSchema: {
      required: '1 bool',
      in: '2 string',
      description: '3 string',
      name: '4 string',
      type: '5 string',
      uniqueItems: '19 bool',
    },
    Responses: { responseCode: '1 []NamedResponseValue' },
    NamedResponseValue: { name: '1 string', value: '2 ResponseValue' },
    ResponseValue: { response: '1 Response' },
    Response: { description: '1 string', schema: '2 SchemaItem' },
    SchemaItem: { schema: '1 Schema' },
    Schema: {
      ref: '1 string',
      format: '2 string',
      title: '3 string',
      description: '4 string',
      default: '5 Any',
      multipleOf: '6 double',
      maximum: '7 double',
      exclusiveMaximum: '8 bool',
      minimum: '9 double',
      exclusiveMinimum: '10 bool',
      maxLength: '11 int64',
      minLength: '12 int64',
      pattern: '13 string',
      maxItems: '14 int64',
      minItems: '15 int64',
      uniqueItems: '16 bool',
      maxProperties: '17 int64',
      minProperties: '18 int64',
      required: '19 []string',
      enum: '20 []Any',
      additionalProperties: '21 AdditionalPropertiesItem',
      type: '22 TypeItem',
      items: '23 ItemsItem',
      allOf: '24 []Schema',
      properties: '25 Properties',
      discriminator: '26 string',
      readOnly: '27 bool',
      example: '30 Any',
      vendorExtension: '31 []NamedAny',
    },
    AdditionalPropertiesItem: { schema: '1 Schema', boolean: '2 bool' },
    TypeItem: { value: '1 []string' },
    ItemsItem: { schema: '1 []Schema' },
    Properties: { additionalProperties: '1 []NamedSchema' },
    Definitions: { additionalProperties: '1 []NamedSchema' },
    NamedSchema: { name: '1 string', value: '2 Schema' },
    Any: { yaml: '2 string' },
    NamedAny: { name: '1 string', value: '2 Any' },
    SecurityDefinitions: { additionalProperties: '1 []NamedSecurityDefinitionsItem' },
    NamedSecurityDefinitionsItem: { name: '1 string', value: '2 SecurityDefinitionsItem' },
    SecurityDefinitionsItem: { apiKeySecurity: '2 ApiKeySecurity' },
    ApiKeySecurity: { type: '1 string', name: '2 string', in: '3 string', description: '4 string' },
    SecurityRequirement: { additionalProperties: '1 []NamedStringArray' },
    NamedStringArray: { name: '1 string', value: '2 StringArray' },
    StringArray: { value: '1 []string' },
  },
};

let documentType: protobufjs.Type | undefined;

/** The gnostic `openapi.v2.Document` message type (built on first use). */
export function gnosticDocumentType(): protobufjs.Type {
  return (documentType ??= buildSchema([openapiV2]).root.lookupType('openapi.v2.Document'));
}

/** The document's protobuf bytes. */
export function swaggerToProtobuf(doc: SwaggerDocument): Uint8Array {
  const type = gnosticDocumentType();
  const message = {
    swagger: doc.swagger,
    info: doc.info,
    paths: { path: Object.entries(doc.paths).map(([name, item]) => ({ name, value: pathItem(item) })) },
    definitions: { additionalProperties: named(doc.definitions, schema) },
    security: doc.security.map((requirement) => ({
      additionalProperties: Object.entries(requirement).map(([name, value]) => ({ name, value: { value } })),
    })),
    securityDefinitions: {
      additionalProperties: Object.entries(doc.securityDefinitions).map(([name, value]) => ({ name, value: { apiKeySecurity: value } })),
    },
  };
  return type.encode(type.fromObject(message)).finish();
}

type Json = Record<string, unknown>;

const anyValue = (value: unknown) => ({ yaml: `${JSON.stringify(value)}\n` });

function vendorExtensions(o: Json): Array<{ name: string; value: { yaml: string } }> {
  return Object.entries(o)
    .filter(([key]) => key.startsWith('x-'))
    .map(([name, value]) => ({ name, value: anyValue(value) }));
}

function named<T>(o: Record<string, T>, f: (v: T) => unknown): Array<{ name: string; value: unknown }> {
  return Object.entries(o).map(([name, value]) => ({ name, value: f(value) }));
}

function pathItem(item: Json): Json {
  const out: Json = { vendorExtension: vendorExtensions(item) };
  for (const verb of ['get', 'put', 'post', 'delete', 'options', 'head', 'patch']) {
    if (item[verb]) out[verb] = operation(item[verb] as Json);
  }
  if (Array.isArray(item.parameters)) out.parameters = (item.parameters as Json[]).map(parameter);
  return out;
}

function operation(op: Json): Json {
  return {
    tags: op.tags,
    description: op.description,
    operationId: op.operationId,
    produces: op.produces,
    consumes: op.consumes,
    parameters: ((op.parameters as Json[] | undefined) ?? []).map(parameter),
    responses: {
      responseCode: named(op.responses as Record<string, Json>, (r) => ({
        response: { description: r.description, ...(r.schema ? { schema: { schema: schema(r.schema as Json) } } : {}) },
      })),
    },
    schemes: op.schemes,
    vendorExtension: vendorExtensions(op),
  };
}

function parameter(p: Json): Json {
  if (p.in === 'body') {
    return { parameter: { bodyParameter: { description: p.description, name: p.name, in: p.in, required: p.required, schema: schema(p.schema as Json) } } };
  }
  const sub = { required: p.required, in: p.in, description: p.description, name: p.name, type: p.type, uniqueItems: p.uniqueItems };
  const which = p.in === 'path' ? 'pathParameterSubSchema' : 'queryParameterSubSchema';
  return { parameter: { nonBodyParameter: { [which]: sub } } };
}

const SCALAR_KEYWORDS = [
  'format', 'title', 'description', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum',
  'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'maxProperties', 'minProperties',
  'required', 'discriminator', 'readOnly',
];

function schema(s: Json): Json {
  const out: Json = {};
  if (typeof s.$ref === 'string') out.ref = s.$ref;
  for (const key of SCALAR_KEYWORDS) if (s[key] !== undefined) out[key] = s[key];
  if (s.default !== undefined) out.default = anyValue(s.default);
  if (s.example !== undefined) out.example = anyValue(s.example);
  if (Array.isArray(s.enum)) out.enum = s.enum.map(anyValue);
  if (s.type !== undefined) out.type = { value: Array.isArray(s.type) ? s.type : [s.type] };
  if (s.items !== undefined) out.items = { schema: (Array.isArray(s.items) ? s.items : [s.items]).map((i) => schema(i as Json)) };
  if (Array.isArray(s.allOf)) out.allOf = (s.allOf as Json[]).map(schema);
  if (s.properties !== undefined) out.properties = { additionalProperties: named(s.properties as Record<string, Json>, schema) };
  if (typeof s.additionalProperties === 'boolean') out.additionalProperties = { boolean: s.additionalProperties };
  else if (s.additionalProperties) out.additionalProperties = { schema: schema(s.additionalProperties as Json) };
  out.vendorExtension = vendorExtensions(s);
  return out;
}
