/**
 * Where a workspace may be placed, as kcp's scheduler decides it: among the Shards matching the workspace's
 * `spec.location.selector` and not annotated unschedulable. kcpt has one shard (this server, Shard `root`), so the
 * answer is that shard or nothing, with kcp's reason for the `WorkspaceScheduled=False/Unschedulable` condition.
 * A chosen shard's `region` label is copied onto the workspace.
 */
import { labelSelectorFromObject, matches, type LabelSelectorObject } from '../machinery/label-selector.js';
import type { KubeObject } from '../registry/types.js';
import type { Store } from '../storage/store.js';
import { ROOT_CLUSTER, ROOT_SHARD } from './names.js';
import type { Workspace } from './workspace-resource.js';

export const UNSCHEDULABLE_ANNOTATION = 'experimental.core.kcp.io/unschedulable';
const shardKey = `/registry/core.kcp.io/shards/${ROOT_CLUSTER}/${ROOT_SHARD}`;

export type Placement = { shard: string; region?: string } | { unschedulable: string };

/** The Shard object as last parsed, per store: every new workspace asks, and it changes rarely. */
const parsedShards = new WeakMap<Store, { revision: number; shard: KubeObject }>();

function rootShard(store: Store): KubeObject | undefined {
  const kv = store.get(shardKey);
  if (!kv) return undefined;
  const known = parsedShards.get(store);
  if (known?.revision === kv.revision) return known.shard;
  const shard = JSON.parse(kv.value) as KubeObject;
  parsedShards.set(store, { revision: kv.revision, shard });
  return shard;
}

export function placeWorkspace(store: Store, ws: Workspace): Placement {
  const shard = rootShard(store);
  const selector = ws.spec?.location?.selector as LabelSelectorObject | undefined;
  let wanted = true;
  if (selector) {
    try {
      wanted = shard !== undefined && matches(labelSelectorFromObject(selector), shard.metadata?.labels);
    } catch (err) {
      return { unschedulable: `spec.location.selector is invalid: ${(err as Error).message}` };
    }
  }
  if (!shard || !wanted || shard.metadata?.annotations?.[UNSCHEDULABLE_ANNOTATION] !== undefined) {
    return { unschedulable: 'No available shards to schedule the workspace' };
  }
  const region = shard.metadata?.labels?.region;
  return { shard: ROOT_SHARD, ...(region !== undefined ? { region } : {}) };
}
