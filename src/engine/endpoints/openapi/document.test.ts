import { describe, expect, it } from 'vitest';

import { buildGroupVersionDocument, buildOpenAPIDocuments, type OpenAPIDocument } from './document.js';
import { builtinSchemas } from '../../builtin/index.js';
import { findSchemaNameByGVK, referencedNames, type GVK, type Schema } from '../../machinery/openapi-schemas/index.js';
import { cronTabSchema, fakeResources } from './test-fixtures.js';

type Op = {
  operationId: string;
  parameters?: Array<{ name: string; in: string }>;
  requestBody?: { content: Record<string, { schema: { $ref: string } }> };
  responses: Record<string, { content?: Record<string, { schema: { $ref: string } }> }>;
  'x-kubernetes-group-version-kind': GVK;
  'x-kubernetes-action': string;
};

const core = () => buildGroupVersionDocument({ group: '', version: 'v1' }, fakeResources);
const op = (doc: OpenAPIDocument, path: string, verb: string) => doc.paths[path]?.[verb] as Op | undefined;

/** Resolve `{$ref}` / `{allOf:[{$ref}]}` the way kubectl explain does. */
function deref(doc: OpenAPIDocument, s: Schema): Schema {
  const allOf = s.allOf as Schema[] | undefined;
  const ref = (s.$ref ?? allOf?.[0]?.$ref) as string | undefined;
  if (!ref) return s;
  const target = doc.components.schemas[ref.replace('#/components/schemas/', '')];
  if (!target) throw new Error(`dangling ref ${ref}`);
  return deref(doc, target);
}

/** explain-style lookup: kind schema by GVK list, then walk dotted fields through properties/items. */
function explain(doc: OpenAPIDocument, gvk: GVK, fieldPath: string): Schema {
  const name = findSchemaNameByGVK(doc.components.schemas, gvk);
  if (!name) throw new Error(`no schema for ${gvk.kind}`);
  let s = doc.components.schemas[name] as Schema;
  for (const part of fieldPath.split('.').filter(Boolean)) {
    s = deref(doc, s);
    if (s.type === 'array') s = deref(doc, s.items as Schema);
    const next = (s.properties as Record<string, Schema> | undefined)?.[part];
    if (!next) throw new Error(`no field ${part}`);
    s = next;
  }
  return s;
}

