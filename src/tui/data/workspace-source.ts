/**
 * What the browser reads and writes on the server, over src/cli's KubeClient: one level of workspaces (list + watch),
 * the details of one workspace, its APIBindings, and the actions (create, delete, bind). Every request names its
 * workspace path, so nothing here ever lists the whole tree.
 */
import { bindingsUrl, createBinding, listExports, preferredBindingVersion, type APIBinding, type APIExport } from '../../client/apis-api.js';
import { ApiError } from '../../client/errors.js';
import type { KubeClient, WatchEvent } from '../../client/http-client.js';
import { limiter } from '../../client/limiter.js';
import { baseName, parentPath } from '../../client/workspace-path.js';
import { createWorkspace, getWorkspace, listReachable, parseTypeFlag, typeString, type Workspace } from '../../client/workspace-api.js';
import type { WorkspaceNode } from '../model/tree.js';

const workspaces = '/apis/tenancy.kcp.io/v1alpha1/workspaces';
const workspaceTypes = '/apis/tenancy.kcp.io/v1alpha1/workspacetypes';
const pageSize = 500;
/** How long one watch may run before the server ends it and the browser re-watches from where it was. */
const watchSeconds = 300;

interface List<T> {
  metadata?: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  items?: T[];
}

export interface Listed<T> {
  items: T[];
  resourceVersion?: string;
}

export interface ObjectCount {
  resource: string;
  /** Undefined where the user may not list it (the reason in `error`). */
  count?: number;
  error?: string;
}

export interface WorkspaceDetails {
  workspace?: Workspace;
  /** Why the Workspace object could not be read (e.g. 403 in the parent). */
  workspaceError?: string;
  counts: ObjectCount[];
  children?: number;
}

export interface WorkspaceTypeChoice {
  /** `root:universal`, as `--type` takes it. */
  reference: string;
  description?: string;
}

export interface ExportChoice {
  path: string;
  name: string;
  /** What binding it brings: the exported resources, `widgets.example.io`. */
  resources: string[];
}

export interface BindableExports {
  exports: ExportChoice[];
  /** Workspaces whose APIExports were read. */
  searched: number;
  /** APIExports seen but not offered: the user may not bind them. */
  notAllowed: number;
}

/** Requests in flight while looking for APIExports across workspaces. */
const searchConcurrency = 8;

interface WorkspaceTypeObject {
  metadata: { name: string; annotations?: Record<string, string> };
  spec?: {
    limitAllowedChildren?: { none?: boolean; types?: { name: string; path?: string }[] };
    limitAllowedParents?: { none?: boolean; types?: { name: string; path?: string }[] };
  };
}

/** Resources whose counts the details pane shows (core/v1, present in every workspace). */
export const countedResources = ['namespaces', 'configmaps', 'secrets', 'serviceaccounts'] as const;

export function toNode(parent: string, ws: Workspace): WorkspaceNode {
  return {
    name: ws.metadata.name,
    path: `${parent}:${ws.metadata.name}`,
    type: typeString(ws.spec?.type),
    phase: ws.status?.phase,
    url: ws.spec?.URL,
    cluster: ws.spec?.cluster,
    deleting: Boolean(ws.metadata.deletionTimestamp),
    mount: Boolean(ws.spec?.mount),
  };
}

export class WorkspaceSource {
  constructor(readonly client: KubeClient) {}

  /** The top row: the workspace itself as its parent lists it (root has no parent: type root, phase Ready). */
  async topNode(path: string): Promise<WorkspaceNode> {
    const parent = parentPath(path);
    if (parent === undefined) return { name: path, path, type: path === 'root' ? 'root' : undefined, phase: 'Ready' };
    try {
      return toNode(parent, await getWorkspace(this.client, parent, baseName(path)));
    } catch (err) {
      // Users often may enter a workspace without reading its parent: show it by name.
      if (err instanceof ApiError && (err.forbidden || err.notFound)) return { name: baseName(path), path };
      throw err;
    }
  }

  async listLevel(path: string, signal?: AbortSignal): Promise<Listed<Workspace>> {
    return this.listAll<Workspace>(`/clusters/${path}${workspaces}`, signal);
  }

