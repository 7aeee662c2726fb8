/**
 * What the front-proxy does with one request. `/clusters/<path>/…` is resolved through the index and forwarded
 * to `<shard>/clusters/<cluster name>/…`; `/services/<vw>/…` goes to the shard hosting the cluster the virtual
 * workspace URL names; `/shards/<shard name>/…` goes to that shard as `/…` (the Shards' virtualWorkspaceURL in a
 * deployment behind this proxy: per-shard virtual workspace endpoints, such as an endpoint slice's URL or an
 * initializer's, reach their shard through the one proxy address); health checks and `/version` are answered here; mapping-file prefixes go to their backends;
 * the rest goes to the root shard (or the mapping file's `/`). kcp's answers where nothing can be routed: 403
 * "workspace access not permitted" for a path no workspace has, 503 "Not available." for a workspace that exists
 * but cannot be reached.
 */
import type http from 'node:http';
import { StatusError, badRequest, serviceUnavailable, unauthorized } from '../machinery/status.js';
import { isHealthPath, refuseUnroutedMethod, serverVersion } from '../endpoints/non-resource.js';
import { healthAnswer, healthChecks, type HealthChecks } from '../endpoints/health.js';
import { splitClusterPrefix } from '../endpoints/request-info.js';
import { WORKSPACE_ACCESS_NOT_PERMITTED } from '../authorization/forbidden.js';
import { homePath, type HomeOptions } from '../tenancy/home-workspaces.js';
import type { Backend } from './forwarder.js';
import { matchMapping, type PathMapping } from './mapping-file.js';
import type { ShardIndex } from './shard-index.js';
import type { TokenReviewer } from './token-reviewer.js';
import { serveWorkspaceIndex } from './workspace-index-fan-out.js';

export interface RouterDeps {
  index: ShardIndex;
  /** A forwarding pool per shard base URL or mapping backend. */
  backendFor(baseURL: string, caPem?: string): Backend;
  reviewer: TokenReviewer;
  homes: HomeOptions;
  mappings: readonly PathMapping[];
  /** `/clusters/` is resolved through the index (always without a mapping file; with one, if it maps /clusters). */
  resolveClusters: boolean;
  isReady(): boolean;
  log(line: string): void;
  /**
   * The proxy's own `Authorization` (its root kubeconfig's identity): what reads the Workspaces the merged workspace
   * index joins from other shards. Without it, each shard's index answers only what that shard stores.
   */
  ownAuthorization?: string;
}

/** Prefix of per-shard virtual workspace URLs: `/shards/<shard name>/services/…`. */
export const SHARDS_PREFIX = '/shards/';

/** The one resource of the workspace index virtual workspace. */
const WORKSPACES_RESOURCE = '/apis/tenancy.kcp.io/v1alpha1/workspaces';

/** A backend that stays down would log every request sent its way: once per backend per this long is enough. */
const UNREACHABLE_LOG_INTERVAL_MS = 10_000;

export class FrontProxyRouter {
  private readonly loggedUnreachable = new Map<string, number>();

  constructor(private readonly deps: RouterDeps) {}

