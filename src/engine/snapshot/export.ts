/**
 * Reading what a snapshot holds, each at one store revision: every key of the store, or the logical clusters of one
 * workspace subtree (the workspace, all its descendants, every object in them, and the subtree's own Workspace object
 * in its parent). Both reads are synchronous: no commit can land between them, so the result is the state at
 * `currentRevision()` without pinning a past revision.
 */
import { badRequest, notFound } from '../machinery/status.js';
import { clusterOfKey } from '../registry/stored-object.js';
import type { KeyValue, Store } from '../storage/store.js';
import { workspaceKey, workspacesPrefix } from '../tenancy/cluster-paths.js';
import { isValidPath, joinPath, ROOT_CLUSTER, splitPath } from '../machinery/kcp-names.js';
import { SNAPSHOT_KIND, SNAPSHOT_VERSION, type Snapshot, type SnapshotHeader } from './format.js';

const REGISTRY = '/registry/';
export const WORKSPACES = { group: 'tenancy.kcp.io', resource: 'workspaces' };
/** Sorts after every character a key segment holds: `startAfter` of `<prefix>\uffff` skips the whole prefix. */
const PAST_PREFIX = '\uffff';

function header(store: Store, scope: SnapshotHeader['scope']): SnapshotHeader {
  return { kind: SNAPSHOT_KIND, version: SNAPSHOT_VERSION, scope, revision: store.currentRevision(), createdAt: new Date().toISOString() };
}

/** Every key of the store (objects and the server's bookkeeping rows), with their revisions. */
export function exportStore(store: Store): Snapshot {
  const { items } = store.list('/', { countRemaining: false });
  return { header: header(store, 'store'), entries: items };
}

export interface SubtreeExportDeps {
  store: Store;
  resolvePath(path: string): string | undefined;
}

/** The subtree under workspace `path` (not root: the whole store is `exportStore`). */
export function exportSubtree(deps: SubtreeExportDeps, path: string): Snapshot {
  const { store } = deps;
  if (!isValidPath(path)) throw badRequest(`invalid workspace path "${path}"`);
  const { parent, name } = splitPath(path);
  if (parent === undefined || path === ROOT_CLUSTER) {
    throw badRequest(`"${path}" is not a workspace below root; to save everything, take a whole-store snapshot (no workspace)`);
  }
  const parentCluster = deps.resolvePath(parent);
  const cluster = deps.resolvePath(path);
  const top = parentCluster ? store.get(workspaceKey(parentCluster, name)) : undefined;
  if (!parentCluster || !cluster || !top) throw notFound(WORKSPACES, path);

  const clusters = subtreeClusters(store, cluster, path);
  const entries: KeyValue[] = [top];
  // Skip scan: one seek per resource to find the next one, then one range read per (resource, cluster).
  for (let after: string | undefined; ; ) {
    const next = store.list(REGISTRY, { startAfter: after, limit: 1, countRemaining: false }).items[0];
    if (!next) break;
    const [, , group, resource] = next.key.split('/');
    const resourcePrefix = `${REGISTRY}${group}/${resource}/`;
    for (const c of Object.keys(clusters)) entries.push(...store.list(`${resourcePrefix}${c}/`, { countRemaining: false }).items);
    after = `${resourcePrefix}${PAST_PREFIX}`;
  }
  return {
    header: { ...header(store, 'workspace'), workspace: { path, cluster, parentCluster }, clusters },
    entries,
  };
}

/** cluster → canonical path for `cluster` and every cluster below it, following Workspaces' spec.cluster. */
function subtreeClusters(store: Store, cluster: string, path: string): Record<string, string> {
  const found: Record<string, string> = { [cluster]: path };
  const queue = [cluster];
  while (queue.length > 0) {
    const current = queue.shift()!;
    for (const kv of store.list(`${workspacesPrefix}${current}/`, { countRemaining: false }).items) {
      const ws = JSON.parse(kv.value) as { metadata?: { name?: string }; spec?: { cluster?: string } };
      const child = ws.spec?.cluster;
      // A workspace not scheduled yet has no cluster and nothing in it.
      if (!child || child in found || clusterOfKey(kv.key) !== current) continue;
      found[child] = joinPath(found[current]!, ws.metadata?.name ?? '');
      queue.push(child);
    }
  }
  return found;
}
