/**
 * Operation objects in kube's shape: every operation carries `x-kubernetes-action` and an
 * `x-kubernetes-group-version-kind` object (kubectl finds kinds and checks fieldValidation through these), an
 * operationId, a tag, query parameters, a request body and responses referring to component schemas.
 */
import { patchParams, writeParams, type Parameter } from './parameters.js';
import { refTo, type GVK } from '../../machinery/openapi-schemas/index.js';

const PATCH_SCHEMA = 'io.k8s.apimachinery.pkg.apis.meta.v1.Patch';

export interface OpSpec {
  verb: 'get' | 'post' | 'put' | 'patch' | 'delete';
  action: string;
  id: string;
  description: string;
  gvk: GVK;
  params?: Parameter[];
  requestBody?: unknown;
  responses: Record<string, unknown>;
}

/** Media types of request and response bodies for one resource. */
export class Media {
  /** Protobuf is only decoded for built-in kinds; CRDs and kcp APIs are JSON/YAML only. */
  constructor(private readonly protobuf: boolean) {}

  get types(): string[] {
    const t = ['application/json', 'application/yaml'];
    if (this.protobuf) t.push('application/vnd.kubernetes.protobuf');
    return t;
  }

  /** List responses may also be watch streams (`?watch=true`). */
  get listTypes(): string[] {
    const t = this.types;
    return [...t, ...t.filter((x) => x !== 'application/yaml').map((x) => `${x};stream=watch`)];
  }

  body(ref: string, required = true): Record<string, unknown> {
    return { content: content(ref, this.types), ...(required ? { required } : {}) };
  }

  /** One response per status code, all with the same schema, plus the bodiless 401 kube documents. */
  responses(ref: string, codes: Record<string, string>, types = this.types): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [code, description] of Object.entries(codes)) out[code] = { content: content(ref, types), description };
    out['401'] = { description: 'Unauthorized' };
    return out;
  }
}

export function content(ref: string, types: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const t of [...types].sort()) out[t] = { schema: { $ref: ref } };
  return out;
}

export function readOp(id: string, description: string, gvk: GVK, ref: string, media: Media): OpSpec {
  return { verb: 'get', action: 'get', id, description, gvk, responses: media.responses(ref, { 200: 'OK' }) };
}

export function replaceOp(id: string, description: string, gvk: GVK, ref: string, media: Media): OpSpec {
  return {
    verb: 'put',
    action: 'put',
    id,
    description,
    gvk,
    params: writeParams,
    requestBody: media.body(ref),
    responses: media.responses(ref, { 200: 'OK', 201: 'Created' }),
  };
}

/**
 * PATCH. Strategic merge is listed only when `smp`: kubectl then computes client-side apply patches from our
 * schema's patch markers; without it kubectl falls back to the Go types compiled into it.
 */
export function patchOp(id: string, description: string, gvk: GVK, ref: string, smp: boolean, media: Media): OpSpec {
  const types = ['application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json'];
  if (smp) types.push('application/strategic-merge-patch+json');
  return {
    verb: 'patch',
    action: 'patch',
    id,
    description,
    gvk,
    params: patchParams,
    requestBody: { content: content(refTo(PATCH_SCHEMA), types), required: true },
    responses: media.responses(ref, { 200: 'OK', 201: 'Created' }),
  };
}

/**
 * Adds operations under a path with its path-level parameters. Keys are sorted, as in upstream documents, so
 * serialization (and the document hash) is stable.
 */
export function addPath(
  paths: Record<string, Record<string, unknown>>,
  path: string,
  params: Parameter[],
  ops: OpSpec[],
  tag: string,
): void {
  if (ops.length === 0) return;
  const item: Record<string, unknown> = { ...paths[path], parameters: params };
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
  const sorted: Record<string, unknown> = {};
  for (const k of Object.keys(item).sort()) sorted[k] = item[k];
  paths[path] = sorted;
}