describe('buildGroupVersionDocument', () => {
  it('gives the ConfigMap PATCH operation its GVK and the fieldValidation parameter kubectl checks for', () => {
    const doc = core();
    expect(doc.openapi).toBe('3.0.0');
    const patch = op(doc, '/api/v1/namespaces/{namespace}/configmaps/{name}', 'patch');
    expect(patch?.['x-kubernetes-group-version-kind']).toEqual({ group: '', version: 'v1', kind: 'ConfigMap' });
    expect(patch?.['x-kubernetes-action']).toBe('patch');
    expect(patch?.operationId).toBe('patchCoreV1NamespacedConfigMap');
    const names = patch?.parameters?.filter((p) => p.in === 'query').map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(['fieldValidation', 'fieldManager', 'dryRun', 'force']));
    expect(Object.keys(patch?.requestBody?.content ?? {}).sort()).toEqual([
      'application/apply-patch+yaml',
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/strategic-merge-patch+json',
    ]);
  });

  it('serves collection, item and cluster-wide list paths with kube actions and operation ids', () => {
    const doc = core();
    const coll = '/api/v1/namespaces/{namespace}/configmaps';
    expect(op(doc, coll, 'get')?.['x-kubernetes-action']).toBe('list');
    expect(op(doc, coll, 'post')?.operationId).toBe('createCoreV1NamespacedConfigMap');
    expect(op(doc, coll, 'delete')?.['x-kubernetes-action']).toBe('deletecollection');
    expect(op(doc, `${coll}/{name}`, 'get')?.operationId).toBe('readCoreV1NamespacedConfigMap');
    expect(op(doc, `${coll}/{name}`, 'put')?.['x-kubernetes-action']).toBe('put');
    expect(op(doc, `${coll}/{name}`, 'delete')?.['x-kubernetes-action']).toBe('delete');
    const all = op(doc, '/api/v1/configmaps', 'get');
    expect(all?.operationId).toBe('listCoreV1ConfigMapForAllNamespaces');
    expect(all?.responses['200']?.content?.['application/json']?.schema.$ref).toBe(
      '#/components/schemas/io.k8s.api.core.v1.ConfigMapList',
    );
    const list = op(doc, coll, 'get')?.parameters?.map((p) => p.name) ?? [];
    for (const p of ['labelSelector', 'fieldSelector', 'limit', 'continue', 'resourceVersion', 'watch']) {
      expect(list).toContain(p);
    }
    const post = op(doc, coll, 'post');
    expect(post?.parameters?.map((p) => p.name)).toContain('fieldValidation');
    expect(Object.keys(post?.requestBody?.content ?? {})).toContain('application/vnd.kubernetes.protobuf');
  });

  it('lays out cluster-scoped kinds without a namespace and publishes status and finalize', () => {
    const doc = core();
    expect(doc.paths['/api/v1/namespaces/{name}']).toBeDefined();
    expect(op(doc, '/api/v1/namespaces/{name}/status', 'patch')?.operationId).toBe('patchCoreV1NamespaceStatus');
    expect(op(doc, '/api/v1/namespaces/{name}/finalize', 'put')?.operationId).toBe('replaceCoreV1NamespaceFinalize');
    // Namespace has no deletecollection verb in the fixture, so the collection has no DELETE.
    expect(op(doc, '/api/v1/namespaces', 'delete')).toBeUndefined();
    // Resources of other group-versions stay out.
    expect(Object.keys(doc.paths).every((p) => p.startsWith('/api/v1/'))).toBe(true);
  });

  it('gives create-only review kinds just a POST on the collection', () => {
    const doc = buildGroupVersionDocument({ group: 'authorization.k8s.io', version: 'v1' }, fakeResources);
    expect(Object.keys(doc.paths)).toEqual(['/apis/authorization.k8s.io/v1/selfsubjectaccessreviews']);
    const item = doc.paths['/apis/authorization.k8s.io/v1/selfsubjectaccessreviews'] as Record<string, unknown>;
    expect(Object.keys(item).sort()).toEqual(['parameters', 'post']);
    expect((item.post as Op).operationId).toBe('createAuthorizationV1SelfSubjectAccessReview');
    const ssar = { group: 'authorization.k8s.io', version: 'v1', kind: 'SelfSubjectAccessReview' };
    expect(explain(doc, ssar, 'spec.resourceAttributes.verb').type).toBe('string');
  });

  it('resolves explain-style: ConfigMap by its GVK list, .data is map[string]string', () => {
    const doc = core();
    const gvk = { group: '', version: 'v1', kind: 'ConfigMap' };
    const data = explain(doc, gvk, 'data');
    expect(data.type).toBe('object');
    expect((data.additionalProperties as Schema).type).toBe('string');
    expect(explain(doc, gvk, 'metadata.labels').type).toBe('object');
    expect(explain(doc, gvk, 'metadata.ownerReferences.uid').type).toBe('string');
    const binary = explain(doc, gvk, 'binaryData').additionalProperties as Schema;
    expect(binary.format).toBe('byte');
  });

  it('includes every referenced schema and nothing dangling', () => {
    for (const [key, json] of buildOpenAPIDocuments(fakeResources, {
      ...builtinSchemas,
      'com.example.stable.v1.CronTab': cronTabSchema,
    })) {
      const doc = JSON.parse(json) as OpenAPIDocument;
      for (const name of referencedNames(doc)) {
        expect(doc.components.schemas, `${key} → ${name}`).toHaveProperty([name]);
      }
      const ids = Object.values(doc.paths).flatMap((item) =>
        Object.values(item).filter((v): v is Op => !Array.isArray(v)).map((o) => o.operationId),
      );
      expect(new Set(ids).size, key).toBe(ids.length);
    }
  });

  it('uses caller-supplied CRD schemas, synthesizes their list, and never offers strategic merge for them', () => {
    const schemas = { ...builtinSchemas, 'com.example.stable.v1.CronTab': cronTabSchema };
    const doc = buildGroupVersionDocument({ group: 'stable.example.com', version: 'v1' }, fakeResources, schemas);
    const item = '/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}';
    const patch = op(doc, item, 'patch');
    expect(patch?.operationId).toBe('patchStableExampleComV1NamespacedCronTab');
    expect(Object.keys(patch?.requestBody?.content ?? {})).not.toContain('application/strategic-merge-patch+json');
    expect(Object.keys(op(doc, item, 'put')?.requestBody?.content ?? {})).not.toContain(
      'application/vnd.kubernetes.protobuf',
    );
    expect(explain(doc, { group: 'stable.example.com', version: 'v1', kind: 'CronTab' }, 'spec.cronSpec').type).toBe(
      'string',
    );
    expect(doc.components.schemas['com.example.stable.v1.CronTabList']).toBeDefined();
    const scale = op(doc, `${item}/scale`, 'get');
    expect(scale?.['x-kubernetes-group-version-kind']).toEqual({ group: 'autoscaling', version: 'v1', kind: 'Scale' });
    expect(doc.components.schemas['io.k8s.api.autoscaling.v1.Scale']).toBeDefined();
  });

  it('still publishes a PATCH operation for a kind with no schema anywhere', () => {
    const doc = buildGroupVersionDocument({ group: 'stable.example.com', version: 'v1' }, fakeResources);
    const gvk = { group: 'stable.example.com', version: 'v1', kind: 'CronTab' };
    const name = findSchemaNameByGVK(doc.components.schemas, gvk);
    expect(name).toBe('com.example.stable.v1.CronTab');
    expect(doc.components.schemas[name as string]?.['x-kubernetes-preserve-unknown-fields']).toBe(true);
    expect(op(doc, '/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}', 'patch')).toBeDefined();
  });

  it('honours strategicMerge: false for built-in-named kinds served as CRDs (LogicalCluster)', () => {
    const doc = buildGroupVersionDocument({ group: 'core.kcp.io', version: 'v1alpha1' }, fakeResources);
    const patch = op(doc, '/apis/core.kcp.io/v1alpha1/logicalclusters/{name}', 'patch');
    expect(Object.keys(patch?.requestBody?.content ?? {})).not.toContain('application/strategic-merge-patch+json');
    expect(explain(doc, { group: 'core.kcp.io', version: 'v1alpha1', kind: 'LogicalCluster' }, 'status.URL').type).toBe(
      'string',
    );
  });

  it('is deterministic, so document hashes only change with content', () => {
    const a = buildOpenAPIDocuments(fakeResources);
    const b = buildOpenAPIDocuments([...fakeResources].reverse());
    expect([...a.keys()]).toEqual([...b.keys()]);
    for (const [k, v] of a) expect(b.get(k)).toBe(v);
  });
});

