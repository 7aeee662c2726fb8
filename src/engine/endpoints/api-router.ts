/**
 * The request pipeline after TLS: authenticate → resolve the logical cluster → impersonate → authorize → route
 * (non-resource endpoints, discovery, OpenAPI, resources). Every request but the public health and version paths
 * is authorized, in the cluster it reaches. Kept independent of how the server listens so tests can drive it
 * in-process.
 */
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  checkImpersonationPrivilege,
  forbiddenError,
  impersonate,
  impersonationHeaders,
  requestAttributes,
  WORKSPACE_ACCESS_NOT_PERMITTED,
  type Authorizer,
  type ImpersonationRequest,
} from '../authorization/index.js';
import { methodNotAllowed, unauthorized, StatusError } from '../machinery/status.js';
import { StaticCatalog, type ClusterCatalog } from '../registry/catalog.js';
import { scopedStore, scopePredicate, type StorageScope } from '../registry/scoped-store.js';
import type { ClusterResolver, ResolvedCluster } from './cluster-resolver.js';
import {
  aggregatedContentType,
  aggregatedDiscovery,
  legacyAPIGroup,
  legacyAPIGroupList,
  legacyAPIVersions,
  legacyResourceList,
  negotiateDiscovery,
} from './discovery.js';
import type { OpenAPIService } from './openapi-service.js';
import type { RequestMetrics } from './metrics.js';
import { isHealthPath, isPublicPath, refuseUnroutedMethod, serverVersion } from './non-resource.js';
import { healthAnswer, healthChecks, type HealthChecks } from './health.js';
import { parseRequestInfo, type RequestInfo } from './request-info.js';
import { renderObject, renderOptions } from './render.js';
import type { KubeObject, ResourceType, WriteGrant } from '../registry/types.js';
import type { Authenticator, UserInfo } from '../auth/user.js';
import { handleResourceRequest, resourceNotFound } from './resource-handler.js';
import type { ApiRequest, ResourceServices } from './request.js';
import { parseVirtualWorkspacePath, type VirtualWorkspaces } from './virtual-path.js';
import { negotiationRequest, sendAnswer, sendBody, sendJson } from './responses.js';
import { ANONYMOUS_USER, CLUSTER_NAME_EXTRA, identityInCluster } from '../auth/foreign-identity.js';
import { ANONYMOUS, authenticatedUser, authenticateRequest } from './request-gate.js';
import { requestQuery } from '../machinery/query-params.js';

/** Several virtual workspaces under /services/, each answering for the paths it knows. */
export function virtualWorkspaceSet(...members: VirtualWorkspaces[]): VirtualWorkspaces {
  return {
    async resolve(path, info, user) {
      for (const member of members) {
        const target = await member.resolve(path, info, user);
        if (target) return target;
      }
      return undefined;
    },
  };
}

export interface RouterServices extends ResourceServices {
  authenticator: Authenticator;
  authorizer: Authorizer;
  clusters: ClusterResolver;
  openapi: OpenAPIService;
  /** `host:port` advertised in legacy /api discovery. */
  serverAddress: string;
  /** Home workspaces: GET of the Workspace `~` in root. */
  homes?: { get(user: UserInfo, mayCreate: () => void): Promise<KubeObject> };
  /** Virtual workspaces under /services/: which cluster and API set a request there reaches. */
  virtualWorkspaces?: VirtualWorkspaces;
  /** Request counters and latencies, served at /metrics. */
  metrics?: RequestMetrics;
  /** Which child Workspaces a user's lists and watches show (undefined: all of them). */
  workspaceChildren?(user: UserInfo): ((ws: KubeObject) => boolean) | undefined;
  isReady(): boolean;
  /**
   * Asynchronous work authorization needs before the (synchronous) decision: asking another shard what the RBAC of
   * an export's workspace there allows (a maximal permission policy), so the authorizer finds the answer.
   */
  prepareAuthorization?(cluster: string | undefined, user: UserInfo, info: RequestInfo): Promise<void> | undefined;
}

