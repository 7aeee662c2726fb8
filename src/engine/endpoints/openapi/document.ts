/**
 * Builds the OpenAPI 3.0 document of one group-version (`GET /openapi/v3/api/v1`, `/openapi/v3/apis/<g>/<v>`).
 *
 * kubectl needs three things from it: a PATCH operation per kind carrying
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
import { Media, addPath, patchOp, readOp, replaceOp, type OpSpec } from './operations.js';
import {
  deleteCollectionParams,
  deleteParams,
  listParams,
  nameParam,
  namespaceParam,
  pretty,
  writeParams,
} from './parameters.js';
import { builtinSchemas } from '../../builtin/index.js';
import { referencedNames, refTo, schemaClosure } from '../../machinery/openapi-schemas/index.js';
import { kindSchema, listSchema, type GVK, type Schema } from '../../machinery/openapi-schemas/helpers.js';

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
const WATCH_EVENT_SCHEMA = 'io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent';

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
  const media = new Media(builtin);
  const verbs = new Set(rt.verbs);
  const prefix = groupVersionPrefix(gv);
  const collectionPath = `${prefix}${rt.namespaced ? '/namespaces/{namespace}' : ''}/${rt.resource}`;
  const itemPath = `${collectionPath}/{name}`;
  const tag = operationTag(gv);
  // operationIds follow kube: <verb><Group><Version>[Namespaced]<Kind>[Subresource], so tools that key on them
  // (client generators, API browsers) see familiar names, e.g. patchCoreV1NamespacedConfigMap.
  const opPrefix = operationPrefix(gv);
  const scoped = (rt.namespaced ? 'Namespaced' : '') + rt.kind;
  const id = opPrefix + scoped;
  const scopeParams = rt.namespaced ? [namespaceParam] : [];
  const itemParams = [nameParam(rt.kind), ...scopeParams, pretty];
  const kindRef = refTo(kindSchemaName);
  const statusRef = refTo(STATUS_SCHEMA);
  const deleteBody = media.body(refTo(DELETE_OPTIONS), false);
  const K = rt.kind;

  const collection: OpSpec[] = [];
  if (verbs.has('deletecollection')) {
    collection.push({
      verb: 'delete', action: 'deletecollection', id: `delete${opPrefix}Collection${scoped}`,
      description: `delete collection of ${K}`, gvk,
      params: deleteCollectionParams, requestBody: deleteBody, responses: media.responses(statusRef, { 200: 'OK' }),
    });
  }
  let listRef: string | undefined;
  if (verbs.has('list')) {
    listRef = refTo(ctx.listSchemaName({ ...gvk, kind: rt.listKind }, kindSchemaName));
    collection.push({
      verb: 'get', action: 'list', id: `list${id}`, description: `list or watch objects of kind ${K}`, gvk,
      params: listParams, responses: media.responses(listRef, { 200: 'OK' }, media.listTypes),
    });
  }
  if (verbs.has('create')) {
    collection.push({
      verb: 'post', action: 'post', id: `create${id}`, description: `create a ${K}`, gvk, params: writeParams,
      requestBody: media.body(kindRef),
      responses: media.responses(kindRef, { 200: 'OK', 201: 'Created', 202: 'Accepted' }),
    });
  }
  addPath(paths, collectionPath, [...scopeParams, pretty], collection, tag);

  const item: OpSpec[] = [];
  if (verbs.has('delete')) {
    item.push({
      verb: 'delete', action: 'delete', id: `delete${id}`, description: `delete a ${K}`, gvk, params: deleteParams,
      requestBody: deleteBody, responses: media.responses(statusRef, { 200: 'OK', 202: 'Accepted' }),
    });
  }
  if (verbs.has('get')) item.push(readOp(`read${id}`, `read the specified ${K}`, gvk, kindRef, media));
  if (verbs.has('patch')) {
    item.push(patchOp(`patch${id}`, `partially update the specified ${K}`, gvk, kindRef, smp, media));
  }
  if (verbs.has('update')) item.push(replaceOp(`replace${id}`, `replace the specified ${K}`, gvk, kindRef, media));
  addPath(paths, itemPath, itemParams, item, tag);

  // Subresources: status and scale take get/patch/update, finalize (namespaces) only update.
  const sub = (name: string, subGVK: GVK, ref: string): OpSpec[] => [
    readOp(`read${id}${upper(name)}`, `read ${name} of the specified ${K}`, subGVK, ref, media),
    patchOp(`patch${id}${upper(name)}`, `partially update ${name} of the specified ${K}`, subGVK, ref, smp, media),
    replaceOp(`replace${id}${upper(name)}`, `replace ${name} of the specified ${K}`, subGVK, ref, media),
  ];
  if (rt.subresources?.status) addPath(paths, `${itemPath}/status`, itemParams, sub('status', gvk, kindRef), tag);
  if (rt.subresources?.scale) {
    addPath(paths, `${itemPath}/scale`, itemParams, sub('scale', SCALE_GVK, refTo(SCALE_SCHEMA)), tag);
  }
  if (rt.subresources?.finalize) {
    const finalize = replaceOp(`replace${id}Finalize`, `replace finalize of the specified ${K}`, gvk, kindRef, media);
    addPath(paths, `${itemPath}/finalize`, itemParams, [finalize], tag);
  }
  // Namespaced kinds are also listable across all namespaces (`kubectl get -A`).
  if (rt.namespaced && listRef) {
    addPath(paths, `${prefix}/${rt.resource}`, [pretty], [{
      verb: 'get', action: 'list', id: `list${opPrefix}${K}ForAllNamespaces`,
      description: `list or watch objects of kind ${K}`, gvk, params: listParams,
      responses: media.responses(listRef, { 200: 'OK' }, media.listTypes),
    }], tag);
  }
  // The deprecated `/watch/` paths kube still serves and documents: clients generated from the document (the npm
  // kubernetes-client) find their watch streams only there.
  if (verbs.has('watch')) {
    const watchEvent = refTo(WATCH_EVENT_SCHEMA);
    const watchPrefix = `${prefix}/watch${rt.namespaced ? '/namespaces/{namespace}' : ''}/${rt.resource}`;
    const deprecated = "deprecated: use the 'watch' parameter with a list operation instead";
    const watchOp = (action: 'watch' | 'watchlist', opId: string, description: string): OpSpec => ({
      verb: 'get', action, id: opId, description, gvk, params: listParams,
      responses: media.responses(watchEvent, { 200: 'OK' }, media.listTypes),
    });
    addPath(paths, watchPrefix, [...scopeParams, pretty], [
      watchOp('watchlist', `watch${id}List`, `watch individual changes to a list of ${K}. ${deprecated}.`),
    ], tag);
    addPath(paths, `${watchPrefix}/{name}`, itemParams, [
      watchOp('watch', `watch${id}`, `watch changes to an object of kind ${K}. ${deprecated}, filtered to a single item with the 'fieldSelector' parameter.`),
    ], tag);
    if (rt.namespaced) {
      addPath(paths, `${prefix}/watch/${rt.resource}`, [pretty], [
        watchOp('watchlist', `watch${opPrefix}${K}ListForAllNamespaces`, `watch individual changes to a list of ${K}. ${deprecated}.`),
      ], tag);
    }
  }
}

function upper(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