  watchLevel(path: string, resourceVersion: string | undefined, signal: AbortSignal): AsyncGenerator<WatchEvent<Workspace>> {
    return this.client.watch<Workspace>(`/clusters/${path}${workspaces}`, {
      query: { resourceVersion, allowWatchBookmarks: true, timeoutSeconds: watchSeconds },
      signal,
    });
  }

  async listBindings(path: string, signal?: AbortSignal): Promise<Listed<APIBinding>> {
    return this.listAll<APIBinding>(bindingsUrl(path), signal);
  }

  watchBindings(path: string, resourceVersion: string | undefined, signal: AbortSignal): AsyncGenerator<WatchEvent<APIBinding>> {
    return this.client.watch<APIBinding>(bindingsUrl(path), {
      query: { resourceVersion, allowWatchBookmarks: true, timeoutSeconds: watchSeconds },
      signal,
    });
  }

  /** The Workspace object, object counts and the number of children; each part fails on its own (403 shows as such). */
  async details(path: string, signal?: AbortSignal): Promise<WorkspaceDetails> {
    const parent = parentPath(path);
    const [workspace, counts, children] = await Promise.all([
      parent === undefined
        ? Promise.resolve({})
        : getWorkspace(this.client, parent, baseName(path)).then(
            (w) => ({ workspace: w }),
            (err: unknown) => ({ workspaceError: describe(err) }),
          ),
      Promise.all(countedResources.map((r) => this.count(path, `/api/v1/${r}`, r, signal))),
      this.count(path, workspaces, 'workspaces', signal),
    ]);
    return { ...workspace, counts, children: children.count };
  }

  /** items + remainingItemCount of a one-item page: a count without reading the collection. */
  private async count(path: string, rest: string, resource: string, signal?: AbortSignal): Promise<ObjectCount> {
    try {
      const page = await this.client.get<List<unknown>>(`/clusters/${path}${rest}`, { query: { limit: 1 }, signal });
      return { resource, count: (page.items?.length ?? 0) + (page.metadata?.remainingItemCount ?? 0) };
    } catch (err) {
      return { resource, error: describe(err) };
    }
  }

  async createChild(parent: string, name: string, type?: string): Promise<Workspace> {
    return createWorkspace(this.client, parent, {
      apiVersion: 'tenancy.kcp.io/v1alpha1',
      kind: 'Workspace',
      metadata: { name },
      spec: type ? { type: parseTypeFlag(type) } : {},
    });
  }

  async deleteWorkspace(path: string): Promise<void> {
    const parent = parentPath(path);
    if (parent === undefined) throw new Error(`${path} has no parent to delete it from`);
    await this.client.request('DELETE', `/clusters/${parent}${workspaces}/${encodeURIComponent(baseName(path))}`);
  }

  /**
   * The types a child of `parent` may have: the WorkspaceTypes of root and of the parent's own tree, minus those
   * the parent's type or the child type's allowed parents rule out (admission has the last word on `extend`).
   */
  async allowedChildTypes(parent: WorkspaceNode): Promise<WorkspaceTypeChoice[]> {
    const places = [...new Set(['root', ...ancestors(parent.path)])];
    const listed = await Promise.all(
      places.map((p) =>
        this.listAll<WorkspaceTypeObject>(`/clusters/${p}${workspaceTypes}`).then(
          (l) => l.items.map((t) => ({ place: p, t })),
          () => [],
        ),
      ),
    );
    const all = listed.flat();
    const parentType = all.find(({ place, t }) => `${place}:${t.metadata.name}` === parent.type)?.t;
    const childLimit = parentType?.spec?.limitAllowedChildren;
    if (childLimit?.none) return [];
    const refString = (r: { name: string; path?: string }) => (r.path ? `${r.path}:${r.name}` : r.name);
    return all
      .filter(({ place, t }) => {
        const reference = `${place}:${t.metadata.name}`;
        const parents = t.spec?.limitAllowedParents;
        if (parents?.none) return false;
        if (parents?.types?.length && !parents.types.some((r) => refString(r) === parent.type)) return false;
        return !childLimit?.types?.length || childLimit.types.some((r) => refString(r) === reference);
      })
      .map(({ place, t }) => ({ reference: `${place}:${t.metadata.name}`, description: t.metadata.annotations?.['kcp.io/description'] }))
      .sort((a, b) => (a.reference < b.reference ? -1 : 1));
  }

