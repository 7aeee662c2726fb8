/**
 * Builds the OpenAPI 3.0 document of one group-version (`GET /openapi/v3/api/v1`, `/openapi/v3/apis/<g>/<v>`).
 *
 * kubectl needs three things from it (kubectl-compat §4): a PATCH operation per kind carrying
 * `x-kubernetes-group-version-kind` and a `fieldValidation` parameter (else create/apply/replace/edit fail),
 * component schemas tagged with GVK lists (explain, client-side apply), and, only where the schema's patch
 * markers are right, `application/strategic-merge-patch+json` on PATCH (else kubectl uses its compiled-in types).
 */
import type { ResourceType } from '../../registry/types.js';
import {
  defaultSchemaName,
  groupVersionKey,
  groupVersionPrefix,
  operationPrefix,
  operationTag,
  type GroupVersion,
} from './names.js';
import {
  deleteCollectionParams,
  deleteParams,
  listParams,
  nameParam,
  namespaceParam,
  patchParams,
  pretty,
  writeParams,
  type Parameter,
} from './parameters.js';
import { builtinSchemas, referencedNames, refTo, schemaClosure } from './schemas/index.js';
import { kindSchema, listSchema, type GVK, type Schema } from './schemas/helpers.js';

/** What the builder reads from a ResourceType, plus per-resource publishing choices. */
export type OpenAPIResource = Pick<
  ResourceType,
  | 'group'
  | 'version'
  | 'resource'
  | 'kind'
  | 'listKind'
  | 'namespaced'
  | 'verbs'
  | 'subresources'
  | 'openapiSchemaName'
> & {
  /**
   * Advertise strategic merge patch. Only safe when the kind's schema has kube's patch markers; custom
   * resources must not (the server refuses it for them). Default: true iff the kind's schema is a built-in
   * `io.k8s.*` schema from {@link builtinSchemas}.
   */
  strategicMerge?: boolean;
};

export interface DocumentOptions {
  /** `info.version`; kube puts its own version there. */
  kubeVersion?: string;
}

export interface OpenAPIDocument {
  openapi: '3.0.0';
  info: { title: string; version: string };
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, Schema>; securitySchemes: Record<string, unknown> };
  security: Array<Record<string, string[]>>;
}

const SCALE_SCHEMA = 'io.k8s.api.autoscaling.v1.Scale';
const SCALE_GVK: GVK = { group: 'autoscaling', version: 'v1', kind: 'Scale' };
const STATUS_SCHEMA = 'io.k8s.apimachinery.pkg.apis.meta.v1.Status';
const DELETE_OPTIONS = 'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions';
const PATCH_SCHEMA = 'io.k8s.apimachinery.pkg.apis.meta.v1.Patch';

const gvkKey = (g: GVK) => `${g.group}/${g.version}/${g.kind}`;

/**
 * Build the document for `gv` from the resources served in it (others in `resources` are ignored, so the caller
 * may pass its whole catalog). `schemas` is the full component map to draw from: {@link builtinSchemas} merged
 * with any CRD schemas, which ResourceTypes name through `openapiSchemaName`. Kinds with no schema at all get a
 * permissive placeholder so every served resource still has its PATCH operation.
 */
export function buildGroupVersionDocument(
  gv: GroupVersion,
  resources: readonly OpenAPIResource[],
  schemas: Record<string, Schema> = builtinSchemas,
  options: DocumentOptions = {},
): OpenAPIDocument {
  const ctx = new DocContext(schemas);
  const paths: Record<string, Record<string, unknown>> = {};
  const served = resources
    .filter((r) => r.group === gv.group && r.version === gv.version)
    .sort((a, b) => a.resource.localeCompare(b.resource));
  for (const rt of served) addResourcePaths(paths, gv, rt, ctx);

  const sortedPaths: Record<string, Record<string, unknown>> = {};
  for (const p of Object.keys(paths).sort()) sortedPaths[p] = paths[p] as Record<string, unknown>;
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: options.kubeVersion ?? 'v1.32.4' },
    paths: sortedPaths,
    components: {
      schemas: schemaClosure(referencedNames(sortedPaths), ctx.merged),
      securitySchemes: {
        BearerToken: {
          description: 'Bearer token authentication',
          in: 'header',
          name: 'authorization',
          type: 'apiKey',
        },
      },
    },
    security: [{ BearerToken: [] }],
  };
}

