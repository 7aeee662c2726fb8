import type { GenericStore } from '../../registry/generic-store.js';
import type { ShardDirectory } from '../shard-placement.js';
import type { Store } from '../../storage/store.js';
import type { ClusterContentDeleter } from '../cluster-deletion.js';
import type { Workspace } from '../workspace-resource.js';
import type { TenancyTypes, WorkspaceScheduler } from '../workspace-scheduler.js';

/** What the workspace controller asks of the shard-to-shard side (shards/remote-workspaces.ts). */
export interface RemoteWorkspaceFollower {
  /** Mirrors the remote LogicalCluster's progress onto `ws`; how soon to look again. */
  follow(parent: string, ws: Workspace): Promise<{ requeueAfterMs: number } | undefined>;
  /** Deletes the remote LogicalCluster and lets `ws` go once it is gone; how soon to look again. */
  reconcileDeletion(parent: string, ws: Workspace): Promise<{ requeueAfterMs: number } | undefined>;
}

export interface WorkspaceControllerDeps {
  store: Store;
  generic: GenericStore;
  types: TenancyTypes;
  scheduler: WorkspaceScheduler;
  deleter: ClusterContentDeleter;
  /** This server's Shard name. */
  shardName: string;
  /** The deployment's Shards: a change may make a waiting workspace schedulable. */
  shards: ShardDirectory;
  /** Following workspaces whose LogicalCluster another shard hosts. */
  remote?: RemoteWorkspaceFollower;
  onError?(controller: string, key: string, err: unknown): void;
}