/**
 * Routes one request. Nothing is awaited unless a step really waits (a token checked asynchronously, another shard's
 * policy, a virtual workspace, a home, a body): a GET is answered within this call, with no promise per request. A
 * refusal is thrown or rejected; fastify answers both with the same Status.
 */
export function routeRequest(svc: RouterServices, request: FastifyRequest, reply: FastifyReply): unknown {
  const url = requestTarget(request.url);
  const virtual = parseVirtualWorkspacePath(url.pathname);
  if (virtual) return routeVirtual(svc, request, reply, url, virtual);
  const info = parseRequestInfo(request.method, url.pathname, url.searchParams);
  const gated = authenticate(svc, request, info.path);
  if (gated instanceof Promise) return gated.then((user) => routeAuthenticated(svc, request, reply, url, info, user));
  return routeAuthenticated(svc, request, reply, url, info, gated);
}

/** /services/<workspace>/<name>/clusters/…: a virtual workspace maps it onto a cluster of its own choosing. */
async function routeVirtual(
  svc: RouterServices,
  request: FastifyRequest,
  reply: FastifyReply,
  url: { pathname: string; searchParams: URLSearchParams },
  virtual: NonNullable<ReturnType<typeof parseVirtualWorkspacePath>>,
): Promise<unknown> {
  const query = url.searchParams;
  const info = parseRequestInfo(request.method, virtual.remainder, query);
  svc.metrics?.noteRequest(request, info);
  const user = await authenticate(svc, request, url.pathname);
  refuseUnroutedMethod(request.method);
  gateImpersonation(request, user);
  // Each virtual workspace authorizes its requests itself (kcp: the virtual workspace's own authorizer).
  const target = await svc.virtualWorkspaces?.resolve(virtual, info, user);
  if (!target) throw resourceNotFound();
  // The index decides who may see what itself, from the identity as authenticated.
  if (target.handle) return target.handle(apiRequest(request, info, query, user, undefined, emptyCatalog), reply, svc);
  const identity = identityInCluster(user, target.resolved.cluster);
  const served = target.watchRemoval ? { ...svc, watchRemoval: target.watchRemoval } : svc;
  if (target.scope) {
    const scoped = scopedServices(served, target.scope);
    return serveResolved(scoped, request, reply, info, query, identity, target.resolved, both(target.filter, scopePredicate(target.scope)), target.grant);
  }
  return serveResolved(served, request, reply, info, query, identity, target.resolved, target.filter, target.grant);
}

function routeAuthenticated(
  svc: RouterServices,
  request: FastifyRequest,
  reply: FastifyReply,
  url: { pathname: string; searchParams: URLSearchParams },
  parsed: RequestInfo,
  authenticated: UserInfo,
): unknown {
  const query = url.searchParams;
  let info = parsed;
  refuseUnroutedMethod(request.method);
  const asked = impersonationHeaders(request.raw.rawHeaders);
  if (asked) checkImpersonationPrivilege(authenticated.groups, asked);
  const home = info.cluster.path === '' ? homeClusterOf(authenticated) : undefined;
  // kcp's in-cluster rewrite: clients configured from inside a workspace (a service-account token, no
  // /clusters/ prefix) reach the cluster their token belongs to.
  if (home) info = parseRequestInfo(request.method, `/clusters/${home}${url.pathname}`, query);
  svc.metrics?.noteRequest(request, info);

  // kube writes /version indented (WriteRawJSON).
  if (info.path === '/version' || info.path === '/version/') return sendJson(reply, 200, JSON.stringify(serverVersion, null, 2));
  if (isHealthPath(info.path)) {
    const answer = healthAnswer(shardHealthChecks(svc), info.path, query);
    if (!answer) throw resourceNotFound();
    for (const [name, value] of Object.entries(answer.headers)) if (name !== 'content-type') reply.header(name, value);
    return sendBody(reply, answer.code, answer.headers['content-type']!, answer.body);
  }
  const resolved = svc.clusters.resolve(info.cluster, authenticated, info);
  // Nothing to await on the common path (no other shard's export involved).
  const preparing = svc.prepareAuthorization?.(resolved.cluster, authenticated, info);
  if (preparing) return preparing.then(() => routeAuthorized(svc, request, reply, asked, info, query, authenticated, resolved));
  return routeAuthorized(svc, request, reply, asked, info, query, authenticated, resolved);
}

