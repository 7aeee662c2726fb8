/** How a workspace shows that its LogicalCluster is being deleted. */
import { PHASE_LABEL } from '../machinery/kcp-names.js';
import type { Workspace } from './workspace-resource.js';

/**
 * Sets `ws` (a copy the caller owns: its metadata and status are replaced, never edited) to Terminating while its
 * LogicalCluster's terminators run, mirroring them as while it was alive, then Deleting; kcp's metadata reconciler
 * labels every workspace being deleted `Deleting`, whatever its phase. Returns false when it shows that already.
 */
export function showDeleting(ws: Workspace, terminators: string[]): boolean {
  const phase = terminators.length > 0 ? 'Terminating' : 'Deleting';
  if (ws.status?.phase === phase && JSON.stringify(ws.status?.terminators ?? []) === JSON.stringify(terminators)) return false;
  const status: Workspace['status'] = { ...ws.status, phase, terminators };
  if (terminators.length === 0) delete status.terminators;
  ws.metadata = { ...ws.metadata, labels: { ...(ws.metadata?.labels ?? {}), [PHASE_LABEL]: 'Deleting' } };
  ws.status = status;
  return true;
}
