/** The tenancy.kcp.io Workspace as the CLI reads it, and the requests the ws commands make. */
import { ApiError, ClientError } from './errors.js';
import type { KubeClient, WatchEvent } from './http-client.js';
import { baseName, parentPath } from './workspace-path.js';

export interface TypeReference {
  name: string;
  path?: string;
}

export interface Workspace {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; resourceVersion?: string; annotations?: Record<string, string>; deletionTimestamp?: string; [k: string]: unknown };
  spec?: { type?: TypeReference; URL?: string; cluster?: string; mount?: unknown; location?: unknown; [k: string]: unknown };
  status?: { phase?: string; [k: string]: unknown };
}

interface List<T> {
  items?: T[];
  metadata?: { continue?: string };
}

const group = '/apis/tenancy.kcp.io/v1alpha1/workspaces';

/** `root:organization`; a type without a path prints as its bare name (kcp's logicalcluster Join of an empty path). */
export function typeString(type: TypeReference | undefined): string | undefined {
  if (!type) return undefined;
  return type.path ? `${type.path}:${type.name}` : type.name;
}

export function getWorkspace(client: KubeClient, parentPath: string, name: string): Promise<Workspace> {
  return client.get<Workspace>(`/clusters/${parentPath}${group}/${encodeURIComponent(name)}`);
}

export function createWorkspace(client: KubeClient, parentPath: string, body: Workspace): Promise<Workspace> {
  return client.post<Workspace>(`/clusters/${parentPath}${group}`, body);
}

export async function deleteWorkspace(client: KubeClient, parentPath: string, name: string): Promise<void> {
  await client.request('DELETE', `/clusters/${parentPath}${group}/${encodeURIComponent(name)}`);
}

/**
 * The events of one workspace after `resourceVersion` (a watch on the parent's workspaces narrowed to the name),
 * until the server ends the watch after `timeoutSeconds` or `signal` aborts.
 */
export function watchWorkspace(
  client: KubeClient,
  parentPath: string,
  name: string,
  opts: { resourceVersion?: string; timeoutSeconds: number; signal?: AbortSignal },
): AsyncGenerator<WatchEvent<Workspace>> {
  return client.watch<Workspace>(`/clusters/${parentPath}${group}`, {
    query: {
      fieldSelector: `metadata.name=${name}`,
      resourceVersion: opts.resourceVersion,
      allowWatchBookmarks: true,
      timeoutSeconds: opts.timeoutSeconds,
    },
    signal: opts.signal,
  });
}

/**
 * The children of a workspace; an empty list where the Workspace API is not served there (404 for the resource).
 * A 404 naming the workspace itself (its path does not exist) is thrown: there is no tree to show.
 */
export async function listChildren(client: KubeClient, path: string, opts: { explainForbidden?: boolean } = {}): Promise<Workspace[]> {
  const items: Workspace[] = [];
  let token: string | undefined;
  do {
    let page: List<Workspace>;
    try {
      page = await client.get<List<Workspace>>(`/clusters/${path}${group}`, { query: { limit: 500, continue: token } });
    } catch (err) {
      if (err instanceof ApiError && err.notFound && err.body?.details?.name !== path) return items;
      if (err instanceof ApiError && err.forbidden && (opts.explainForbidden ?? true)) throw await notFoundBehindProxy(client, path, err);
      throw err;
    }
    items.push(...(page.items ?? []));
    token = page.metadata?.continue || undefined;
  } while (token);
  return items;
}

/**
 * A front-proxy answers 403 "workspace access not permitted" for a path no workspace has, where a shard answers 404
 * (kcp's proxy, and kcpt's: it cannot tell a missing workspace from a hidden one). As kcp's plugin does, the parent
 * says which: the shard's NotFound for `path` when the parent holds no such workspace (or is itself missing), else
 * the 403 as it came.
 */
export async function notFoundBehindProxy(client: KubeClient, path: string, forbidden: ApiError): Promise<ApiError> {
  for (let missing = path, parent = parentPath(path); parent !== undefined; missing = parent, parent = parentPath(parent)) {
    try {
      await getWorkspace(client, parent, baseName(missing));
      return forbidden;
    } catch (err) {
      if (err instanceof ApiError && err.notFound) {
        return new ApiError(404, { kind: 'Status', status: 'Failure', reason: 'NotFound', code: 404, message: `workspaces.tenancy.kcp.io "${path}" not found`, details: { name: path, group: 'tenancy.kcp.io', kind: 'workspaces' } }, '');
      }
      if (!(err instanceof ApiError && err.forbidden)) return forbidden;
    }
  }
  return forbidden;
}

