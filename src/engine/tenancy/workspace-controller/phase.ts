/**
 * An Initializing workspace mirrors its LogicalCluster's initializers; when none is left, both turn Ready in one
 * commit. One hosted by another shard follows that shard's LogicalCluster.
 */
import type { StepResult } from '../../controllers/reconcile-steps.js';
import { nowTimestamp } from '../../registry/object-rules.js';
import { WriteBatch } from '../../registry/generic-store.js';
import { decodeStored } from '../../registry/stored-object.js';
import { logicalClusterKey } from '../cluster-paths.js';
import { followLogicalCluster, logicalClusterProgress, type LogicalClusterView } from '../workspace-progress.js';
import { stopAfter, type WorkspaceState } from './state.js';

export function phaseStep(state: WorkspaceState): StepResult | Promise<StepResult> {
  const { deps, parent, ws } = state;
  if (ws.status?.phase !== 'Initializing') return 'stop';
  if (state.elsewhere) return stopAfter(deps.remote!.follow(parent, ws));
  const { generic, types, store } = deps;
  const cluster = ws.spec!.cluster!;
  const row = store.get(logicalClusterKey(cluster));
  if (!row) return 'stop';
  const lc = decodeStored(row) as LogicalClusterView;
  const initializers = lc.status?.initializers ?? [];
  const now = nowTimestamp();
  const batch = new WriteBatch();
  // The LogicalCluster follows in the same commit.
  const nextLc = logicalClusterProgress(lc, initializers, now);
  if (nextLc) generic.update({ rt: types.logicalClusters, cluster, namespace: '' }, 'cluster', nextLc, { batch, withStatus: true });
  const next = followLogicalCluster(ws, initializers, lc.status?.conditions, now);
  if (next) generic.update({ rt: types.workspaces, cluster: parent, namespace: '' }, ws.metadata!.name!, next, { batch, withStatus: true });
  generic.commitBatch(batch);
  return 'stop';
}