function routeAuthorized(
  svc: RouterServices,
  request: FastifyRequest,
  reply: FastifyReply,
  asked: ImpersonationRequest | undefined,
  info: RequestInfo,
  query: URLSearchParams,
  authenticated: UserInfo,
  resolved: ResolvedCluster,
): unknown {
  const user = authorizeRequest(svc, asked, info, authenticated, resolved.cluster);
  // The shard's metrics count every tenant's requests (their groups and resources are label values): they are served
  // only under root's policy (the bare URL, /clusters/root, root's own service accounts), never because a user is
  // admin of some workspace of their own, such as their home.
  if (svc.metrics && info.path === '/metrics' && request.method === 'GET') {
    if (resolved.cluster !== undefined && resolved.cluster !== 'root') throw resourceNotFound();
    return svc.metrics.serve(reply);
  }
  const filter = isWorkspaceList(info) ? svc.workspaceChildren?.(user) : undefined;
  return serveResolved(svc, request, reply, info, query, user, resolved, filter);
}

/**
 * The services of a request a scope confines: its store is the scoped view and its generic store runs over that view,
 * so every path of the handler reads and writes through the scope. What does not go through the store (minting a
 * service account's token) is not offered.
 */
export function scopedServices<S extends ResourceServices>(svc: S, scope: StorageScope): S {
  const store = scopedStore(svc.store, scope);
  return { ...svc, store, generic: svc.generic.over(store), tokenRequests: undefined };
}

function both(a: ((obj: KubeObject) => boolean) | undefined, b: (obj: KubeObject) => boolean): (obj: KubeObject) => boolean {
  return a ? (obj) => a(obj) && b(obj) : b;
}

/**
 * The path and query of a request target, the path exactly as sent. A WHATWG URL would resolve dot segments, and
 * `%2e%2e` counts as one there: `DELETE …/configmaps/%2e%2e` became a DELETE of the namespace. Here `%2e%2e` stays a
 * segment, which the request-info parser refuses.
 */
export function requestTarget(target: string): { pathname: string; searchParams: URLSearchParams } {
  const q = target.indexOf('?');
  const pathname = q === -1 ? target : target.slice(0, q);
  const hash = pathname.indexOf('#');
  return {
    pathname: hash === -1 ? pathname : pathname.slice(0, hash),
    searchParams: requestQuery(q === -1 ? '' : target.slice(q + 1)),
  };
}

/**
 * Who the request runs as (impersonation applied), once the authorizer allows it in `cluster`. A refusal in a
 * workspace the user may not enter, reached by a path they could not have listed, is answered as if nothing were
 * there: otherwise "access denied" versus "workspace access not permitted" would tell which workspaces exist.
 */
function authorizeRequest(svc: RouterServices, asked: ImpersonationRequest | undefined, info: RequestInfo, authenticated: UserInfo, cluster: string | undefined): UserInfo {
  try {
    // A service account outside its own workspace is a foreign identity there.
    const actor = identityInCluster(authenticated, cluster);
    const user = asked ? impersonate(svc.authorizer, cluster, actor, asked) : actor;
    const attrs = requestAttributes(info);
    const decision = svc.authorizer.authorize(cluster, user, attrs);
    if (!decision.allowed) throw forbiddenError(user.username, attrs, decision.reason);
    return user;
  } catch (err) {
    const entered = cluster !== undefined && svc.authorizer.subjectInside(cluster, authenticated) !== undefined;
    throw (entered ? undefined : svc.clusters.concealed?.(info.cluster, authenticated, info)) ?? err;
  }
}

/** kcp's gatekeeper: asking to be in a privileged group one is not in is refused wherever the request goes. */
function gateImpersonation(request: FastifyRequest, user: UserInfo): void {
  const asked = impersonationHeaders(request.raw.rawHeaders);
  if (asked) checkImpersonationPrivilege(user.groups, asked);
}

