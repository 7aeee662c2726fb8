/**
 * Restoring a workspace subtree snapshot into a running server under a new path. Every object is written as a create
 * with the store's next revision (never the file's) and the secondary keys the server's index writers derive from it
 * (owner index, access subjects, binding index, …), parents before contents and the top Workspace last. On SQLite all
 * of it is one storage group — one transaction, watchers hear of it only once it is durable; elsewhere each object is
 * its own commit and a failure removes what was written. The server's watches then see the new CRDs, bindings and
 * workspaces like any other create: catalogs, paths and controllers pick them up from there.
 *
 * Every object passes the store's write authority (admission/write-authority.ts) as the restorer's write, and the paths
 * it carries are the system's: each LogicalCluster's `kcp.io/path` is the one the restored tree gives it (a cluster no
 * Workspace of the snapshot leads to gets none), and every object carrying its workspace's path gets that one, never
 * what the file says.
 */
import { alreadyExists, badRequest, notFound, StatusError } from '../machinery/status.js';
import { clusterOfKey, encodeStored } from '../registry/stored-object.js';
import type { KubeObject, ResourceType, StrategyContext } from '../registry/types.js';
import { deletionMarkerKey, fromStorage, type GenericStore } from '../registry/generic-store.js';
import type { Store, WriteOp } from '../storage/store.js';
import { logicalClusterKey, logicalClustersPrefix, workspaceKey, workspacesPrefix } from '../tenancy/cluster-paths.js';
import { tenancyResourceType } from '../tenancy/crds.js';
import { isValidPath, joinPath, newClusterName, PATH_ANNOTATION, splitPath } from '../machinery/kcp-names.js';
import { WORKSPACES } from './export.js';
import { parseSnapshot, SnapshotFormatError, type Snapshot } from './format.js';
import { relocate, type RelocatedObject } from './rewrite.js';

export interface SubtreeRestoreDeps {
  store: Store;
  generic: GenericStore;
  resolvePath(path: string): string | undefined;
  /** This server's external URL, for the restored Workspaces' spec.URL. */
  externalUrl?(): string;
}

export interface RestoreResult {
  path: string;
  /** Old cluster name → the one it was restored as. */
  clusters: Record<string, string>;
  objects: number;
  /** The store revision after the restore. */
  revision: number;
}

/** Storage order: what others live in or refer to comes first; the Workspace that makes the tree visible comes last. */
const RESOURCE_ORDER = [
  'core.kcp.io/logicalclusters',
  'core/namespaces',
  'apiextensions.k8s.io/customresourcedefinitions',
  'apis.kcp.io/apiresourceschemas',
  'apis.kcp.io/apiexports',
  'core/secrets',
  'core/serviceaccounts',
];

/**
 * Restores `body` (the snapshot's text, or the snapshot as read from a stream) as the workspace `asPath`. `user`: who
 * restores (the route's system:masters caller); absent, the server itself.
 */
export function restoreSubtree(deps: SubtreeRestoreDeps, body: string | Snapshot, asPath: string, user?: StrategyContext['user']): RestoreResult {
  let snapshot: Snapshot;
  try {
    snapshot = typeof body === 'string' ? parseSnapshot(body) : body;
  } catch (error) {
    throw invalidSnapshot(error);
  }
  const { header } = snapshot;
  if (header.scope !== 'workspace') {
    throw badRequest('this is a whole-store snapshot: restore it into a stopped root directory (kcpt snapshot restore FILE --root-directory DIR)');
  }
  if (!isValidPath(asPath)) throw badRequest(`invalid workspace path "${asPath}"`);
  const { parent, name } = splitPath(asPath);
  if (parent === undefined) throw badRequest(`cannot restore as "${asPath}": a restored workspace needs a parent (for example root:${asPath})`);
  const parentCluster = deps.resolvePath(parent);
  if (!parentCluster) throw notFound(WORKSPACES, parent);
  if (deps.store.get(workspaceKey(parentCluster, name))) throw alreadyExists(WORKSPACES, asPath);

  // Beside its originals (any of its clusters exists here) the subtree gets new cluster names; on another server it
  // keeps them, so URLs and kubeconfigs that name clusters keep working.
  const old = Object.keys(header.clusters!);
  const taken = old.some((c) => deps.store.get(logicalClusterKey(c)));
  const clusters = Object.fromEntries(old.map((c) => [c, taken ? newClusterName() : c]));
  let objects: RelocatedObject[];
  try {
    objects = relocate(header, snapshot.entries, { path: asPath, parentCluster, clusters, baseUrl: deps.externalUrl?.() });
  } catch (error) {
    throw invalidSnapshot(error);
  }
  if (!objects.some((o) => o.key === logicalClusterKey(clusters[header.workspace!.cluster]!))) {
    throw invalidSnapshot(new SnapshotFormatError(`it holds no LogicalCluster for its workspace ${header.workspace!.path}`));
  }
  admit(deps, objects, restoredPaths(objects, clusters[header.workspace!.cluster]!, asPath), user);
  write(deps, sortForRestore(objects, workspaceKey(parentCluster, name)));
  return { path: asPath, clusters, objects: objects.length, revision: deps.store.currentRevision() };
}

