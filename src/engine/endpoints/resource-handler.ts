/**
 * Resource requests: maps verb + subresource onto the generic store, list, watch and patch, and renders the
 * answer. One handler serves every ResourceType in every logical cluster.
 */
import type { FastifyReply } from 'fastify';
import {
  badRequest,
  fieldErrors,
  invalid,
  methodNotAllowed,
  qualifiedResource,
  StatusError,
  unsupportedMediaType,
} from '../machinery/status.js';
import { decodeBuiltin, pruneUnknownFields } from '../machinery/unknown-fields.js';
import { fromStorage, type DeleteOptions, type OpContext } from '../registry/generic-store.js';
import { listObjects, parseResourceVersion, waitForRevision } from '../registry/list.js';
import { objectTooLarge } from '../registry/object-size.js';
import { buildPredicate, withFilter } from '../registry/predicates.js';
import { rowJson, spliceResourceVersion } from '../registry/stored-object.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import { decodeObjectBody, deleteOptionsBody, duplicateKeysOf, mediaType, numberLiteralsOf } from './body.js';
import type { DuplicateKeys } from '../machinery/json-duplicate-keys.js';
import { schemasOf } from '../registry/schemas.js';
import {
  parseDeleteOptions,
  parseDryRun,
  parseFieldValidation,
  parseListOptions,
  writeFieldManager,
  type ListOptionsQuery,
  type FieldValidation,
} from './query.js';
import { encodeAnswer, renderList, renderObject, renderObjectList, renderOptions, type RenderOptions } from './render.js';
import { BUILTIN_RESOURCE, negotiateOutput } from './negotiation.js';
import { applyConfiguration, serverSideApply } from './apply-handler.js';
import { handleScaleRequest } from './scale-handler.js';
import { streamWatch } from './watch-handler.js';
import type { ApiRequest, ResourceServices } from './request.js';
import { addWarnings, sendAnswer, successStatus } from './responses.js';
import { createTurn, writeInTurn } from './create-turn.js';

const APPLY_PATCH_TYPE = 'application/apply-patch+yaml';

export function resourceNotFound(): StatusError {
  return new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
}

/**
 * Checks the request against its resource type, then serves it. A GET of one object awaits nothing: it is answered
 * in this call with no promise (fastify takes the sent reply as it is); every other verb goes on in serveResource.
 * A refusal is thrown either way, and fastify turns a thrown Status and a rejected one into the same answer.
 */
