/** What the steps of one Workspace's reconcile share. */
import type { StepResult } from '../../controllers/reconcile-steps.js';
import type { KeyValue } from '../../storage/store.js';
import { SHARD_ANNOTATION } from '../../machinery/kcp-names.js';
import type { Workspace } from '../workspace-resource.js';
import type { WorkspaceControllerDeps } from './deps.js';

export interface WorkspaceState {
  deps: WorkspaceControllerDeps;
  /** The workspace's parent cluster. */
  parent: string;
  ws: Workspace;
  /** The stored row `ws` was read from. */
  row: KeyValue;
  /** Its LogicalCluster is hosted by another shard: followed over the network. */
  elsewhere: boolean;
}

export function workspaceState(deps: WorkspaceControllerDeps, parent: string, ws: Workspace, row: KeyValue): WorkspaceState {
  const shard = ws.metadata?.annotations?.[SHARD_ANNOTATION];
  const elsewhere = shard !== undefined && shard !== deps.shardName && deps.remote !== undefined;
  return { deps, parent, ws, row, elsewhere };
}

/** A step's result from work that may be asynchronous and may ask to look again (synchronous work stays so). */
export function stopAfter(work: void | { requeueAfterMs: number } | undefined | Promise<void | { requeueAfterMs: number } | undefined>): StepResult | Promise<StepResult> {
  if (work instanceof Promise) return work.then((result) => result ?? 'stop');
  return work ?? 'stop';
}
