/**
 * WATCH over HTTP: validates the request, then streams events in the negotiated form (JSON lines, one-row Tables for
 * kubectl get -w, PartialObjectMetadata, or length-prefixed protobuf WatchEvents) from
 * the registry's watch until the client leaves, the timeout passes, the server shuts down or the watched type
 * stops being served (its CRD deleted: kube tears the storage down and its watches end).
 */
import type { FastifyReply } from 'fastify';
import type { OpContext } from '../registry/generic-store.js';
import { parseResourceVersion, waitForRevision } from '../registry/list.js';
import { validateListOptions } from '../registry/list-options.js';
import { buildPredicate, withFilter } from '../registry/predicates.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import { serveWatch } from '../registry/watch-stream.js';
import type { ListOptionsQuery } from './query.js';
import { watchRenderOptions, WatchEventWriter } from './render.js';
import type { ApiRequest, ResourceServices } from './request.js';
import { toStatusError } from './responses.js';
import { WatchResponse } from './watch-response.js';

export async function streamWatch(
  svc: ResourceServices,
  req: ApiRequest,
  rt: ResourceType,
  ctx: OpContext,
  reply: FastifyReply,
  options: ListOptionsQuery,
): Promise<void> {
  const writer = new WatchEventWriter(rt, watchRenderOptions(rt, req));
  const predicate = withFilter(buildPredicate(rt, options.labelSelector, options.fieldSelector), req.filter);
  const { sendInitialEvents, allowWatchBookmarks, timeoutSeconds } = options;
  const rv = options.resourceVersion;
  validateListOptions({ ...options, watch: true });
  if (rv && rv !== '0') {
    // Wait briefly for a revision from the future, then answer 504 "Too large". kube opens such a watch and waits
    // on (an initial-events watch gets the 504 Status as an ERROR event): no Retry-After here, so that an informer
    // holding revisions of an earlier memory store relists at once instead of client-go retrying for ~40 s.
    await waitForRevision(svc.store, parseResourceVersion(rv), 0);
  }
  const sink = new WatchResponse(reply, writer, svc.watches);
  const stopFollowingType = svc.watchRemoval?.(req.cluster ?? '*', rt, sink.end);
  if (stopFollowingType) sink.onClose(stopFollowingType);
  try {
    await serveWatch(
      svc.store,
      {
        rt,
        cluster: req.cluster,
        namespace: ctx.namespace,
        predicate,
        resourceVersion: rv,
        sendInitialEvents,
        allowWatchBookmarks,
        timeoutSeconds,
        minRequestTimeoutSeconds: svc.minRequestTimeoutSeconds,
        convert: rt.convert ? convertText(rt.convert) : undefined,
        freshAsStored: rt.convert?.storedAsRead === true,
      },
      // Ended from outside (type removed, shutdown), the sink's send says so and serveWatch stops.
      sink,
    );
  } catch (err) {
    // The response is already streaming: report the failure as an ERROR event, then close.
    sink.fail(JSON.stringify(toStatusError(err).toStatus()));
  }
}

type Conversion = NonNullable<ResourceType['convert']>;

/**
 * The last stored text each conversion read, and what it gave. The hub hands one commit's event to every watcher in
 * turn as the same string, so the watchers of one served version convert it once between them rather than once each
 * (a custom resource's read parses, prunes and defaults the object). A conversion depends only on its input text.
 */
const lastConversions = new WeakMap<Conversion, { json: string | undefined; text: string }>();

function convertText(convert: Conversion): (json: string) => string {
  const read = convert.fromStorageText ?? ((json: string) => JSON.stringify(convert.fromStorage(JSON.parse(json) as KubeObject)));
  let last = lastConversions.get(convert);
  if (!last) lastConversions.set(convert, (last = { json: undefined, text: '' }));
  const slot = last;
  return (json) => {
    if (json !== slot.json) {
      slot.text = read(json);
      slot.json = json;
    }
    return slot.text;
  };
}