export function handleResourceRequest(svc: ResourceServices, req: ApiRequest, reply: FastifyReply): unknown {
  const { info } = req;
  const rt = req.catalog.find(info.group, info.version, info.resource);
  if (!rt) throw resourceNotFound();
  if (rt.requestWarnings) addWarnings(reply, rt.requestWarnings);
  if (!rt.namespaced && info.namespace && info.resource !== 'namespaces') throw resourceNotFound();
  const verb = info.verb;
  if (req.cluster === undefined) {
    if (verb !== 'list' && verb !== 'watch') {
      const kind = rt.group ? `${rt.resource}.${rt.group}` : rt.resource;
      throw new StatusError(405, 'MethodNotAllowed', `${verb} is not supported on resources of kind "${kind}" in the \`*\` logical cluster`, {
        group: rt.group,
        kind,
      });
    }
  }
  if (rt.namespaced && !info.namespace && verb !== 'list' && verb !== 'watch') throw resourceNotFound();
  if (!rt.verbs.includes(verb) && !(info.subresource && ['get', 'update', 'patch'].includes(verb))) {
    throw methodNotAllowed(`${verb} is not supported on resources of kind "${rt.resource}"`);
  }
  const sub = info.subresource;
  if (
    sub &&
    !(sub === 'status' && rt.subresources?.status) &&
    !(sub === 'finalize' && rt.subresources?.finalize) &&
    !(sub === 'scale' && rt.subresources?.scale) &&
    !(sub === 'token' && rt.subresources?.token && svc.tokenRequests)
  ) {
    throw resourceNotFound();
  }
  const ctx: OpContext = {
    rt,
    cluster: req.cluster ?? '',
    namespace: rt.namespaced ? info.namespace : '',
    user: { username: req.user.username, groups: req.user.groups, uid: req.user.uid, extra: req.user.extra },
  };
  // Set only when present (as before): spreading `{}` for the usual absent case built two objects per request.
  if (req.deepReview) ctx.deepReview = true;
  if (req.grant) ctx.grant = req.grant;
  if (verb === 'get' && sub !== 'scale' && sub !== 'token' && !rt.virtualCreate) {
    const render = renderOptions(rt, req);
    const answer = () => {
      // Reads splice the resourceVersion into the stored bytes: plain JSON answers never parse them.
      if (!rt.convert) {
        return sendAnswer(reply, 200, renderObject(rt, rowJson(svc.generic.getRaw(ctx, info.name)), render));
      }
      return sendAnswer(reply, 200, renderObject(rt, svc.generic.get(ctx, info.name), render));
    };
    // kube's cacher.Get: a resourceVersion asks for an answer at least that fresh (a malformed one is refused, as
    // lists refuse it); one the store has not reached yet is waited for, then 504 Too large resource version.
    const rv = req.query.get('resourceVersion');
    if (rv && rv !== '0') {
      const n = parseResourceVersion(rv);
      if (n > svc.store.currentRevision()) return waitForRevision(svc.store, n).then(answer);
    }
    return answer();
  }
  return serveResource(svc, req, reply, rt, ctx);
}

