/**
 * A LogicalCluster created here by another shard for its workspace (its owner is not a workspace of this shard):
 * brought up when it arrives, and made Ready once its initializers are gone (the owner's shard follows).
 */
import type { ReconcileResult } from '../../controllers/work-queue.js';
import { nowTimestamp } from '../../registry/object-rules.js';
import { decodeStored } from '../../registry/stored-object.js';
import { logicalClusterKey, workspaceKey } from '../cluster-paths.js';
import { logicalClusterProgress, type LogicalClusterView } from '../workspace-progress.js';
import type { WorkspaceControllerDeps } from './deps.js';

export function reconcileHostedCluster(deps: WorkspaceControllerDeps, cluster: string): ReconcileResult | void {
  const row = deps.store.get(logicalClusterKey(cluster));
  if (!row) return undefined;
  const lc = decodeStored(row) as LogicalClusterView;
  const owner = lc.spec?.owner;
  if (lc.metadata?.deletionTimestamp || !owner?.cluster || !owner.name) return undefined;
  if (deps.store.get(workspaceKey(owner.cluster, owner.name))) return undefined;
  if (!lc.status?.phase || lc.status.phase === 'Scheduling') return deps.scheduler.hostLogicalCluster(cluster, row, lc);
  if (lc.status.phase !== 'Initializing') return undefined;
  const next = logicalClusterProgress(lc, lc.status.initializers ?? [], nowTimestamp());
  if (next) deps.generic.update({ rt: deps.types.logicalClusters, cluster, namespace: '' }, 'cluster', next, { withStatus: true });
  return undefined;
}