/** A list or watch of Workspaces in one workspace (what `kubectl get workspaces` sends). */
function isWorkspaceList(info: RequestInfo): boolean {
  return (
    info.isResourceRequest &&
    (info.verb === 'list' || info.verb === 'watch') &&
    info.group === 'tenancy.kcp.io' &&
    info.resource === 'workspaces' &&
    !info.subresource &&
    !info.cluster.wildcard
  );
}

/** The one cluster a cluster-bound identity (a service account) belongs to. */
function homeClusterOf(user: UserInfo): string | undefined {
  const clusters = user.extra?.[CLUSTER_NAME_EXTRA];
  return clusters?.length === 1 ? clusters[0] : undefined;
}

/** Serves a request whose logical cluster (and API set) is known: OpenAPI, discovery, or a resource. */
function serveResolved(
  svc: RouterServices,
  request: FastifyRequest,
  reply: FastifyReply,
  info: RequestInfo,
  query: URLSearchParams,
  user: UserInfo,
  resolved: ResolvedCluster,
  filter?: (obj: KubeObject) => boolean,
  grant?: WriteGrant,
): unknown {
  if (info.path === '/openapi/v2') return svc.openapi.serveV2(resolved.catalog, request, reply);
  if (info.path.startsWith('/openapi/v2/')) throw resourceNotFound();
  if (info.path === '/openapi/v3' || info.path.startsWith('/openapi/v3/')) {
    return svc.openapi.serve(resolved.catalog, info.path, query, request, reply);
  }
  if (info.apiPrefix === '') throw resourceNotFound();
  if (!info.isResourceRequest) return serveDiscovery(svc, resolved.catalog, info.apiPrefix, info.group, info.version, request, reply);
  if (resolved.baseUrl) {
    // kcp answers 500 "no cluster found in the context" here; it is the client's mistake, so say so with a 400.
    throw new StatusError(
      400,
      'BadRequest',
      'no cluster found in the context: send requests to /clusters/<workspace>/… (for example /clusters/root)',
      {},
    );
  }
  if (isHomeRequest(info, resolved.cluster) && svc.homes) {
    const rt = resolved.catalog.find(info.group, info.version, info.resource);
    if (rt) return serveHome(svc, svc.homes, request, reply, info, user, rt);
  }
  const req = apiRequest(request, info, query, user, resolved.cluster, resolved.catalog, filter);
  if (grant) req.grant = grant;
  return handleResourceRequest(svc, req, reply);
}

/** The caller's home workspace (`~` in root), made first when there is none and they may have one. */
async function serveHome(
  svc: RouterServices,
  homes: NonNullable<RouterServices['homes']>,
  request: FastifyRequest,
  reply: FastifyReply,
  info: RequestInfo,
  user: UserInfo,
  rt: ResourceType,
): Promise<unknown> {
  // Those who may have no home are refused even where one exists (made before they were refused).
  if (!mayHaveHome(user)) mayCreateHome(svc.authorizer, user, info);
  const home = await homes.get(user, () => mayCreateHome(svc.authorizer, user, info));
  return sendAnswer(reply, 200, renderObject(rt, home, renderOptions(rt, negotiationRequest(request))));
}

const emptyCatalog = new StaticCatalog([], 'empty');

const shardChecks = new WeakMap<RouterServices, HealthChecks>();
/** A shard is ready once it has started: bootstrapped, controllers running, admin.kubeconfig written. */
function shardHealthChecks(svc: RouterServices): HealthChecks {
  let checks = shardChecks.get(svc);
  if (!checks) {
    checks = healthChecks([{ name: 'poststarthook/kcpt-bootstrap', run: () => (svc.isReady() ? undefined : 'not finished') }]);
    shardChecks.set(svc, checks);
  }
  return checks;
}

function apiRequest(
  request: FastifyRequest,
  info: RequestInfo,
  query: URLSearchParams,
  user: UserInfo,
  cluster: string | undefined,
  catalog: ClusterCatalog,
  filter?: (obj: KubeObject) => boolean,
): ApiRequest {
  return {
    method: request.method,
    info,
    query,
    accept: request.headers.accept,
    contentType: request.headers['content-type'],
    body: request.body as Buffer | undefined,
    userAgent: request.headers['user-agent'],
    user,
    cluster,
    catalog,
    filter,
    headers: request.headers,
    ...(request.headers[DEEP_SAR_HEADER] === 'true' && user.groups.includes('system:masters') ? { deepReview: true } : {}),
  };
}

