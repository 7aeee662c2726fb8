/**
 * The HTTP side: the fastify app every request goes through (HTTP/2 and HTTP/1.1 over TLS, bodies as bytes, errors
 * as Status, metrics, the in-flight limits), its routes (snapshots, then everything else through the router), and
 * the listener component that binds it, the proxy socket beside it, and the server's address.
 */
import { tenantShare } from '../endpoints/tenant-share.js';
import type http from 'node:http';
import type { Http2SecureServer } from 'node:http2';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { routeRequest } from '../endpoints/api-router.js';
import { objectMediaTypes } from '../endpoints/body.js';
import { sendClientError } from '../endpoints/client-errors.js';
import { HEADER_TIMEOUT_MS, HTTP2_MAX_CONCURRENT_STREAMS, IDLE_TIMEOUT_MS, installConnectionDeadlines } from '../endpoints/connection-deadlines.js';
import { installRequestAdmission } from '../endpoints/request-admission.js';
import { abandonUnreadBody, cutOffUnreadBody } from '../endpoints/unread-body.js';
import { sendStatusError, toStatusError } from '../endpoints/responses.js';
import { registerSnapshotRoutes } from '../endpoints/snapshot-routes.js';
import { supportedPatchTypes } from '../machinery/patch/applyPatch.js';
import { badRequest, internalError, methodNotAllowed, requestEntityTooLarge, unsupportedMediaType } from '../machinery/status.js';
import { listenProxySocket, type ProxySocket } from '../shards/proxy-socket.js';
import type { ServerParts } from './assembly.js';
import type { Component } from './lifecycle.js';
import { serverUrls } from './options.js';

/** Each app's own request handler, before connection deadlines wrap the server: what the proxy socket serves. */
const proxyHandlers = new WeakMap<FastifyInstance, http.RequestListener>();

export const maxRequestBodyBytes = 3 * 1024 * 1024;

/** The app with its hooks and routes, not listening yet. */
export function serverApp(server: ServerParts): FastifyInstance {
  const { config, foundation, store, services } = server;
  const app = buildHttpApp({ key: foundation.certs.keyPem, cert: foundation.certs.certPem }, config.log);
  // Before any body is read: who is asking, whether there is room for them, and until when.
  const metrics = services.metrics!;
  installRequestAdmission(app, {
    authenticator: server.authenticator,
    inflight: config.inflight,
    requestTimeoutMs: config.requestTimeoutMs,
    // A tenant's identities share one share: their home's, or their organisation's.
    shareKey: tenantShare((cluster) => server.tenancy.paths.pathOf(cluster), config.homes),
    // Once answered: kube's request metrics, the request log, and a body still arriving abandoned (unread-body.ts).
    answered: (request, reply, elapsedMs) => {
      metrics.observe(request, reply.statusCode, elapsedMs / 1000);
      if (config.verbosity > 0) config.log(`${request.method} ${request.url} ${reply.statusCode} ${elapsedMs.toFixed(1)}ms`);
      abandonUnreadBody(request);
    },
  });
  // The proxy socket is served by fastify's own handler (taken before connection deadlines add their listener).
  proxyHandlers.set(app, requestHandlerOf(app));
  installConnectionDeadlines(app.server as unknown as Http2SecureServer);
  registerSnapshotRoutes(app, {
    store,
    generic: server.generic,
    resolvePath: server.tenancy.resolvePath,
    externalUrl: () => server.address.externalUrl,
    rootDirectory: foundation.root,
  });
  app.all('*', (request, reply) => routeRequest(services, request, reply));
  // Methods fastify does not route (PROPFIND, …) are requests like any other: authorized, then refused with a Status.
  app.setNotFoundHandler((request, reply) => routeRequest(services, request, reply));
  return app;
}

/**
 * Listens on `--secure-port`, binds the server's address, and listens on the proxy socket when asked for. Stopping
 * ends the open watches first, so closing waits only for requests really in flight.
 */
export function listener(app: FastifyInstance, server: ServerParts): Component {
  const { config, foundation, services, address } = server;
  let proxySocket: ProxySocket | undefined;
  const close = async () => {
    // Watches never finish by themselves: end them so app.close() only waits for real in-flight requests.
    for (const end of services.watches) end();
    await Promise.all([app.close(), proxySocket?.close()]);
  };
  return {
    name: 'listener',
    async start() {
      await app.listen({ port: config.securePort, host: config.bindAddress });
      const bound = app.server.address();
      address.bind(serverUrls(config, typeof bound === 'object' && bound ? bound.port : config.securePort));
      try {
        if (foundation.proxySocketPath) proxySocket = await listenProxySocket(foundation.proxySocketPath, proxyHandlers.get(app) ?? requestHandlerOf(app));
      } catch (err) {
        await close();
        throw err;
      }
    },
    stop: close,
  };
}