async function serveResource(svc: ResourceServices, req: ApiRequest, reply: FastifyReply, rt: ResourceType, ctx: OpContext): Promise<unknown> {
  const { info } = req;
  const { verb, subresource: sub } = info;
  // Scale and TokenRequest are built-in kinds whatever resource they belong to. kube gives a custom resource's scale
  // a table convertor of its own (Desired, Available, Age); TokenRequest has none.
  if (sub === 'scale' || sub === 'token') {
    const render = { format: negotiateOutput(req, sub === 'scale' ? BUILTIN_RESOURCE : { ...BUILTIN_RESOURCE, table: false }), query: req.query };
    if (sub === 'scale') return handleScaleRequest(svc, req, rt, ctx, reply, render);
    if (verb !== 'create') throw methodNotAllowed(`${verb} is not supported on the token subresource`);
    const input = await decodeObjectBody(req.contentType, req.body);
    const target = { cluster: ctx.cluster, namespace: ctx.namespace, name: info.name };
    return sendAnswer(reply, 201, encodeAnswer(await svc.tokenRequests!(target, input), render.format));
  }
  // A watch negotiates its stream form itself; everything else is answered as negotiated here, before any work.
  if (verb === 'watch') return streamWatch(svc, req, rt, ctx, reply, parseListOptions(req.query));
  const render: RenderOptions = renderOptions(rt, req);

  if (rt.virtualCreate) {
    if (verb !== 'create') throw methodNotAllowed(`${verb} is not supported on resources of kind "${rt.resource}"`);
    const input = await decodeObjectBody(req.contentType, req.body);
    // A review is decoded like any create body: Go types first, then unknown fields.
    addWarnings(reply, checkUnknownFields(rt, input, parseFieldValidation(req.query), 'body'));
    const out = await rt.virtualCreate({ ...input, apiVersion: input.apiVersion, kind: rt.kind }, { ...ctx, namespace: info.namespace });
    return sendAnswer(reply, 201, renderObject(rt, out, render));
  }

  switch (verb) {
    case 'list': {
      const options = parseListOptions(req.query);
      const page = await listObjects(svc.store, rt, req.cluster, ctx.namespace, withFilter(predicateFor(rt, options), req.filter), options);
      return sendAnswer(reply, 200, renderList(rt, page, render));
    }
    case 'create': {
      const turn = createTurn();
      if (turn) await turn;
      const obj = await decodeObjectBody(req.contentType, req.body);
      await rt.strategy.admitAhead?.(obj, ctx);
      const fieldWarnings = checkUnknownFields(rt, obj, parseFieldValidation(req.query), 'body');
      const fieldManager = writeFieldManager(req.query, req.userAgent, 'CreateOptions');
      const dryRun = parseDryRun(req.query);
      const { object: created, stored } = await writeInTurn(svc.store, () => svc.generic.createStored(ctx, obj, { dryRun, fieldManager, ownsInput: true }));
      addWarnings(reply, [...fieldWarnings, ...(rt.strategy.warnings?.(created) ?? [])]);
      // Plain JSON is answered with the stored bytes, as a GET would be: the object is not serialized a second time.
      const answer = stored !== undefined && !rt.convert && render.format.format === 'json' && !render.format.convert
        ? spliceResourceVersion(stored, Number(created.metadata!.resourceVersion))
        : created;
      return sendAnswer(reply, 201, renderObject(rt, answer, render));
    }
    case 'update': {
      const obj = await decodeObjectBody(req.contentType, req.body);
      await rt.strategy.admitAhead?.(obj, ctx);
      const fieldWarnings = checkUnknownFields(rt, obj, parseFieldValidation(req.query, 'UpdateOptions'), 'body');
      const fieldManager = writeFieldManager(req.query, req.userAgent, 'UpdateOptions');
      const updated = svc.generic.update(ctx, info.name, obj, { dryRun: parseDryRun(req.query, 'UpdateOptions'), subresource: sub || undefined, fieldManager, ownsInput: true });
      addWarnings(reply, [...fieldWarnings, ...(rt.strategy.warnings?.(updated) ?? [])]);
      return sendAnswer(reply, 200, renderObject(rt, updated, render));
    }
    case 'patch': {
      if (mediaType(req.contentType) === APPLY_PATCH_TYPE) {
        if (rt.strategy.admitAhead) await rt.strategy.admitAhead(applyConfiguration(req.body), ctx);
        const applied = serverSideApply(svc, req, rt, ctx);
        addWarnings(reply, [...applied.warnings, ...(rt.strategy.warnings?.(applied.object) ?? [])]);
        return sendAnswer(reply, applied.created ? 201 : 200, renderObject(rt, applied.object, render));
      }
      const { object, warnings } = await patchObject(svc, req, rt, ctx);
      addWarnings(reply, warnings);
      return sendAnswer(reply, 200, renderObject(rt, object, render));
    }
    case 'delete': {
      const opts = await deleteOptions(req);
      const result = svc.generic.delete(ctx, info.name, opts);
      if (!result.removed || rt.resource === 'namespaces') return sendAnswer(reply, 200, renderObject(rt, result.object, render));
      const meta = result.object.metadata!;
      return sendAnswer(reply, 200, renderObject(rt, successStatus({ name: meta.name, group: rt.group, kind: rt.resource, uid: meta.uid }), render));
    }
    case 'deletecollection': {
      const deleted = await deleteCollection(svc, req, rt, ctx, await deleteOptions(req));
      return sendAnswer(reply, 200, renderObjectList(rt, deleted, String(svc.store.currentRevision()), render));
    }
    default:
      throw methodNotAllowed(`${verb} is not supported on resources of kind "${rt.resource}"`);
  }
}

function predicateFor(rt: ResourceType, options: ListOptionsQuery) {
  return buildPredicate(rt, options.labelSelector, options.fieldSelector);
}

/**
 * The body as kube decodes it: a built-in kind's values must fit its Go types (the first misfit is a decode error,
 * whatever fieldValidation says); unknown fields (not in the kind's schema) are dropped, and a JSON body's repeated
 * keys are Go's (a built-in merges a repeated object); fieldValidation decides whether those strict-decoding
 * problems are an error (Strict), warnings (Warn, the default) or silent (Ignore), with kube's wording, in the
 * order of the body; a patch's `patchProblems` (its body's own, applyPatch's strictProblems) come first. One walk
 * does the schema's part.
 */
