/**
 * A workspace being deleted: its LogicalCluster is deleted, the workspace shows Terminating/Deleting meanwhile (with
 * the terminators still to run), and it lets go of its finalizer once the LogicalCluster is gone. One hosted by
 * another shard is deleted there.
 */
import type { StepResult } from '../../controllers/reconcile-steps.js';
import { WriteBatch } from '../../registry/generic-store.js';
import { decodeStored } from '../../registry/stored-object.js';
import { logicalClusterKey } from '../cluster-paths.js';
import { LOGICAL_CLUSTER_FINALIZER, PHASE_LABEL } from '../../machinery/kcp-names.js';
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
      current = generic.delete({ rt: types.logicalClusters, cluster: cluster!, namespace: '' }, 'cluster', { batch }).object as LogicalClusterView;
    }
    const terminators = current.status?.terminators ?? [];
    const phase = terminators.length > 0 ? 'Terminating' : 'Deleting';
    if (ws.status?.phase !== phase || JSON.stringify(ws.status?.terminators ?? []) !== JSON.stringify(terminators)) {
      // The terminators still to run are mirrored from the LogicalCluster, as while the workspace was alive.
      const status: Workspace['status'] = { ...ws.status, phase, terminators };
      if (terminators.length === 0) delete status.terminators;
      // kcp's metadata reconciler labels every workspace being deleted `Deleting`, whatever its phase.
      const next: Workspace = {
        ...ws,
        metadata: { ...ws.metadata, labels: { ...(ws.metadata?.labels ?? {}), [PHASE_LABEL]: 'Deleting' } },
        status,
      };
      const current = { row, object: ws };
      generic.update({ rt: types.workspaces, cluster: parent, namespace: '' }, name, next, { batch, withStatus: true, current });
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