  /**
   * Every APIExport the user may bind, wherever it is: the workspaces the workspace index says the user may enter
   * (what `kcpt ws list` reads), root, and `path` with the workspaces above it (a user may enter a workspace without
   * seeing its parent in the index). A workspace whose APIExports the user may not list adds nothing; an export the
   * server says the user may not `bind` (a SelfSubjectAccessReview in its workspace, kcp's check on binding) is left
   * out and counted.
   */
  async bindableExports(path: string): Promise<BindableExports> {
    const indexed = await listReachable(this.client).catch(() => [] as Workspace[]);
    const places = [
      ...new Set([
        'root',
        ...ancestors(path),
        path,
        ...indexed.flatMap((ws) => {
          const p = ws.metadata.annotations?.['kcp.io/path'];
          return p && !ws.metadata.deletionTimestamp && !ws.spec?.mount ? [p] : [];
        }),
      ]),
    ];
    const limit = limiter(searchConcurrency);
    const found = await Promise.all(
      places.map((p) =>
        limit(() => listExports(this.client, p)).then(
          (items) => Promise.all(items.map(async (e) => ({ path: p, export: e, allowed: await limit(() => this.mayBind(p, e.metadata.name)) }))),
          () => [],
        ),
      ),
    );
    const all = found.flat();
    const exports = all
      .filter((e) => e.allowed)
      .map((e) => ({ path: e.path, name: e.export.metadata.name, resources: exportedResources(e.export) }))
      .sort((a, b) => compareText(`${a.path}:${a.name}`, `${b.path}:${b.name}`));
    return { exports, searched: places.length, notAllowed: all.length - exports.length };
  }

  /** Whether the server lets the user `bind` the export; true where it cannot say (no review API, not allowed to ask). */
  private async mayBind(path: string, name: string): Promise<boolean> {
    try {
      const review = await this.client.post<{ status?: { allowed?: boolean } }>(`/clusters/${path}/apis/authorization.k8s.io/v1/selfsubjectaccessreviews`, {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        spec: { resourceAttributes: { group: 'apis.kcp.io', resource: 'apiexports', verb: 'bind', name } },
      });
      return review.status?.allowed !== false;
    } catch {
      return true;
    }
  }

  /** `kcpt bind <path>:<export>` into `path`, without claims: the binding's phase then shows in the details pane. */
  async bind(path: string, choice: Pick<ExportChoice, 'path' | 'name'>): Promise<APIBinding> {
    const version = await preferredBindingVersion(this.client, path);
    return createBinding(
      this.client,
      path,
      { kind: 'APIBinding', metadata: { name: choice.name }, spec: { reference: { export: { path: choice.path, name: choice.name } } } },
      version,
    );
  }

  private async listAll<T>(url: string, signal?: AbortSignal): Promise<Listed<T>> {
    const items: T[] = [];
    let token: string | undefined;
    let resourceVersion: string | undefined;
    do {
      const page = await this.client.get<List<T>>(url, { query: { limit: pageSize, continue: token }, signal });
      items.push(...(page.items ?? []));
      resourceVersion ??= page.metadata?.resourceVersion;
      token = page.metadata?.continue || undefined;
    } while (token);
    return { items, resourceVersion };
  }
}

/** `widgets.example.io`, `things` (the core group): what an APIExport's resources are called. */
function exportedResources(e: APIExport): string[] {
  return (e.spec?.resources ?? []).map((r) => (r.group ? `${r.name}.${r.group}` : r.name));
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `root:a:b` → [`root`, `root:a`]. */
function ancestors(path: string): string[] {
  const out: string[] = [];
  for (let p = parentPath(path); p !== undefined; p = parentPath(p)) out.unshift(p);
  return out;
}

/** An error as the status line shows it: kubectl's `Error from server (Forbidden): …` for API errors. */
export function describe(err: unknown): string {
  if (err instanceof ApiError) return err.oneLine();
  return err instanceof Error ? err.message : String(err);
}