export function checkUnknownFields(
  rt: ResourceType,
  obj: KubeObject,
  validation: FieldValidation,
  source: 'body' | 'patch',
  patchProblems: string[] = [],
): string[] {
  const duplicates = source === 'body' ? duplicateKeysOf(obj) : undefined;
  if (duplicates && !rt.isCustomResource) replaceContents(obj, duplicates.merged as KubeObject);
  const schemas = schemasOf(rt);
  const name = rt.openapiSchemaName;
  const schema = name ? schemas[name] : undefined;
  let unknown: string[] = [];
  if (!schema) {
    // Nothing to check against but the repeats.
  } else if (rt.isCustomResource) {
    unknown = pruneUnknownFields(obj, schema, schemas);
  } else {
    const decoded = decodeBuiltin(obj, schema, schemas, name!.slice(name!.lastIndexOf('.') + 1), { literals: () => numberLiteralsOf(obj) });
    if (decoded.decodeError !== undefined) throw decodeFailure(rt, obj, decoded.decodeError, source);
    unknown = decoded.unknown;
  }
  if ((unknown.length === 0 && !duplicates && patchProblems.length === 0) || validation === 'Ignore') return [];
  // A patch body's own problems come first: kube decodes it strictly before the patched object.
  const problems = [...patchProblems, ...(duplicates ? inTextOrder(unknown, duplicates) : unknown.map((path) => `unknown field "${path}"`))];
  if (validation === 'Warn') return problems;
  const detail = `strict decoding error: ${problems.join(', ')}`;
  throw decodeFailure(rt, obj, detail, source);
}

/** Unknown and repeated fields as Go's decoder meets them: in the order of the text. */
function inTextOrder(unknown: string[], duplicates: DuplicateKeys): string[] {
  const found = [
    ...unknown.map((path) => ({ at: duplicates.offsets.get(path) ?? Infinity, text: `unknown field "${path}"` })),
    ...duplicates.paths.map((path, i) => ({ at: duplicates.repeatedAt[i]!, text: `duplicate field "${path}"` })),
  ];
  return found.sort((a, b) => a.at - b.at).map((f) => f.text);
}

/** `obj` holds what `next` holds, in place: the handler keeps its reference to the body. */
function replaceContents(obj: KubeObject, next: KubeObject): void {
  for (const key of Object.keys(obj)) delete (obj as Record<string, unknown>)[key];
  for (const key of Object.keys(next)) {
    Object.defineProperty(obj, key, { value: (next as Record<string, unknown>)[key], enumerable: true, writable: true, configurable: true });
  }
}

/**
 * kube's answer when decoding fails: a request body is a 400 from transformDecodeError; a patched object that no
 * longer decodes is the patch handler's 422 on the field `patch`.
 */
function decodeFailure(rt: ResourceType, obj: KubeObject, detail: string, source: 'body' | 'patch'): StatusError {
  if (source === 'patch') return invalid(rt, obj.metadata?.name ?? '', [fieldErrors.invalid('patch', '', detail)]);
  return badRequest(`${rt.kind} in version "${rt.version}" cannot be handled as a ${rt.kind}: ${detail}`);
}

