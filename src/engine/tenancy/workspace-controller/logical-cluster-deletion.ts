/** A LogicalCluster being deleted: its terminators run first, then its content and itself are removed. */
import type { ReconcileResult } from '../../controllers/work-queue.js';
import { logicalClusterKey } from '../cluster-paths.js';
import type { LogicalClusterView } from '../workspace-progress.js';
import type { WorkspaceControllerDeps } from './deps.js';

export function reconcileLogicalClusterDeletion(deps: WorkspaceControllerDeps, cluster: string): ReconcileResult | undefined {
  const row = deps.store.get(logicalClusterKey(cluster));
  const lc = row ? (deps.deleter.storedObject(row) as LogicalClusterView) : undefined;
  if (!row || !lc?.metadata?.deletionTimestamp) return undefined;
  if ((lc.status?.terminators ?? []).length > 0) return undefined;
  const progress = deps.deleter.run(cluster, row, lc);
  // Child workspaces report back through their own DELETED events; other finalizers are polled.
  return progress.done || progress.heldByOthers === 0 ? undefined : { requeueAfterMs: 2000 };
}
