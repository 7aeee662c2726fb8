/**
 * The tenancy layer, assembled: workspace paths and types, the served Workspace / WorkspaceType / Shard types, the
 * per-cluster API sets, and the workspace lifecycle controllers. The server builds it in two steps because the
 * resource types are needed before the generic store exists, and the scheduler and controllers need the store.
 * Starting (paths, types, the built-in WorkspaceTypes, the controllers) is the server's list (server/controllers.ts).
 */
import { clusterOfKey } from '../registry/stored-object.js';
import type { ClusterCatalog } from '../registry/catalog.js';
import type { GenericStore } from '../registry/generic-store.js';
import type { IndexWriter } from '../registry/index-writer.js';
import { accessSubjectsWriter } from './access-subjects.js';
import { OccupiedResources } from '../registry/occupied-resources.js';
import type { ResourceType } from '../registry/types.js';
import type { Store } from '../storage/store.js';
import { APISets } from './api-sets.js';
import { ClusterContentDeleter } from './cluster-deletion.js';
import { ClusterPaths } from './cluster-paths.js';
import { HomeWorkspaces, homePath, type HomeOptions } from './home-workspaces.js';
import { workspaceController, type RemoteWorkspaceFollower } from './workspace-controller/index.js';
import { hostedPendingWriter, workspacePendingWriter } from './pending-markers.js';
import { workspaceResourceType, type TenancyAccess } from './workspace-resource.js';
import { WorkspaceScheduler, type RemoteScheduling, type TenancyTypes } from './workspace-scheduler.js';
import { WorkspaceTypes, type RemoteWorkspaceTypes } from './workspace-types.js';
import { shardResourceType, workspaceTypeResourceType } from './workspacetype-resource.js';
import { workspaceTypeStatusController } from './workspacetype-status.js';
import type { Controller } from '../controllers/controller.js';
import type { ShardDirectory } from './shard-placement.js';

export interface TenancyAssemblyDeps {
  generic: GenericStore;
  /** A catalog of every type a cluster may hold objects of (CRDCatalogs.contentCatalogFor), for its deletion. */
  contentCatalogFor(cluster: string): ClusterCatalog;
  namespaces: ResourceType;
  logicalClusters: ResourceType;
  clusterRoleBindings: ResourceType;
  serviceAccounts: ResourceType;
  externalUrl(): string;
  /** This server as a shard: its name, URLs, the deployment's Shards, and how to reach the others. */
  shard: {
    name: string;
    virtualWorkspaceUrl(): string;
    directory: ShardDirectory;
    /** Workspaces scheduled onto other shards: placed there, and followed until they are ready (shards/ keeps them). */
    remote: RemoteScheduling & RemoteWorkspaceFollower;
  };
  onError?(controller: string, key: string, err: unknown): void;
}

/** What the tenancy layer runs once the generic store exists, built and not started (the server starts them). */
export interface TenancyParts {
  homes: HomeWorkspaces;
  /** Which resources have objects anywhere: cluster deletion looks only at those. */
  occupied: OccupiedResources;
  workspaceController: Controller;
  workspaceTypeStatusController: Controller;
  /**
   * From now on a new workspace is scheduled in the commit of its POST when it can be (one commit, its row written
   * once); the workspace controller does it otherwise, and after a restart.
   */
  scheduleOnCreate(): void;
}

export class Tenancy {
  readonly paths: ClusterPaths;
  readonly workspaceTypes: WorkspaceTypes;
  readonly workspaces: ResourceType;
  readonly workspaceTypeType: ResourceType;
  readonly shards: ResourceType;
  readonly indexWriters: IndexWriter[];
  constructor(
    private readonly store: Store,
    private readonly homeOptions: HomeOptions,
    access?: TenancyAccess,
    /** Other shards' WorkspaceTypes (a sharded deployment's replica), found when none here matches. */
    remoteTypes?: RemoteWorkspaceTypes,
  ) {
    this.paths = new ClusterPaths(store, (user) => homePath(user, homeOptions));
    this.workspaceTypes = new WorkspaceTypes(store, this.paths);
    if (remoteTypes) this.workspaceTypes.useRemote(remoteTypes);
    this.workspaces = workspaceResourceType({ store, paths: this.paths, types: this.workspaceTypes, access });
    this.workspaceTypeType = workspaceTypeResourceType();
    this.shards = shardResourceType();
    this.indexWriters = [workspacePendingWriter(store), hostedPendingWriter(store), accessSubjectsWriter()];
  }

  /** Built-in API sets per cluster, layered under each cluster's CRDs. */
  apiSets(builtins: readonly ResourceType[]): APISets {
    return new APISets((cluster) => this.paths.logicalCluster(cluster)?.apis, builtins, [this.workspaces, this.workspaceTypeType], [this.shards]);
  }

  /** Resolves `/clusters/<path>` to a cluster name. */
  resolvePath = (path: string): string | undefined => this.paths.resolve(path);

  /** The scheduler, home workspaces and the lifecycle controllers, once the generic store exists: nothing started. */
  assemble(deps: TenancyAssemblyDeps): TenancyParts {
    const { store } = this;
    const types: TenancyTypes = {
      workspaces: this.workspaces,
      logicalClusters: deps.logicalClusters,
      namespaces: deps.namespaces,
      clusterRoleBindings: deps.clusterRoleBindings,
      serviceAccounts: deps.serviceAccounts,
    };
    const { remote } = deps.shard;
    const scheduler = new WorkspaceScheduler({
      store,
      generic: deps.generic,
      types,
      paths: this.paths,
      workspaceTypes: this.workspaceTypes,
      externalUrl: deps.externalUrl,
      shardName: deps.shard.name,
      shards: deps.shard.directory,
      remote,
    });
    const occupied = new OccupiedResources(store);
    const deleter = new ClusterContentDeleter(store, deps.generic, deps.contentCatalogFor, deps.logicalClusters, occupied, this.workspaces);
    return {
      scheduleOnCreate: () => deps.generic.foldIntoCreatesOf(this.workspaces, (ws, row) => scheduler.scheduleOnCreate(clusterOfKey(row.key), ws, row)),
      homes: new HomeWorkspaces({ store, generic: deps.generic, workspaces: this.workspaces, paths: this.paths, options: this.homeOptions }),
      occupied,
      workspaceController: workspaceController({
        store,
        generic: deps.generic,
        types,
        scheduler,
        deleter,
        shardName: deps.shard.name,
        shards: deps.shard.directory,
        remote,
        onError: deps.onError,
      }),
      // Virtual workspaces run in-process in every shard: each Shard's virtualWorkspaceURL serves its own clusters.
      workspaceTypeStatusController: workspaceTypeStatusController({
        store,
        generic: deps.generic,
        workspaceTypes: this.workspaceTypeType,
        virtualWorkspaceUrls: () => shardVirtualWorkspaceUrls(deps.shard.directory, deps.shard.virtualWorkspaceUrl()),
        onShardsChange: (listener) => deps.shard.directory.onChange(listener),
        onError: deps.onError,
      }),
    };
  }
}

/** Where each Shard serves its virtual workspaces (kcp: virtualWorkspaceURL, else baseURL), this shard's always. */
function shardVirtualWorkspaceUrls(directory: ShardDirectory, own: string): string[] {
  const urls = new Set([own]);
  for (const shard of directory.shards()) {
    const spec = (shard.spec ?? {}) as { baseURL?: string; virtualWorkspaceURL?: string };
    const url = spec.virtualWorkspaceURL || spec.baseURL;
    if (url) urls.add(url.replace(/\/+$/, ''));
  }
  return [...urls];
}