async function patchObject(
  svc: ResourceServices,
  req: ApiRequest,
  rt: ResourceType,
  ctx: OpContext,
): Promise<{ object: KubeObject; warnings: string[] }> {
  const type = mediaType(req.contentType);
  const { applyPatch, patchTypesFor } = await import('../machinery/patch/index.js');
  const accepted = patchTypesFor(!!rt.isCustomResource);
  if (!accepted.includes(type)) {
    throw unsupportedMediaType(type, accepted);
  }
  if (req.query.has('force')) {
    throw invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', [
      fieldErrors.forbidden('force', 'may not be specified for non-apply patch'),
    ]);
  }
  const validation = parseFieldValidation(req.query, 'PatchOptions');
  const name = req.info.name;
  const current = svc.generic.getRaw(ctx, name);
  const base = fromStorage(rt, JSON.parse(current.value) as KubeObject);
  base.metadata = { ...base.metadata, resourceVersion: String(current.revision) };
  const strictProblems = validation === 'Ignore' ? undefined : [];
  const patched = applyPatch(type, base, req.body ?? Buffer.alloc(0), {
    isCustomResource: !!rt.isCustomResource,
    patchSchema: rt.patchSchema,
    strictProblems,
  }) as KubeObject;
  // Over the object limit, the patched object goes no further (pruning, validation and their messages would all
  // walk it): the same 413 the store answers.
  const tooLarge = objectTooLarge(JSON.stringify(patched), `${qualifiedResource(rt)} "${name}"`);
  if (tooLarge) throw tooLarge;
  // kube's checkName after a patch: a patched object that lost its name (a top-level strategic `$patch: delete`
  // empties it) is refused, not refilled from the URL and stored with everything else gone.
  const patchedName = patched.metadata?.name ?? '';
  if (patchedName !== name) {
    throw badRequest(`the name of the object (${String(patchedName)}) does not match the name on the URL (${name})`);
  }
  // The patch may pin a resourceVersion itself; otherwise it applies to the revision it was computed from.
  const warnings = checkUnknownFields(rt, patched, validation, 'patch', strictProblems);
  const pinned = patched.metadata?.resourceVersion;
  const expected = pinned && pinned !== String(current.revision) ? undefined : current.revision;
  if (expected !== undefined && patched.metadata) delete patched.metadata.resourceVersion;
  await rt.strategy.admitAhead?.(patched, ctx);
  const fieldManager = writeFieldManager(req.query, req.userAgent, 'PatchOptions');
  const options = { dryRun: parseDryRun(req.query, 'PatchOptions'), subresource: req.info.subresource || undefined, fieldManager };
  const object = svc.generic.update(ctx, name, patched, options, expected);
  return { object, warnings };
}

async function deleteOptions(req: ApiRequest): Promise<DeleteOptions> {
  const { contentType, body } = await deleteOptionsBody(req.contentType, req.body);
  return parseDeleteOptions(req.query, contentType, body);
}

/** Deletes a collection takes between turns of the event loop: one tenant's 100,000 objects must not hold the others. */
const DELETES_PER_TURN = 256;

async function deleteCollection(svc: ResourceServices, req: ApiRequest, rt: ResourceType, ctx: OpContext, opts: DeleteOptions): Promise<KubeObject[]> {
  const predicate = predicateFor(rt, parseListOptions(req.query));
  const deleted: KubeObject[] = [];
  const prefixCtx = ctx;
  // Read first, then delete one by one: each delete honours that object's finalizers.
  const names: Array<{ namespace: string; name: string }> = [];
  const list = svc.store.list(
    `/registry/${rt.storagePrefix}/${ctx.cluster}/${rt.namespaced && ctx.namespace ? `${ctx.namespace}/` : ''}`,
  );
  for (const kv of list.items) {
    const obj = JSON.parse(kv.value) as KubeObject;
    if (!predicate.matches(obj)) continue;
    names.push({ namespace: obj.metadata?.namespace ?? '', name: obj.metadata!.name! });
  }
  for (let i = 0; i < names.length; i++) {
    // Kube deletes a collection with parallel workers; here the other requests get their turn between batches.
    if (i > 0 && i % DELETES_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
    const { namespace, name } = names[i]!;
    try {
      const result = svc.generic.delete({ ...prefixCtx, namespace: rt.namespaced ? namespace : '' }, name, opts);
      deleted.push(result.object);
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) continue;
      throw err;
    }
  }
  return deleted;
}