/**
 * Documents for every group-version the resources span, serialized, keyed like the /openapi/v3 index
 * (`api/v1`, `apis/<g>/<v>`). Feed the result to buildOpenAPIIndex and serve the strings as they are: the index
 * hash is computed over exactly these bytes.
 */
export function buildOpenAPIDocuments(
  resources: readonly OpenAPIResource[],
  schemas: Record<string, Schema> = builtinSchemas,
  options: DocumentOptions = {},
): Map<string, string> {
  const gvs = new Map<string, GroupVersion>();
  for (const r of resources) gvs.set(groupVersionKey(r), { group: r.group, version: r.version });
  const out = new Map<string, string>();
  for (const key of [...gvs.keys()].sort()) {
    const doc = buildGroupVersionDocument(gvs.get(key) as GroupVersion, resources, schemas, options);
    out.set(key, JSON.stringify(doc));
  }
  return out;
}

/** Schema lookups for one document build: GVK index over the caller's schemas plus synthesized placeholders. */
class DocContext {
  readonly merged: Record<string, Schema>;
  private readonly byGVK = new Map<string, string>();

  constructor(schemas: Record<string, Schema>) {
    this.merged = { ...schemas };
    for (const [name, schema] of Object.entries(schemas)) {
      const tag = schema['x-kubernetes-group-version-kind'];
      if (!Array.isArray(tag)) continue;
      for (const g of tag as GVK[]) if (!this.byGVK.has(gvkKey(g))) this.byGVK.set(gvkKey(g), name);
    }
  }

  /** Schema name for a kind: the explicit name if it exists, else by GVK tag, else a placeholder. */
  kindSchemaName(gvk: GVK, explicit?: string): string {
    if (explicit && this.merged[explicit]) return explicit;
    const found = this.byGVK.get(gvkKey(gvk));
    if (found) return found;
    const name = explicit ?? defaultSchemaName(gvk.group, gvk.version, gvk.kind);
    this.merged[name] = kindSchema({
      description: `${gvk.kind} has no published schema; any fields are accepted.`,
      gvk,
      properties: {},
    });
    this.merged[name]['x-kubernetes-preserve-unknown-fields'] = true;
    this.byGVK.set(gvkKey(gvk), name);
    return name;
  }

  listSchemaName(listGVK: GVK, itemSchema: string): string {
    const found = this.byGVK.get(gvkKey(listGVK));
    if (found) return found;
    const name = itemSchema.slice(0, itemSchema.lastIndexOf('.') + 1) + listGVK.kind;
    this.merged[name] = listSchema(itemSchema, listGVK);
    this.byGVK.set(gvkKey(listGVK), name);
    return name;
  }
}

function isBuiltinKindSchema(name: string, schemas: Record<string, Schema>): boolean {
  return name.startsWith('io.k8s.') && builtinSchemas[name] !== undefined && schemas[name] === builtinSchemas[name];
}

interface OpSpec {
  verb: 'get' | 'post' | 'put' | 'patch' | 'delete';
  action: string;
  id: string;
  description: string;
  gvk: GVK;
  params?: Parameter[];
  requestBody?: unknown;
  responses: Record<string, unknown>;
}