  async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    try {
      await this.route(req, res);
    } catch (err) {
      if (err instanceof StatusError) sendStatus(res, err);
      else {
        this.deps.log(`front-proxy: ${req.method} ${req.url}: ${(err as Error).stack ?? String(err)}`);
        sendStatus(res, serviceUnavailable('Not available.'));
      }
    }
  }

  private async route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const rawUrl = req.url ?? '/';
    const q = rawUrl.indexOf('?');
    const path = q === -1 ? rawUrl : rawUrl.slice(0, q);
    const query = q === -1 ? '' : rawUrl.slice(q);

    // What the proxy answers itself (public paths) refuses the methods kube does not route, as a shard does.
    const ownAnswer = isHealthPath(path) || path === '/version' || path === '/version/';
    if (ownAnswer) refuseUnroutedMethod(req.method ?? 'GET');
    if (isHealthPath(path)) return this.health(path, query, res);
    if (path === '/version' || path === '/version/') return sendJson(res, 200, serverVersion);

    if (this.deps.resolveClusters && path.startsWith('/clusters/')) return this.clusterRequest(req, res, path, query);
    if (this.deps.resolveClusters && path.startsWith(SHARDS_PREFIX)) return this.shardRequest(req, res, path, query);
    const mapping = matchMapping(this.deps.mappings, path);
    if (mapping) return this.forward(req, res, this.deps.backendFor(mapping.backend, mapping.backendCaPem), rawUrl, 'the mapped backend');
    if (path.startsWith('/services/') && this.deps.resolveClusters) return this.virtualWorkspaceRequest(req, res, path, query);
    if (this.deps.mappings.length > 0) throw new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
    const root = this.deps.index.baseURLOf('root');
    if (!root) throw serviceUnavailable('Not available.');
    return this.forward(req, res, this.deps.backendFor(root), rawUrl, 'shard "root"');
  }

  private healthChecks?: HealthChecks;

  private health(path: string, query: string, res: http.ServerResponse): void {
    // Ready once the index has listed every shard.
    this.healthChecks ??= healthChecks([{ name: 'shard-index', run: () => (this.deps.isReady() ? undefined : 'not synced yet') }]);
    const answer = healthAnswer(this.healthChecks, path, new URLSearchParams(query));
    if (!answer) throw new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
    res.writeHead(answer.code, answer.headers).end(answer.body);
  }

  private async clusterRequest(req: http.IncomingMessage, res: http.ServerResponse, path: string, query: string): Promise<void> {
    let cluster;
    let rest: string;
    if (path.startsWith('/clusters/~')) {
      // `~` is the caller's home: who the caller is, root's TokenReview says.
      const slash = path.indexOf('/', '/clusters/'.length);
      const after = slash === -1 ? '' : path.slice(slash);
      const segment = path.slice('/clusters/'.length, slash === -1 ? undefined : slash);
      if (segment !== '~' && !segment.startsWith('~:')) throw badRequest(`invalid cluster: ${JSON.stringify(segment)} does not match the regex`);
      const user = await this.user(req);
      if (!user) throw unauthorized();
      ({ cluster, rest } = splitClusterPrefix(`/clusters/${homePath(user, this.deps.homes)}${segment.slice(1)}${after || '/'}`));
    } else {
      ({ cluster, rest } = splitClusterPrefix(path));
    }
    // The wildcard spans shards: kcp's front-proxy does not route it (ask each shard directly).
    if (cluster.wildcard) return this.refuse(req, path);
    const found = this.deps.index.lookup(cluster.path);
    if (found.kind === 'unknown') return this.refuse(req, path);
    if (found.kind === 'unavailable') throw serviceUnavailable('Not available.');
    return this.forward(req, res, this.deps.backendFor(found.baseURL), `/clusters/${found.cluster}${rest === '/' && !path.endsWith('/') ? '' : rest}${query}`, `shard "${found.shard}"`);
  }

  /**
   * `/shards/<name>/<rest>` → `<name>'s baseURL>/<rest>`: only virtual workspaces (`/services/…`) are reachable this
   * way; workspace content goes by `/clusters/<path>`, which needs no shard name. An unknown shard is a 404 (a URL
   * nobody published), a known one that does not answer a 503.
   */
  private shardRequest(req: http.IncomingMessage, res: http.ServerResponse, path: string, query: string): void {
    const slash = path.indexOf('/', SHARDS_PREFIX.length);
    const shard = decodeSegment(path.slice(SHARDS_PREFIX.length, slash === -1 ? undefined : slash));
    const rest = slash === -1 ? '' : path.slice(slash);
    const baseURL = this.deps.index.baseURLOf(shard);
    if (!baseURL || !rest.startsWith('/services/')) {
      req.resume();
      if (baseURL) throw new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
      throw new StatusError(404, 'NotFound', `shards.core.kcp.io "${shard}" not found`, { name: shard, group: 'core.kcp.io', kind: 'shards' });
    }
    return this.forward(req, res, this.deps.backendFor(baseURL), rest + query, `shard "${shard}"`);
  }

  /**
   * `/services/<vw>/<name>/clusters/<X>/…`: X (a path or cluster name) picks the shard and is replaced by its
   * cluster name, since a shard resolves only the paths it hosts. For `*`, the workspace named in the virtual
   * workspace's own name (the APIExport's, or the workspace type's of an initializer) picks the shard.
   */
  private async virtualWorkspaceRequest(req: http.IncomingMessage, res: http.ServerResponse, path: string, query: string): Promise<void> {
    const match = /^(\/services\/([^/]+)\/(.+?))(\/clusters\/([^/]+))(\/.*)?$/.exec(path);
    const index = this.deps.index;
    // The workspace index lists what one shard stores: with several shards, every shard's answer is merged.
    // Discovery and OpenAPI are the same everywhere: any shard answers those.
    if (match?.[2] === 'workspaces' && match[6] === WORKSPACES_RESOURCE && index.shardNames().length > 1) {
      const shardNamed = (name: string) => {
        const baseURL = index.baseURLOf(name);
        return baseURL === undefined ? undefined : { name, backend: this.deps.backendFor(baseURL) };
      };
      const shards = index.shardNames().flatMap((name) => shardNamed(name) ?? []);
      const authorization = this.deps.ownAuthorization;
      const resolution = authorization ? { authorization, shardOf: (cluster: string) => shardNamed(index.shardOf(cluster) ?? '') } : undefined;
      return serveWorkspaceIndex(req, res, shards, path, query, resolution);
    }
    let target = match?.[5] === '*' || !match ? undefined : index.lookup(decodeSegment(match[5]!));
    let forwardedPath = path;
    if (target?.kind === 'found') forwardedPath = `${match![1]}/clusters/${target.cluster}${match![6] ?? ''}`;
    if (!target && match) target = index.lookup(ownerOf(match[2]!, decodeSegment(match[3]!)));
    if (!target || target.kind === 'unknown') {
      const root = index.baseURLOf('root');
      if (!root) throw serviceUnavailable('Not available.');
      return this.forward(req, res, this.deps.backendFor(root), path + query, 'shard "root"');
    }
    if (target.kind === 'unavailable') throw serviceUnavailable('Not available.');
    return this.forward(req, res, this.deps.backendFor(target.baseURL), forwardedPath + query, `shard "${target.shard}"`);
  }

  private forward(req: http.IncomingMessage, res: http.ServerResponse, backend: Backend, path: string, what: string): void {
    backend.forward(req, res, path, (err) => {
      const now = Date.now();
      if (now - (this.loggedUnreachable.get(backend.baseURL) ?? 0) >= UNREACHABLE_LOG_INTERVAL_MS) {
        this.loggedUnreachable.set(backend.baseURL, now);
        this.deps.log(`front-proxy: ${req.method} ${req.url}: ${what} (${backend.address}) unreachable: ${err.message} (answering 503)`);
      }
      sendStatus(res, serviceUnavailable('Not available.'));
    });
  }

  /** kcp's 403 for a path it cannot route, naming the caller (401 first for a caller nobody knows). */
  private async refuse(req: http.IncomingMessage, path: string): Promise<never> {
    req.resume();
    const user = await this.user(req);
    if (!user) throw unauthorized();
    const verb = (req.method ?? 'GET').toLowerCase();
    throw new StatusError(403, 'Forbidden', `forbidden: User "${user}" cannot ${verb} path "${path}": ${WORKSPACE_ACCESS_NOT_PERMITTED}`, {});
  }

  private async user(req: http.IncomingMessage): Promise<string | undefined> {
    try {
      return await this.deps.reviewer.username(req.headers.authorization);
    } catch (err) {
      this.deps.log(`front-proxy: TokenReview at the root shard failed: ${(err as Error).message}`);
      throw serviceUnavailable('Not available.');
    }
  }
}

/** The workspace a virtual workspace's name lives in: the APIExport's (`<ws>/<export>`) or a type's (`<ws>:<type>`). */
function ownerOf(vw: string, name: string): string {
  if (vw === 'apiexport') return name.split('/')[0]!;
  const at = name.lastIndexOf(':');
  return at > 0 ? name.slice(0, at) : 'root';
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw badRequest(`invalid path segment ${JSON.stringify(segment)}`);
  }
}

function sendJson(res: http.ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

function sendStatus(res: http.ServerResponse, err: StatusError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  for (const [name, value] of Object.entries(err.headers ?? {})) res.setHeader(name, value);
  sendJson(res, err.code, err.toStatus());
}
