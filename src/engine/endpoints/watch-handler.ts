/**
 * WATCH over HTTP: validates the request, then streams JSON lines (or one-row Tables for kubectl get -w) from
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
import { renderWatchObject, wantsTable } from './render.js';
import type { ApiRequest, ResourceServices } from './resource-handler.js';
import { toStatusError } from './responses.js';

export async function streamWatch(
  svc: ResourceServices,
  req: ApiRequest,
  rt: ResourceType,
  ctx: OpContext,
  reply: FastifyReply,
  options: ListOptionsQuery,
): Promise<void> {
  const predicate = withFilter(buildPredicate(rt, options.labelSelector, options.fieldSelector), req.filter);
  const { sendInitialEvents, allowWatchBookmarks, timeoutSeconds } = options;
  const rv = options.resourceVersion;
  validateListOptions({ ...options, watch: true });
  if (rv && rv !== '0') {
    // Like kube's watch cache: wait briefly for a revision from the future, then answer 504 "Too large".
    await waitForRevision(svc.store, parseResourceVersion(rv));
  }
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache, private' });
  raw.flushHeaders();
  let first = true;
  const render = { accept: req.accept, query: req.query };
  const table = wantsTable(req.accept);
  const endStream = () => {
    if (!raw.writableEnded) raw.end();
  };
  svc.watches?.add(endStream);
  const stopFollowingType = svc.watchRemoval?.(req.cluster ?? '*', rt, endStream);
  raw.on('close', () => {
    svc.watches?.delete(endStream);
    stopFollowingType?.();
  });
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
      },
      {
        send(type, json) {
          // Ended from outside (type removed, shutdown): serveWatch learns it here or from the close event.
          if (raw.writableEnded) return false;
          const object =
            type === 'BOOKMARK' || type === 'ERROR' ? json : renderWatchObject(rt, json, render, table, first);
          if (type !== 'BOOKMARK' && type !== 'ERROR') first = false;
          raw.write(`{"type":"${type}","object":${object}}\n`);
          return raw.writableLength < 16 * 1024 * 1024;
        },
        end: endStream,
        onClose(callback) {
          raw.on('close', callback);
        },
      },
    );
  } catch (err) {
    // The response is already streaming: report the failure as an ERROR event, then close.
    const status = toStatusError(err);
    if (!raw.writableEnded) {
      raw.write(`{"type":"ERROR","object":${JSON.stringify(status.toStatus())}}\n`);
      raw.end();
    }
  }
}

function convertText(convert: NonNullable<ResourceType['convert']>): (json: string) => string {
  return convert.fromStorageText ?? ((json) => JSON.stringify(convert.fromStorage(JSON.parse(json) as KubeObject)));
}