/**
 * The TLS listener's options: HTTP/2 with HTTP/1.1 beside it, kube's HTTP/2 limit of concurrent streams per
 * connection, the TLS handshake bounded by the header deadline (Go's server bounds it by ReadHeaderTimeout, 32 s in
 * kube; node's default is 120 s, which an unauthenticated connection that never says hello held), and Nagle's
 * algorithm off on every connection. Node's HTTP/2 server leaves it on (its https server and
 * Go's net, kube-apiserver's, turn it off): a watch stream's event written while the previous one is not yet
 * acknowledged then waits for the client's delayed ACK, up to ~40 ms on Linux (measured in docs/benchmarks.md).
 */
export function httpsOptions(tls: { key: string; cert: string }) {
  return {
    ...tls,
    allowHTTP1: true,
    settings: { maxConcurrentStreams: HTTP2_MAX_CONCURRENT_STREAMS },
    handshakeTimeout: HEADER_TIMEOUT_MS,
    noDelay: true,
  };
}

function buildHttpApp(tls: { key: string; cert: string }, log: (line: string) => void): FastifyInstance {
  // Typed as fastify's HTTP/1 instance: the handlers use only what Node's HTTP/1 and HTTP/2 compatibility
  // request/response objects share (headers, rawHeaders, writeHead/write/end, 'close').
  const app = Fastify({
    // HTTP/2 where the client offers it (kubectl and client-go do, over ALPN): one connection carries every request
    // and watch of a client, as with kube-apiserver; HTTP/1.1 clients (client-node, curl --http1.1) are served too.
    http2: true,
    https: httpsOptions(tls),
    http2SessionTimeout: IDLE_TIMEOUT_MS,
    bodyLimit: maxRequestBodyBytes,
    logger: false,
    // Requests and connections are timed by our own hooks (endpoints/request-deadline.ts, connection-deadlines.ts):
    // Node's HTTP/1 timeouts do not apply on an HTTP/2 server's HTTP/1.1 connections.
    requestTimeout: 0,
    // HTTP/1.1 requests the parser refuses get a Status too, not fastify's own body.
    clientErrorHandler: sendClientError,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // Errors fastify meets before routing (a path that is not valid percent-encoding) get a Status like the rest.
    frameworkErrors: (err, _request, h2reply) => {
      const reply = h2reply as unknown as FastifyReply;
      const code = (err as { code?: string }).code;
      if (code === 'FST_ERR_BAD_URL') return sendStatusError(reply, badRequest(`invalid path: ${err.message}`));
      return sendStatusError(reply, toStatusError(err as Error));
    },
  }) as unknown as FastifyInstance;
  // Every body arrives as bytes; the handlers decode JSON, YAML, protobuf and patches themselves.
  app.removeAllContentTypeParsers();
  const asBytes = { parseAs: 'buffer' as const, bodyLimit: maxRequestBodyBytes };
  const keepBytes = (_req: unknown, body: Buffer, done: (err: null, body: Buffer) => void) => done(null, body);
  // The types clients send are registered by name as well, with the same parser: fastify remembers the parser of a
  // Content-Type registered by name, but looks the catch-all up anew (parsing the header) on every request.
  app.addContentTypeParser([...objectMediaTypes, ...supportedPatchTypes], asBytes, keepBytes);
  app.addContentTypeParser('*', asBytes, keepBytes);
  // One onSend hook for everything done to an answer before it goes out (each hook is work on every request); what
  // is done once it is out runs in the request admission's 'close' listener (serverApp).
  app.addHook('onSend', (request, reply, payload, done) => {
    // kube-apiserver's WithCacheControl: answers that set no caching policy of their own are never cached.
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-cache, private');
    cutOffUnreadBody(request, reply);
    done(null, payload);
  });
  app.setErrorHandler((err, _request, reply) => {
    try {
      const code = (err as { code?: string }).code;
      if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
        return sendStatusError(reply, requestEntityTooLarge(`Request entity too large: limit is ${maxRequestBodyBytes}`));
      }
      if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return sendStatusError(reply, unsupportedMediaType('', ['application/json']));
      if (code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH') {
        return sendStatusError(reply, badRequest((err as Error).message));
      }
      // fastify's last resort for a method it cannot route at all (HTTP/2 allows any token): kube's 405.
      if (code === 'FST_ERR_NOT_FOUND') return sendStatusError(reply, methodNotAllowed('the server does not allow this method on the requested resource'));
      const status = toStatusError(err);
      if (status.code >= 500) log(`error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      return sendStatusError(reply, status);
    } catch (failure) {
      // Reporting the error failed too (a Status too large to serialize): a short 500 Status, never fastify's own body.
      log(`error: reporting ${String((err as Error)?.message).slice(0, 200)} failed: ${(failure as Error)?.message}`);
      return sendStatusError(reply, internalError('the error could not be reported; see the server log'));
    }
  });
  return app;
}

/** The handler fastify serves its HTTPS listener with, to serve the proxy socket with the very same one. */
function requestHandlerOf(app: FastifyInstance): http.RequestListener {
  const listeners = app.server.listeners('request');
  if (listeners.length !== 1) throw new Error(`expected fastify's one request handler on its server, found ${listeners.length}`);
  return listeners[0] as http.RequestListener;
}
