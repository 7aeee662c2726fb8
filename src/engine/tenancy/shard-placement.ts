/**
 * Where a workspace may be placed, as kcp's scheduler decides it: at random among the Shards matching the
 * workspace's `spec.location.selector` and not annotated unschedulable, with kcp's reason for the
 * `WorkspaceScheduled=False/Unschedulable` condition when none fits. A chosen shard's `region` label is copied onto
 * the workspace.
 */
import { labelSelectorFromObject, matches, type LabelSelectorObject } from '../machinery/label-selector.js';
import type { KubeObject } from '../registry/types.js';
import type { Workspace } from './workspace-resource.js';

export const UNSCHEDULABLE_ANNOTATION = 'experimental.core.kcp.io/unschedulable';

export interface ShardSpec {
  baseURL?: string;
  externalURL?: string;
  virtualWorkspaceURL?: string;
}

export type Placement = { shard: string; region?: string; spec: ShardSpec } | { unschedulable: string };

/** The Shards of the deployment, as the scheduler and the cross-shard controllers need them (shards/ keeps them). */
export interface ShardDirectory {
  /** The Shards known now (frozen; do not mutate). */
  shards(): readonly KubeObject[];
  /** Called after the set of Shards (or one of them) changed. */
  onChange(listener: () => void): void;
  start(): void;
  stop(): void;
}

export function placeWorkspace(shards: readonly KubeObject[], ws: Workspace): Placement {
  const selector = ws.spec?.location?.selector as LabelSelectorObject | undefined;
  let candidates = shards.filter((s) => s.metadata?.annotations?.[UNSCHEDULABLE_ANNOTATION] === undefined);
  if (selector) {
    try {
      const parsed = labelSelectorFromObject(selector);
      candidates = candidates.filter((s) => matches(parsed, s.metadata?.labels));
    } catch (err) {
      return { unschedulable: `spec.location.selector is invalid: ${(err as Error).message}` };
    }
  }
  if (candidates.length === 0) return { unschedulable: 'No available shards to schedule the workspace' };
  const shard = candidates.length === 1 ? candidates[0]! : candidates[Math.floor(Math.random() * candidates.length)]!;
  const region = shard.metadata?.labels?.region;
  return { shard: shard.metadata!.name!, spec: (shard.spec ?? {}) as ShardSpec, ...(region !== undefined ? { region } : {}) };
}