describe('builtinSchemas', () => {
  it('has no dangling references', () => {
    for (const name of referencedNames(builtinSchemas)) expect(builtinSchemas, name).toHaveProperty([name]);
  });

  it('tags every kind with a GVK list and carries upstream patch markers', () => {
    const kinds = Object.entries(builtinSchemas).filter(([, s]) => s['x-kubernetes-group-version-kind']);
    expect(kinds.length).toBeGreaterThan(35);
    for (const [name, s] of kinds) expect(Array.isArray(s['x-kubernetes-group-version-kind']), name).toBe(true);
    const props = (name: string) => builtinSchemas[name]?.properties as Record<string, Schema>;
    const meta = props('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    expect(meta.ownerReferences?.['x-kubernetes-patch-merge-key']).toBe('uid');
    expect(meta.finalizers?.['x-kubernetes-patch-strategy']).toBe('merge');
    expect(meta.finalizers?.['x-kubernetes-list-type']).toBe('set');
    const sa = props('io.k8s.api.core.v1.ServiceAccount');
    expect(sa.secrets?.['x-kubernetes-patch-merge-key']).toBe('name');
    const secret = props('io.k8s.api.core.v1.Secret');
    expect((secret.data?.additionalProperties as Schema).format).toBe('byte');
  });
});