function addResourcePaths(
  paths: Record<string, Record<string, unknown>>,
  gv: GroupVersion,
  rt: OpenAPIResource,
  ctx: DocContext,
): void {
  const gvk: GVK = { group: rt.group, version: rt.version, kind: rt.kind };
  const kindSchemaName = ctx.kindSchemaName(gvk, rt.openapiSchemaName);
  const builtin = isBuiltinKindSchema(kindSchemaName, ctx.merged);
  const smp = rt.strategicMerge ?? builtin;
  const verbs = new Set(rt.verbs);
  const prefix = groupVersionPrefix(gv);
  const nsSegment = rt.namespaced ? '/namespaces/{namespace}' : '';
  const collectionPath = `${prefix}${nsSegment}/${rt.resource}`;
  const itemPath = `${collectionPath}/{name}`;
  const opPrefix = operationPrefix(gv);
  const scoped = (rt.namespaced ? 'Namespaced' : '') + rt.kind;
  const tag = operationTag(gv);
  const scopeParams = rt.namespaced ? [namespaceParam] : [];
  const itemParams = [nameParam(rt.kind), ...scopeParams, pretty];
  const kindRef = refTo(kindSchemaName);
  // Protobuf is only decoded for built-in kinds (kubectl-compat §0.2); CRDs and kcp APIs are JSON/YAML only.
  const bodyTypes = ['application/json', 'application/yaml'];
  if (builtin) bodyTypes.push('application/vnd.kubernetes.protobuf');
  const body = (ref: string, required = true) => ({ content: media(ref, bodyTypes), ...(required ? { required } : {}) });
  const ok = (ref: string, codes: Record<string, string>, types = bodyTypes) => responses(ref, codes, types);

  const collection: OpSpec[] = [];
  if (verbs.has('deletecollection')) {
    collection.push({
      verb: 'delete', action: 'deletecollection', id: `delete${opPrefix}Collection${scoped}`,
      description: `delete collection of ${rt.kind}`, gvk, params: deleteCollectionParams,
      requestBody: body(refTo(DELETE_OPTIONS), false), responses: ok(refTo(STATUS_SCHEMA), { 200: 'OK' }),
    });
  }
  let listSchemaRef: string | undefined;
  if (verbs.has('list')) {
    listSchemaRef = refTo(ctx.listSchemaName({ ...gvk, kind: rt.listKind }, kindSchemaName));
    collection.push({
      verb: 'get', action: 'list', id: `list${opPrefix}${scoped}`,
      description: `list or watch objects of kind ${rt.kind}`, gvk, params: listParams,
      responses: ok(listSchemaRef, { 200: 'OK' }, withWatchStreams(bodyTypes)),
    });
  }
  if (verbs.has('create')) {
    collection.push({
      verb: 'post', action: 'post', id: `create${opPrefix}${scoped}`, description: `create a ${rt.kind}`, gvk,
      params: writeParams, requestBody: body(kindRef),
      responses: ok(kindRef, { 200: 'OK', 201: 'Created', 202: 'Accepted' }),
    });
  }
  addPath(paths, collectionPath, [...scopeParams, pretty], collection, tag);

  const item: OpSpec[] = [];
  if (verbs.has('delete')) {
    item.push({
      verb: 'delete', action: 'delete', id: `delete${opPrefix}${scoped}`, description: `delete a ${rt.kind}`, gvk,
      params: deleteParams, requestBody: body(refTo(DELETE_OPTIONS), false),
      responses: ok(refTo(STATUS_SCHEMA), { 200: 'OK', 202: 'Accepted' }),
    });
  }
  if (verbs.has('get')) {
    item.push(readOp(`read${opPrefix}${scoped}`, `read the specified ${rt.kind}`, gvk, kindRef, ok));
  }
  if (verbs.has('patch')) {
    item.push(patchOp(`patch${opPrefix}${scoped}`, `partially update the specified ${rt.kind}`, gvk, kindRef, smp, ok));
  }
  if (verbs.has('update')) {
    item.push(replaceOp(`replace${opPrefix}${scoped}`, `replace the specified ${rt.kind}`, gvk, kindRef, body, ok));
  }
  addPath(paths, itemPath, itemParams, item, tag);

  if (rt.subresources?.status) {
    const id = `${opPrefix}${scoped}Status`;
    addPath(paths, `${itemPath}/status`, itemParams, [
      readOp(`read${id}`, `read status of the specified ${rt.kind}`, gvk, kindRef, ok),
      patchOp(`patch${id}`, `partially update status of the specified ${rt.kind}`, gvk, kindRef, smp, ok),
      replaceOp(`replace${id}`, `replace status of the specified ${rt.kind}`, gvk, kindRef, body, ok),
    ], tag);
  }
  if (rt.subresources?.scale) {
    const id = `${opPrefix}${scoped}Scale`;
    const scaleRef = refTo(SCALE_SCHEMA);
    addPath(paths, `${itemPath}/scale`, itemParams, [
      readOp(`read${id}`, `read scale of the specified ${rt.kind}`, SCALE_GVK, scaleRef, ok),
      patchOp(`patch${id}`, `partially update scale of the specified ${rt.kind}`, SCALE_GVK, scaleRef, smp, ok),
      replaceOp(`replace${id}`, `replace scale of the specified ${rt.kind}`, SCALE_GVK, scaleRef, body, ok),
    ], tag);
  }
  if (rt.subresources?.finalize) {
    addPath(paths, `${itemPath}/finalize`, itemParams, [{
      verb: 'put', action: 'put', id: `replace${opPrefix}${scoped}Finalize`,
      description: `replace finalize of the specified ${rt.kind}`, gvk, params: writeParams,
      requestBody: body(kindRef), responses: ok(kindRef, { 200: 'OK', 201: 'Created' }),
    }], tag);
  }
  // Namespaced kinds are also listable across all namespaces (`kubectl get -A`).
  if (rt.namespaced && listSchemaRef) {
    addPath(paths, `${prefix}/${rt.resource}`, [pretty], [{
      verb: 'get', action: 'list', id: `list${opPrefix}${rt.kind}ForAllNamespaces`,
      description: `list or watch objects of kind ${rt.kind}`, gvk, params: listParams,
      responses: ok(listSchemaRef, { 200: 'OK' }, withWatchStreams(bodyTypes)),
    }], tag);
  }
}