const indexUrl = `/services/workspaces/all/clusters/*${group}`;
/** kcpt's workspace index header (src/engine/virtual/workspace-index.ts): the list holds every scheduled workspace. */
const indexScopeHeader = 'kcpt-workspace-index-scope';
const everyWorkspace = 'every-workspace';

/**
 * Every workspace the user may enter, from the workspace index virtual workspace. Where there is none (kcp, or
 * a front-proxy that does not merge the shards' indexes), the tree is walked instead: see walkReachable.
 */
export async function listReachable(client: KubeClient): Promise<Workspace[]> {
  try {
    const list = await client.get<List<Workspace>>(indexUrl);
    return list.items ?? [];
  } catch (err) {
    if (err instanceof ApiError && err.notFound) return walkReachable(client);
    throw err;
  }
}

/**
 * The workspaces below root and below the user's home, level by level (children of a level concurrently), each with
 * its path in `kcp.io/path`. A workspace counts as one the user may enter when its own workspaces can be listed: a 403
 * there leaves it (and what is below it) out, as the index leaves out what the user may not enter.
 */
async function walkReachable(client: KubeClient): Promise<Workspace[]> {
  const found = new Map<string, Workspace>();
  const withPath = (ws: Workspace, path: string): Workspace => ({
    ...ws,
    metadata: { ...ws.metadata, annotations: { ...ws.metadata.annotations, 'kcp.io/path': path } },
  });
  /** Lists the workspaces in `path` and below; false when the user may not list there. */
  const visit = async (path: string): Promise<boolean> => {
    let children: Workspace[];
    try {
      children = await listChildren(client, path, { explainForbidden: false });
    } catch (err) {
      if (err instanceof ApiError && (err.forbidden || err.notFound)) return false;
      throw err;
    }
    await Promise.all(
      children
        .filter((ws) => !beingDeleted(ws) && ws.spec?.mount === undefined)
        .map(async (ws) => {
          const childPath = `${path}:${ws.metadata.name}`;
          if (found.has(childPath)) return;
          found.set(childPath, withPath(ws, childPath));
          if (!(await visit(childPath))) found.delete(childPath);
        }),
    );
    return true;
  };
  const home = await getHome(client).catch(() => undefined);
  await visit('root');
  const homeAt = home && pathOfUrl(home.spec?.URL);
  if (home && homeAt && !found.has(homeAt)) {
    found.set(homeAt, withPath(home, homeAt));
    await visit(homeAt);
  }
  return [...found.values()];
}

/** The workspace path a workspace URL (`https://host/clusters/<path>`) ends in. */
function pathOfUrl(url: string | undefined): string | undefined {
  try {
    const { pathname } = new URL(url ?? '');
    const at = pathname.indexOf('/clusters/');
    return at < 0 ? undefined : pathname.slice(at + '/clusters/'.length);
  } catch {
    return undefined;
  }
}

/**
 * Every scheduled workspace of the server in one request, when the workspace index says its answer is all of them
 * (the user enters everywhere). Undefined where it cannot: no index (kcp, 404), not allowed (403), or an answer
 * limited to what this user may enter (a child they may list but not enter in its parent would be missing).
 *
 * `slim` asks for the index's server-side printed Table, cells only (`includeObject=None`: Name, Type, Phase, URL):
 * a tenth of the bytes of whole Workspaces to send and parse. Its Workspaces carry name, `kcp.io/path` (from the URL),
 * spec.URL and status.phase, but no spec.type (the Type column has the name without its path) and no other metadata:
 * a workspace whose deletion has begun shows by its phase (kcpt's index prints it `Deleting` from the first moment,
 * see beingDeleted). Callers that print types ask for whole objects.
 */
export async function listEveryWorkspace(client: KubeClient, opts: { slim?: boolean } = {}): Promise<Workspace[] | undefined> {
  try {
    const { body, headers } = await client.requestWithHeaders<List<Workspace> | IndexTable>('GET', indexUrl, {
      ...(opts.slim ? { accept: tableAccept, query: { includeObject: 'None' } } : {}),
    });
    if (headers[indexScopeHeader] !== everyWorkspace) return undefined;
    return isTable(body) ? workspacesOfTable(body) : (body.items ?? []);
  } catch (err) {
    if (err instanceof ApiError && (err.notFound || err.forbidden)) return undefined;
    throw err;
  }
}

/** kube's server-side printing, with plain JSON as the fallback for a server that does not print tables. */
const tableAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

