/**
 * The `scale` subresource of custom resources: GET renders an autoscaling/v1 Scale from the object's replica
 * paths (or, as asked, its Table — Name, Desired, Available, Age — or PartialObjectMetadata); PUT and PATCH (merge, JSON, strategic: Scale is a built-in kind) change only spec replicas, with the
 * Scale's resourceVersion as the precondition when it carries one.
 */
import type { FastifyReply } from 'fastify';
import { SCALE_COLUMNS, printerForColumns } from '../apiextensions/printer-columns.js';
import { applyScaleToObject, scaleFromObject } from '../apiextensions/scale.js';
import { methodNotAllowed, unsupportedMediaType } from '../machinery/status.js';
import type { OpContext } from '../registry/generic-store.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import { decodeObjectBody, mediaType } from './body.js';
import { parseDryRun, writeFieldManager } from './query.js';
import type { ApiRequest, ResourceServices } from './request.js';
import { renderSubresourceObject, type RenderOptions } from './render.js';
import { sendAnswer } from './responses.js';

/** The Scale's own table convertor (kube's scaleScope.TableConvertor), and its Go type for conversion refusals. */
const scalePrinter = printerForColumns(SCALE_COLUMNS);
const SCALE_GO_TYPE = '*v1.Scale';

export async function handleScaleRequest(
  svc: ResourceServices,
  req: ApiRequest,
  rt: ResourceType,
  ctx: OpContext,
  reply: FastifyReply,
  render: RenderOptions,
): Promise<unknown> {
  const spec = rt.subresources!.scale!;
  const name = req.info.name;
  const current = svc.generic.get(ctx, name);
  if (req.info.verb === 'get') return sendAnswer(reply, 200, renderSubresourceObject(scaleFromObject(current, spec), render, scalePrinter, SCALE_GO_TYPE));
  let scale: KubeObject;
  if (req.info.verb === 'update') {
    scale = await decodeObjectBody(req.contentType, req.body);
  } else if (req.info.verb === 'patch') {
    const type = mediaType(req.contentType);
    const { applyPatch, supportedPatchTypes } = await import('../machinery/patch/index.js');
    if (!supportedPatchTypes.includes(type) || type === 'application/apply-patch+yaml') throw unsupportedMediaType(type, supportedPatchTypes);
    scale = applyPatch(type, scaleFromObject(current, spec), req.body ?? Buffer.alloc(0), {
      isCustomResource: false,
    }) as KubeObject;
  } else {
    throw methodNotAllowed(`${req.info.verb} is not supported on the scale subresource`);
  }
  const updated = applyScaleToObject(current, scale, spec);
  const pinned = scale.metadata?.resourceVersion;
  updated.metadata = { ...updated.metadata, resourceVersion: pinned || current.metadata?.resourceVersion };
  const options = req.info.verb === 'patch' ? 'PatchOptions' : 'UpdateOptions';
  const fieldManager = writeFieldManager(req.query, req.userAgent, options);
  const stored = svc.generic.update(ctx, name, updated, { dryRun: parseDryRun(req.query, options), subresource: 'scale', fieldManager });
  return sendAnswer(reply, 200, renderSubresourceObject(scaleFromObject(stored, spec), render, scalePrinter, SCALE_GO_TYPE));
}
