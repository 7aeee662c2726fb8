/**
 * The marker rows the initializer finds its work by, written in the LogicalCluster's own commit: workspaces whose
 * type maintains its default bindings, and LogicalClusters that list the initializer. Nothing is ever scanned.
 */
import type { IndexWriter } from '../../registry/index-writer.js';
import type { KubeObject } from '../../registry/types.js';
import type { Store } from '../../storage/store.js';
import { logicalClustersPrefix } from '../../tenancy/cluster-paths.js';
import { TYPE_ANNOTATION, splitPath } from '../../machinery/kcp-names.js';
import { logicalClusterMarkerWriter } from '../../tenancy/pending-markers.js';
import type { WorkspaceType, WorkspaceTypes } from '../../tenancy/workspace-types.js';
import { APIBINDINGS_INITIALIZER, maintainsBindings } from '../default-bindings.js';
import type { LogicalClusterView } from './deps.js';

/** `/kcpt/apibindings/maintained/<cluster>`: a workspace whose type keeps its default bindings (`Maintain`). */
export const maintainedPrefix = '/kcpt/apibindings/maintained/';
/** Workspaces not Ready yet (the workspace controller's markers): where a restart finds initializations to resume. */
export const pendingWorkspacesPrefix = '/kcpt/pending/workspaces/';
/**
 * `/kcpt/apibindings/initializing/<cluster>`: a LogicalCluster of this shard that lists the initializer. The markers
 * above live with the Workspace, on its parent's shard: a shard hosting the LogicalCluster of a workspace of another
 * shard finds its initializations to resume here.
 */
export const initializingPrefix = '/kcpt/apibindings/initializing/';

/**
 * Marks, in the LogicalCluster's own commit, the workspaces whose type maintains its default bindings, and drops
 * the mark with the LogicalCluster. Other LogicalClusters cost one annotation read on create.
 */
export function maintainedWorkspacesWriter(store: Store, workspaceTypes: WorkspaceTypes): IndexWriter {
  return (key, before, after) => {
    if (!key.startsWith(logicalClustersPrefix)) return [];
    const cluster = key.slice(logicalClustersPrefix.length).split('/')[0]!;
    const marker = `${maintainedPrefix}${cluster}`;
    if (!after) return store.get(marker) ? [{ type: 'delete', key: marker }] : [];
    if (before) return [];
    const aliases = aliasesOf(workspaceTypes, after.metadata?.annotations?.[TYPE_ANNOTATION]);
    return aliases && maintainsBindings(aliases) ? [{ type: 'create', key: marker, value: '{}' }] : [];
  };
}

const listsInitializer = (lc: KubeObject | undefined) =>
  lc !== undefined && ((lc.status as LogicalClusterView['status'])?.initializers ?? []).includes(APIBINDINGS_INITIALIZER);

/** Marks, in the LogicalCluster's own commit, one that lists the initializer; drops the mark when it no longer does. */
export function initializingClustersWriter(store: Store): IndexWriter {
  return logicalClusterMarkerWriter(store, initializingPrefix, listsInitializer);
}

function aliasesOf(types: WorkspaceTypes, qualified: string | undefined): WorkspaceType[] | undefined {
  if (!qualified) return undefined;
  const { parent, name } = splitPath(qualified);
  const type = parent ? types.get(parent, name) : undefined;
  if (!type) return undefined;
  try {
    return types.aliases(type);
  } catch {
    return undefined;
  }
}
