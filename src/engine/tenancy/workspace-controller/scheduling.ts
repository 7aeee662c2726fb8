/** A workspace without a LogicalCluster yet: placed on a shard, its LogicalCluster created (workspace-scheduler.ts). */
import type { StepResult } from '../../controllers/reconcile-steps.js';
import { stopAfter, type WorkspaceState } from './state.js';

export function schedulingStep({ deps, parent, ws, row }: WorkspaceState): StepResult | Promise<StepResult> {
  if (ws.spec?.cluster) return 'continue';
  return stopAfter(deps.scheduler.schedule(parent, ws, row));
}