/** kcp's header asking for a SubjectAccessReview answered by RBAC alone (honoured for system:masters callers). */
export const DEEP_SAR_HEADER = 'x-kcp-internal-deep-subjectaccessreview';

/** `GET /clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces/~`: the one request that creates a home. */
function isHomeRequest(info: RequestInfo, cluster: string | undefined): boolean {
  return (
    cluster === 'root' &&
    info.isResourceRequest &&
    info.verb === 'get' &&
    info.group === 'tenancy.kcp.io' &&
    info.resource === 'workspaces' &&
    info.name === '~' &&
    !info.subresource
  );
}

/**
 * A missing home is created only for the home-creator groups (`create` on the Workspace `~` in root), and only for
 * people: a service account belongs to its workspace, and outside it is `system:anonymous`, a name every foreign
 * account shares, so a home for it would be one workspace shared by all tenants.
 */
function mayCreateHome(authorizer: Authorizer, user: UserInfo, info: RequestInfo): void {
  const attrs = { ...requestAttributes(info), verb: 'create' };
  if (!mayHaveHome(user) || !authorizer.authorize('root', user, attrs).allowed) throw forbiddenError(user.username, attrs, WORKSPACE_ACCESS_NOT_PERMITTED);
}

function mayHaveHome(user: UserInfo): boolean {
  return user.username !== ANONYMOUS_USER && !user.username.startsWith('system:serviceaccount:') && !user.extra?.[CLUSTER_NAME_EXTRA]?.length;
}

/**
 * The user the request gate authenticated, or (a router driven without the gate) authenticated here. Synchronous when
 * the gate saw the request: awaiting it then costs no turn.
 */
function authenticate(svc: RouterServices, request: FastifyRequest, path: string): UserInfo | Promise<UserInfo> {
  const user = authenticatedUser(request);
  if (user) {
    // The gate let an anonymous read through only on a public path; the router's parse of the path decides.
    if (user === ANONYMOUS && !isPublicPath(path)) throw unauthorized();
    return user;
  }
  return authenticateRequest(svc.authenticator, request.method, path, request.headers.authorization);
}

function serveDiscovery(
  svc: RouterServices,
  catalog: ClusterCatalog,
  prefix: 'api' | 'apis',
  group: string,
  version: string,
  request: FastifyRequest,
  reply: FastifyReply,
): unknown {
  reply.header('vary', 'Accept');
  if (prefix === 'api' && !version) {
    const format = negotiateDiscovery(request.headers.accept);
    if (format === 'legacy') return sendCached(reply, request, legacyAPIVersions(svc.serverAddress), 'application/json');
    return sendCached(reply, request, aggregatedDiscovery(catalog, true, format), aggregatedContentType(format));
  }
  if (prefix === 'apis' && !group) {
    const format = negotiateDiscovery(request.headers.accept);
    if (format === 'legacy') return sendCached(reply, request, legacyAPIGroupList(catalog), 'application/json');
    return sendCached(reply, request, aggregatedDiscovery(catalog, false, format), aggregatedContentType(format));
  }
  const doc = version ? legacyResourceList(catalog, prefix === 'api' ? '' : group, version) : legacyAPIGroup(catalog, group);
  if (!doc) throw resourceNotFound();
  return sendCached(reply, request, doc, 'application/json');
}

/** Discovery answers carry an ETag so kubectl's HTTP cache can revalidate with a cheap 304. */
function sendCached(reply: FastifyReply, request: FastifyRequest, body: unknown, contentType: string): FastifyReply {
  const text = JSON.stringify(body);
  const etag = `"${hashText(text)}"`;
  reply.header('etag', etag);
  if (request.headers['if-none-match'] === etag) return reply.code(304).send();
  return sendBody(reply, 200, contentType, text);
}

function hashText(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}