type OkFn = (ref: string, codes: Record<string, string>, types?: string[]) => Record<string, unknown>;
type BodyFn = (ref: string, required?: boolean) => unknown;

function readOp(id: string, description: string, gvk: GVK, ref: string, ok: OkFn): OpSpec {
  return { verb: 'get', action: 'get', id, description, gvk, responses: ok(ref, { 200: 'OK' }) };
}

function replaceOp(id: string, description: string, gvk: GVK, ref: string, body: BodyFn, ok: OkFn): OpSpec {
  return {
    verb: 'put', action: 'put', id, description, gvk, params: writeParams, requestBody: body(ref),
    responses: ok(ref, { 200: 'OK', 201: 'Created' }),
  };
}

function patchOp(id: string, description: string, gvk: GVK, ref: string, smp: boolean, ok: OkFn): OpSpec {
  const types = ['application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json'];
  if (smp) types.push('application/strategic-merge-patch+json');
  return {
    verb: 'patch', action: 'patch', id, description, gvk, params: patchParams,
    requestBody: { content: media(refTo(PATCH_SCHEMA), types), required: true },
    responses: ok(ref, { 200: 'OK', 201: 'Created' }),
  };
}

function media(ref: string, types: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const t of [...types].sort()) out[t] = { schema: { $ref: ref } };
  return out;
}

function withWatchStreams(types: string[]): string[] {
  return [...types, ...types.filter((t) => t !== 'application/yaml').map((t) => `${t};stream=watch`)];
}

function responses(ref: string, codes: Record<string, string>, types: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [code, description] of Object.entries(codes)) out[code] = { content: media(ref, types), description };
  out['401'] = { description: 'Unauthorized' };
  return out;
}

/** Adds operations under a path, merging with what is there (two resources never share a path, but be safe). */
function addPath(
  paths: Record<string, Record<string, unknown>>,
  path: string,
  params: Parameter[],
  ops: OpSpec[],
  tag: string,
): void {
  if (ops.length === 0) return;
  const item = (paths[path] ??= {});
  item.parameters = params;
  for (const op of ops) {
    const o: Record<string, unknown> = { description: op.description, operationId: op.id };
    if (op.params?.length) o.parameters = op.params;
    if (op.requestBody) o.requestBody = op.requestBody;
    o.responses = op.responses;
    o.tags = [tag];
    o['x-kubernetes-action'] = op.action;
    o['x-kubernetes-group-version-kind'] = op.gvk;
    item[op.verb] = o;
  }
  // Alphabetical keys, as upstream documents have them; keeps serialization stable.
  const sorted: Record<string, unknown> = {};
  for (const k of Object.keys(item).sort()) sorted[k] = item[k];
  paths[path] = sorted;
}