/** The path of every restored cluster the restored Workspaces lead to, from the top one (`asPath`) down. */
function restoredPaths(objects: RelocatedObject[], top: string, asPath: string): Map<string, string> {
  const children = new Map<string, Array<{ name: string; cluster: string }>>();
  for (const o of objects) {
    if (!o.key.startsWith(workspacesPrefix)) continue;
    const child = (o.object.spec as { cluster?: unknown } | undefined)?.cluster;
    const name = o.object.metadata?.name;
    if (typeof child !== 'string' || !child || !name) continue;
    const parent = clusterOfKey(o.key);
    children.set(parent, [...(children.get(parent) ?? []), { name, cluster: child }]);
  }
  const paths = new Map([[top, asPath]]);
  for (const [cluster, path] of paths) {
    for (const child of children.get(cluster) ?? []) if (!paths.has(child.cluster)) paths.set(child.cluster, joinPath(path, child.name));
  }
  return paths;
}

/** Each object as the system stores it, and refused where the write authority refuses it (nothing is written then). */
function admit(deps: SubtreeRestoreDeps, objects: RelocatedObject[], paths: Map<string, string>, user: StrategyContext['user']): void {
  const authority = deps.generic.authority;
  const known = (cluster: string) => paths.get(cluster);
  for (const o of objects) {
    const [, , storedGroup, resource] = o.key.split('/');
    const group = storedGroup === 'core' ? '' : storedGroup!;
    const cluster = clusterOfKey(o.key);
    if (o.key.startsWith(logicalClustersPrefix)) setPath(o.object, paths.get(cluster));
    const refusal = authority.review({ group, resource: resource!, cluster, ctx: { user }, object: o.object });
    if (refusal) throw refusal;
    authority.stamp(group, resource!, cluster, o.object, known);
  }
}

function setPath(lc: KubeObject, path: string | undefined): void {
  const meta = (lc.metadata ??= {});
  const { [PATH_ANNOTATION]: _old, ...rest } = meta.annotations ?? {};
  meta.annotations = path === undefined ? rest : { ...rest, [PATH_ANNOTATION]: path };
}

function sortForRestore(objects: RelocatedObject[], topKey: string): RelocatedObject[] {
  const rank = (o: RelocatedObject) => {
    if (o.key === topKey) return RESOURCE_ORDER.length + 1;
    const [, , group, resource] = o.key.split('/');
    const at = RESOURCE_ORDER.indexOf(`${group}/${resource}`);
    return at < 0 ? RESOURCE_ORDER.length : at;
  };
  return objects.map((o) => ({ o, r: rank(o) })).sort((a, b) => a.r - b.r).map(({ o }) => o);
}

let workspaceType: ResourceType | undefined;

/**
 * What is stored for a restored object. A Workspace is stored as a read gives it back (pruned and defaulted with this
 * build's schema, whatever the file holds): its type promises that to live watches (ResourceType.convert.storedAsRead).
 */
function storedText(o: RelocatedObject): string {
  if (!o.key.startsWith(workspacesPrefix)) return encodeStored(o.object);
  return encodeStored(fromStorage((workspaceType ??= tenancyResourceType('workspaces')), o.object));
}

/** One commit per object (index writers read what earlier ones wrote), all in one group where the store has them. */
function write(deps: SubtreeRestoreDeps, objects: RelocatedObject[]): void {
  const { store, generic } = deps;
  const written: RelocatedObject[] = [];
  const writeAll = () => {
    for (const o of objects) {
      const ops: WriteOp[] = [{ type: 'create', key: o.key, value: storedText(o) }, ...generic.indexOps(o.key, undefined, o.object)];
      // An object caught mid-deletion keeps being deleted: controllers find it by its marker, as after a restart.
      if (o.object.metadata?.deletionTimestamp) ops.push({ type: 'create', key: deletionMarkerKey(o.key), value: '{}' });
      try {
        store.commit(ops);
      } catch (error) {
        throw new StatusError(409, 'Conflict', `restoring ${o.key} failed: ${(error as Error).message}; nothing was restored`);
      }
      written.push(o);
    }
  };
  if (store.group) {
    store.group(writeAll);
    return;
  }
  try {
    writeAll();
  } catch (error) {
    for (const o of written.reverse()) {
      try {
        const marker = o.object.metadata?.deletionTimestamp ? [{ type: 'delete' as const, key: deletionMarkerKey(o.key) }] : [];
        store.commit([{ type: 'delete', key: o.key }, ...marker, ...generic.indexOps(o.key, o.object, undefined)]);
      } catch {
        // Best effort: keep removing the rest.
      }
    }
    throw error;
  }
}

export function invalidSnapshot(error: unknown): StatusError {
  if (error instanceof SnapshotFormatError) return badRequest(`invalid snapshot: ${error.message}`);
  throw error;
}