interface IndexTable {
  kind: 'Table';
  columnDefinitions?: { name: string }[];
  rows?: { cells?: unknown[]; object?: { metadata?: Workspace['metadata'] } }[];
}

function isTable(body: List<Workspace> | IndexTable): body is IndexTable {
  return (body as IndexTable).kind === 'Table';
}

/**
 * The Workspaces a Table shows, with the Name, Phase and URL cells put back where they belong: each row's metadata
 * when the server sent it, else the name and the path the URL ends in (the index's `kcp.io/path` is that path).
 */
function workspacesOfTable(table: IndexTable): Workspace[] {
  const column = (name: string) => (table.columnDefinitions ?? []).findIndex((c) => c.name === name);
  const nameAt = Math.max(0, column('Name'));
  const phaseAt = column('Phase');
  const urlAt = column('URL');
  const cell = (cells: unknown[] | undefined, at: number) => {
    const value = at < 0 ? undefined : cells?.[at];
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  return (table.rows ?? []).map((row) => {
    const url = cell(row.cells, urlAt);
    const metadata = row.object?.metadata ?? metadataOfCells(String(row.cells?.[nameAt] ?? ''), url);
    return { metadata, spec: { URL: url }, status: { phase: cell(row.cells, phaseAt) } };
  });
}

function metadataOfCells(name: string, url: string | undefined): Workspace['metadata'] {
  const at = url?.lastIndexOf('/clusters/') ?? -1;
  return at < 0 ? { name } : { name, annotations: { 'kcp.io/path': url!.slice(at + '/clusters/'.length) } };
}

/**
 * Whether a workspace's deletion has begun (kcp's tree leaves those out): its deletionTimestamp, or, in a Table
 * without objects, its phase (Deleting/Terminating, which only a workspace being deleted has).
 */
export function beingDeleted(ws: Workspace): boolean {
  return Boolean(ws.metadata.deletionTimestamp) || ws.status?.phase === 'Deleting' || ws.status?.phase === 'Terminating';
}

/** The user's home workspace (kcp answers 429 + Retry-After while creating it; the client retries). */
export function getHome(client: KubeClient): Promise<Workspace> {
  return client.get<Workspace>(`/clusters/root${group}/~`);
}

/** The home workspace's path, from the `spec.URL` of the `~` Workspace in root. */
export async function homePath(client: KubeClient): Promise<string> {
  const home = await getHome(client);
  const path = pathOfUrl(home.spec?.URL);
  if (path === undefined) throw new ClientError(`invalid home workspace URL "${home.spec?.URL ?? ''}"`);
  return path;
}

interface LogicalCluster {
  metadata?: { annotations?: Record<string, string> };
  status?: { phase?: string };
}

function getLogicalCluster(client: KubeClient, path: string): Promise<LogicalCluster> {
  return client.get<LogicalCluster>(`/clusters/${path}/apis/core.kcp.io/v1alpha1/logicalclusters/cluster`);
}

/** The phase of a workspace's LogicalCluster (`Unknown` when it cannot be read). */
export async function logicalClusterPhase(client: KubeClient, path: string): Promise<string> {
  try {
    return (await getLogicalCluster(client, path)).status?.phase || 'Unknown';
  } catch {
    return 'Unknown';
  }
}

/**
 * A workspace's type (`root:organization`): from its Workspace in the parent, else (a user who may enter their home
 * but not read its Workspace in the bucket) from its own LogicalCluster, which records the type it was created with.
 */
export async function workspaceType(client: KubeClient, path: string): Promise<string | undefined> {
  if (path === 'root') return 'root';
  const parent = parentPath(path);
  if (parent !== undefined) {
    try {
      return typeString((await getWorkspace(client, parent, baseName(path))).spec?.type);
    } catch (err) {
      if (!(err instanceof ApiError && (err.forbidden || err.notFound))) throw err;
    }
  }
  return (await getLogicalCluster(client, path)).metadata?.annotations?.['internal.tenancy.kcp.io/type'] || undefined;
}

/** The canonical path (`kcp.io/path`) of the workspace an alias such as `user:<name>` reaches. */
export async function canonicalPath(client: KubeClient, alias: string): Promise<string | undefined> {
  return (await getLogicalCluster(client, alias)).metadata?.annotations?.['kcp.io/path'] || undefined;
}

/** A `--type` value: `root:organization` → { path: 'root', name: 'organization' }; a bare name leaves the path to admission. */
export function parseTypeFlag(type: string): TypeReference {
  const at = type.lastIndexOf(':');
  if (at < 0) return { name: type.toLowerCase() };
  return { name: type.slice(at + 1).toLowerCase(), path: type.slice(0, at) };
}
