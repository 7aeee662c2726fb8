import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { negotiateOpenApiV2 } from '../openapi-service.js';
import type { OpenAPIDocument } from './document.js';
import { buildOpenAPIDocuments } from './index.js';
import { builtinSchemas } from '../../builtin/index.js';
import { cronTabSchema, fakeResources } from './test-fixtures.js';
import { buildSwaggerDocument, convertSchema, type SwaggerDocument } from './v2-document.js';
import { gnosticDocumentType, swaggerToProtobuf } from './v2-protobuf.js';

function swagger(): SwaggerDocument {
  const schemas = { ...builtinSchemas, 'com.example.stable.v1.CronTab': cronTabSchema };
  const docs = [...buildOpenAPIDocuments(fakeResources, schemas).values()].map((t) => JSON.parse(t) as OpenAPIDocument);
  return buildSwaggerDocument(docs, 'v1.32.4+kcpt');
}

describe('the Swagger 2.0 document', () => {
  it('is valid Swagger 2.0 (swagger-parser: schema and semantics, every $ref resolved)', async () => {
    await expect(SwaggerParser.validate(structuredClone(swagger()) as never)).resolves.toBeTruthy();
  });

  it('has every served operation, with kube’s extensions, a body parameter and media types', () => {
    const doc = swagger();
    const item = doc.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'] as Record<string, any>;
    expect(item.patch['x-kubernetes-group-version-kind']).toEqual({ group: '', version: 'v1', kind: 'ConfigMap' });
    expect(item.patch['x-kubernetes-action']).toBe('patch');
    expect(item.patch.operationId).toBe('patchCoreV1NamespacedConfigMap');
    expect(item.patch.consumes).toContain('application/strategic-merge-patch+json');
    expect(item.patch.parameters.map((p: any) => p.name)).toEqual(expect.arrayContaining(['body', 'fieldValidation', 'fieldManager', 'dryRun', 'force']));
    expect(item.put.parameters[0]).toEqual({ in: 'body', name: 'body', required: true, schema: { $ref: '#/definitions/io.k8s.api.core.v1.ConfigMap' } });
    expect(item.get.responses['200'].schema).toEqual({ $ref: '#/definitions/io.k8s.api.core.v1.ConfigMap' });
    expect(item.get.schemes).toEqual(['https']);
    expect(item.parameters.find((p: any) => p.name === 'namespace')).toMatchObject({ in: 'path', required: true, type: 'string' });
    expect(doc.paths['/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}/scale']).toBeDefined();
    expect(doc.definitions['io.k8s.api.core.v1.ConfigMap']!['x-kubernetes-group-version-kind']).toEqual([{ group: '', version: 'v1', kind: 'ConfigMap' }]);
    expect((doc.definitions['com.example.stable.v1.CronTab'] as any).properties.metadata).toEqual({ $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' });
    expect(doc.securityDefinitions).toEqual({ BearerToken: { description: 'Bearer Token authentication', in: 'header', name: 'authorization', type: 'apiKey' } });
    expect(JSON.stringify(doc)).not.toContain('#/components/');
  });
});

describe('convertSchema', () => {
  it('drops what v2 cannot say as kube does for CRDs', () => {
    expect(
      convertSchema({
        type: 'object',
        required: ['a', 'b'],
        properties: {
          a: { type: 'string', nullable: true },
          b: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { c: { type: 'string' } } },
          d: { type: 'array', 'x-kubernetes-preserve-unknown-fields': true, items: { type: 'string' } },
          e: { oneOf: [{ required: ['x'] }], anyOf: [], not: {}, type: 'string', 'x-kubernetes-int-or-string': true },
        },
      }),
    ).toEqual({
      type: 'object',
      required: ['b'],
      properties: {
        a: {},
        b: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        d: { 'x-kubernetes-preserve-unknown-fields': true },
        e: { type: 'string', 'x-kubernetes-int-or-string': true },
      },
    });
  });

  it('strips value validations from custom resources only, as kube publishes them in v2', () => {
    const schema = { type: 'object', required: ['spec'], properties: { spec: { type: 'string', enum: ['a'], pattern: 'a', format: 'x' } } };
    expect(convertSchema(schema, true)).toEqual({ type: 'object', properties: { spec: { type: 'string' } } });
    expect(convertSchema(schema)).toEqual(schema);
  });
});

describe('the protobuf form', () => {
  it('decodes as gnostic’s openapi.v2.Document with the same paths, definitions and extensions', () => {
    const doc = swagger();
    const decoded = gnosticDocumentType().decode(swaggerToProtobuf(doc)).toJSON() as any;
    expect(decoded.swagger).toBe('2.0');
    expect(decoded.info).toEqual({ title: 'Kubernetes', version: 'v1.32.4+kcpt' });
    expect(decoded.paths.path.map((p: any) => p.name)).toEqual(Object.keys(doc.paths));
    expect(decoded.definitions.additionalProperties.map((d: any) => d.name)).toEqual(Object.keys(doc.definitions));
    const patch = decoded.paths.path.find((p: any) => p.name === '/api/v1/namespaces/{namespace}/configmaps/{name}').value.patch;
    const gvk = patch.vendorExtension.find((e: any) => e.name === 'x-kubernetes-group-version-kind');
    expect(JSON.parse(gvk.value.yaml)).toEqual({ group: '', version: 'v1', kind: 'ConfigMap' });
    expect(patch.parameters[0].parameter.bodyParameter).toMatchObject({ name: 'body', in: 'body', required: true, schema: { ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch' } });
    const cm = decoded.definitions.additionalProperties.find((d: any) => d.name === 'io.k8s.api.core.v1.ConfigMap').value;
    expect(cm.type).toEqual({ value: ['object'] });
    expect(cm.properties.additionalProperties.map((p: any) => p.name)).toContain('data');
    expect(decoded.securityDefinitions.additionalProperties[0]).toEqual({
      name: 'BearerToken',
      value: { apiKeySecurity: { type: 'apiKey', name: 'authorization', in: 'header', description: 'Bearer Token authentication' } },
    });
  });
});

describe('negotiateOpenApiV2 (kube-openapi)', () => {
  it.each([
    [undefined, 'json'],
    ['*/*', 'json'],
    ['application/json', 'json'],
    ['application/com.github.proto-openapi.spec.v2@v1.0+protobuf', 'protobuf'],
    ['application/com.github.proto-openapi.spec.v2.v1.0+protobuf', 'protobuf'],
    ['application/json;q=0.5, application/com.github.proto-openapi.spec.v2@v1.0+protobuf', 'protobuf'],
    ['*/*, application/com.github.proto-openapi.spec.v2@v1.0+protobuf', 'protobuf'],
    ['text/html', undefined],
    ['application/yaml', undefined],
  ])('%s → %s', (accept, form) => {
    expect(negotiateOpenApiV2(accept)).toBe(form);
  });
});
