/**
 * How a Workspace and its LogicalCluster show initialization progress, as kcp's controllers keep them: the
 * LogicalCluster turns Ready once its last initializer is gone, and the Workspace mirrors its initializers and the
 * default-bindings conditions. Shared by the local workspace controller and the one following LogicalClusters on
 * other shards.
 */
import type { KubeObject } from '../registry/types.js';
import { logicalClusterLabels, PHASE_LABEL } from '../machinery/kcp-names.js';
import { annotationsForPhase, type Workspace } from './workspace-resource.js';
import { condition, workspaceConditions } from './workspace-scheduler.js';

export interface LogicalClusterView extends KubeObject {
  spec?: { owner?: { cluster?: string; name?: string; uid?: string } };
  status?: { phase?: string; initializers?: string[]; terminators?: string[]; conditions?: unknown[] };
}

/** LogicalCluster conditions a Workspace mirrors: how its default APIBindings are doing. */
const MIRRORED_CONDITIONS = new Set(['APIBindingsInitialized', 'APIBindingsReconciled']);

function mirroredConditions(conditions: unknown[] | undefined): Record<string, unknown>[] {
  return ((conditions ?? []) as Record<string, unknown>[]).filter((c) => MIRRORED_CONDITIONS.has(String(c.type)));
}

function otherConditions(lc: LogicalClusterView, type: string): unknown[] {
  return (lc.status?.conditions ?? []).filter((c) => (c as { type?: string }).type !== type);
}

/**
 * `lc` as kcp's LogicalCluster controller keeps it while initializers leave: Ready once none is left, initializer
 * labels of those left, the owner trimmed once Ready. Undefined when nothing changes.
 */
export function logicalClusterProgress(lc: LogicalClusterView, initializers: string[], now: string): LogicalClusterView | undefined {
  const phase = initializers.length === 0 ? 'Ready' : 'Initializing';
  const status = phase === 'Ready' && lc.status?.phase !== 'Ready'
    ? { ...lc.status, phase: 'Ready', conditions: [...otherConditions(lc, 'WorkspaceInitialized'), condition('WorkspaceInitialized', 'True', now)] }
    : lc.status;
  const metadata = {
    ...lc.metadata,
    labels: logicalClusterLabels(lc.metadata?.labels, phase, initializers),
    annotations: annotationsForPhase(lc.metadata?.annotations, phase),
  };
  if (status === lc.status && JSON.stringify(metadata) === JSON.stringify(lc.metadata)) return undefined;
  return { ...lc, metadata, status };
}

/**
 * `ws` showing its LogicalCluster's progress (initializers left, the default-bindings conditions kcp mirrors): Ready
 * once none is left. Undefined when it already shows it.
 */
export function followLogicalCluster(ws: Workspace, initializers: string[], lcConditions: unknown[] | undefined, now: string): Workspace | undefined {
  const phase = initializers.length === 0 ? 'Ready' : 'Initializing';
  // What the default-bindings initializer reports on the LogicalCluster shows on the Workspace too, as in kcp.
  const mirrored = mirroredConditions(lcConditions);
  const unchanged =
    phase === ws.status?.phase &&
    JSON.stringify(ws.status?.initializers ?? []) === JSON.stringify(initializers) &&
    JSON.stringify(mirroredConditions(ws.status?.conditions)) === JSON.stringify(mirrored);
  if (unchanged) return undefined;
  const status = { ...ws.status, phase, conditions: [...workspaceConditions(initializers, now), ...mirrored], initializers };
  if (initializers.length === 0) delete (status as { initializers?: string[] }).initializers;
  const metadata = {
    ...ws.metadata,
    labels: { ...(ws.metadata?.labels ?? {}), [PHASE_LABEL]: phase },
    annotations: annotationsForPhase(ws.metadata?.annotations, phase),
  };
  return { ...ws, metadata, status };
}
