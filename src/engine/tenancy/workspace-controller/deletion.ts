/**
 * A workspace being deleted: its LogicalCluster is deleted, the workspace shows Terminating/Deleting meanwhile (with
 * the terminators still to run), and it lets go of its finalizer once the LogicalCluster is gone. One hosted by
 * another shard is deleted there.
 */
import type { StepResult } from '../../controllers/reconcile-steps.js';
import { WriteBatch } from '../../registry/generic-store.js';
import { decodeStored } from '../../registry/stored-object.js';
import { logicalClusterKey } from '../cluster-paths.js';
import { LOGICAL_CLUSTER_FINALIZER } from '../../machinery/kcp-names.js';
import { showDeleting } from '../workspace-deleting.js';
import type { Workspace } from '../workspace-resource.js';
import type { LogicalClusterView } from '../workspace-progress.js';
import { stopAfter, type WorkspaceState } from './state.js';

export function deletionStep(state: WorkspaceState): StepResult | Promise<StepResult> {
  const { deps, parent, ws, row } = state;
  if (!ws.metadata?.deletionTimestamp) return 'continue';
  if (state.elsewhere) return stopAfter(deps.remote!.reconcileDeletion(parent, ws));
  const { generic, types, store } = deps;
  const name = ws.metadata!.name!;
  const cluster = ws.spec?.cluster;
  const lcRow = cluster ? store.get(logicalClusterKey(cluster)) : undefined;
  const lc = lcRow ? (decodeStored(lcRow) as LogicalClusterView) : undefined;
  const ours = lc && lc.spec?.owner?.uid === ws.metadata?.uid;
  if (lc && ours) {
    // Marking the LogicalCluster deleted and showing it on the workspace: one commit.
    const batch = new WriteBatch();
    let current = lc;
    if (!lc.metadata?.deletionTimestamp) {
      const held = { row: lcRow!, object: lc };
      current = generic.delete({ rt: types.logicalClusters, cluster: cluster!, namespace: '' }, 'cluster', { batch, current: held }).object as LogicalClusterView;
    }
    const next: Workspace = { ...ws };
    if (showDeleting(next, current.status?.terminators ?? [])) {
      generic.update({ rt: types.workspaces, cluster: parent, namespace: '' }, name, next, { batch, withStatus: true, current: { row, object: ws } });
    }
    generic.commitBatch(batch);
    return 'stop';
  }
  const finalizers = (ws.metadata?.finalizers ?? []).filter((f) => f !== LOGICAL_CLUSTER_FINALIZER);
  if (finalizers.length !== (ws.metadata?.finalizers ?? []).length) {
    generic.update({ rt: types.workspaces, cluster: parent, namespace: '' }, name, { ...ws, metadata: { ...ws.metadata, finalizers } });
  }
  return 'stop';
}
