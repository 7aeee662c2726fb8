/**
 * Marker keys the workspace controller finds pending work by after a restart, without listing every workspace or
 * LogicalCluster: written by index writers in the same commit as the objects they mark (unlogged rows).
 */
import type { IndexWriter } from '../registry/index-writer.js';
import type { KubeObject } from '../registry/types.js';
import type { Store } from '../storage/store.js';
import { logicalClustersPrefix, workspacesPrefix } from './cluster-paths.js';

export const pendingPrefix = '/kcpt/pending/workspaces/';
export const isReady = (ws: KubeObject) => (ws.status as { phase?: string } | undefined)?.phase === 'Ready';

/**
 * Whether a stored Workspace is Ready and not being deleted, when its text alone can tell (false: parse it). Stored
 * JSON has its keys sorted and the Workspace schema prunes unknown ones, so the text ends with `status`, and with
 * `status.phase` unless `terminators` follow it; a label named `phase` sits in `metadata`, never at the end.
 */
export function isReadyText(text: string): boolean {
  return text.endsWith(',"phase":"Ready"}}') && !text.includes('"deletionTimestamp"');
}

/**
 * Marker keys for workspaces not Ready yet, written in the same commit as the workspace, so a restart resumes
 * them without listing every workspace. Workspaces being deleted need none: the generic store's deletion marker
 * (written with the deletionTimestamp) already names them.
 */
export function workspacePendingWriter(store: Store): IndexWriter {
  // A workspace being deleted is not Ready either (Deleting), but its deletion marker already names it.
  const needsMarker = (ws: KubeObject) => !isReady(ws) && !ws.metadata?.deletionTimestamp;
  return (key, before, after) => {
    if (!key.startsWith(workspacesPrefix)) return [];
    const now = after !== undefined && needsMarker(after);
    // A removed workspace takes its marker along (also one written by an older kcpt for a deletion).
    if (after !== undefined && before !== undefined && needsMarker(before) === now) return [];
    const marker = `${pendingPrefix}${key.slice(workspacesPrefix.length)}`;
    // A new workspace has no marker yet (a removed one took its marker along): no lookup.
    const exists = before !== undefined && store.get(marker) !== undefined;
    // Read only as they are now (at start-up and when a Shard changes): no event history needed.
    if (now && !exists) return [{ type: 'create', key: marker, value: '{}', unlogged: true }];
    if (!now && exists) return [{ type: 'delete', key: marker, unlogged: true }];
    return [];
  };
}

export const hostedPendingPrefix = '/kcpt/pending/logicalclusters/';
const isScheduling = (lc: KubeObject | undefined) => lc !== undefined && ((lc.status as { phase?: string } | undefined)?.phase ?? 'Scheduling') === 'Scheduling';

/**
 * A marker for a LogicalCluster still Scheduling (one another shard created here, not yet brought up), so a restart
 * finds it without listing every LogicalCluster. The local scheduler writes its LogicalClusters Initializing or Ready.
 */
export function hostedPendingWriter(store: Store): IndexWriter {
  return logicalClusterMarkerWriter(store, hostedPendingPrefix, isScheduling, { unlogged: true });
}

/**
 * An index writer keeping `<prefix><cluster>` present exactly while the cluster's LogicalCluster satisfies `holds`,
 * in the LogicalCluster's own commit. `unlogged`: the markers are only read as they are now (no watch of them).
 */
export function logicalClusterMarkerWriter(
  store: Store,
  prefix: string,
  holds: (lc: KubeObject | undefined) => boolean,
  { unlogged = false }: { unlogged?: boolean } = {},
): IndexWriter {
  const flag = unlogged ? { unlogged: true } : {};
  return (key, before, after) => {
    if (!key.startsWith(logicalClustersPrefix)) return [];
    const now = holds(after);
    if (holds(before) === now) return [];
    const marker = `${prefix}${key.slice(logicalClustersPrefix.length).split('/')[0]}`;
    // Only at a transition (a LogicalCluster created holding it, or ceasing to): one lookup then.
    const exists = store.get(marker) !== undefined;
    if (now && !exists) return [{ type: 'create', key: marker, value: '{}', ...flag }];
    if (!now && exists) return [{ type: 'delete', key: marker, ...flag }];
    return [];
  };
}
