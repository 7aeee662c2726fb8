/**
 * The tenancy layer, assembled: workspace paths and types, the served Workspace / WorkspaceType / Shard types, the
 * per-cluster API sets, and the workspace lifecycle controller. The server builds it in two steps because the
 * resource types are needed before the generic store exists, and the controller needs the store.
 */
import { clusterOfKey } from '../registry/stored-object.js';
import type { ClusterCatalog } from '../registry/catalog.js';
import type { GenericStore } from '../registry/generic-store.js';
import type { IndexWriter } from '../registry/index-writer.js';
import { accessSubjectsWriter, backfillAccessSubjects } from './access-subjects.js';
import { OccupiedResources } from '../registry/occupied-resources.js';
import type { ResourceType } from '../registry/types.js';
import type { Store } from '../storage/store.js';
import { APISets } from './api-sets.js';
import { bootstrapWorkspaceTypes, registerShard } from './bootstrap.js';
import { ClusterContentDeleter } from './cluster-deletion.js';
import { ClusterPaths } from './cluster-paths.js';
import { HomeWorkspaces, homePath, type HomeOptions } from './home-workspaces.js';
import { WorkspaceController } from './workspace-controller.js';
import { hostedPendingWriter, workspacePendingWriter } from './pending-markers.js';
import { workspaceResourceType, type TenancyAccess } from './workspace-resource.js';
import { WorkspaceScheduler, type TenancyTypes } from './workspace-scheduler.js';
import { WorkspaceTypes } from './workspace-types.js';
import { shardResourceType, workspaceTypeResourceType } from './workspacetype-resource.js';
import { WorkspaceTypeStatusController } from './workspacetype-status.js';
import type { ShardClient } from '../shards/shard-client.js';
import type { ShardDirectory } from '../shards/shard-directory.js';
import { RemoteWorkspaces } from '../shards/remote-workspaces.js';

export interface TenancyControllerDeps {
  generic: GenericStore;
  catalogFor(cluster: string): ClusterCatalog;
  namespaces: ResourceType;
  logicalClusters: ResourceType;
  clusterRoleBindings: ResourceType;
  serviceAccounts: ResourceType;
  externalUrl(): string;
  /** This server as a shard: its name, URLs, the deployment's Shards, and how to reach the others. */
  shard: {
    name: string;
    /** Shard `root` (this server's own store holds root and the Shards). */
    isRoot: boolean;
    baseUrl(): string;
    virtualWorkspaceUrl(): string;
    directory: ShardDirectory;
    client(): ShardClient;
  };
  onError?(controller: string, key: string, err: unknown): void;
}

export class Tenancy {
  readonly paths: ClusterPaths;
  readonly workspaceTypes: WorkspaceTypes;
  readonly workspaces: ResourceType;
  readonly workspaceTypeType: ResourceType;
  readonly shards: ResourceType;
  readonly indexWriters: IndexWriter[];
  private controller?: WorkspaceController;
  private typeStatus?: WorkspaceTypeStatusController;
  /** Home workspaces (`~`), available once started. */
  homes?: HomeWorkspaces;
  private occupied?: OccupiedResources;
  private directory?: ShardDirectory;

  constructor(
    private readonly store: Store,
    private readonly batteries: ReadonlySet<string>,
    private readonly homeOptions: HomeOptions,
    access?: TenancyAccess,
  ) {
    this.paths = new ClusterPaths(store, (user) => homePath(user, homeOptions));
    this.workspaceTypes = new WorkspaceTypes(store, this.paths);
    this.workspaces = workspaceResourceType({ store, paths: this.paths, types: this.workspaceTypes, access });
    this.workspaceTypeType = workspaceTypeResourceType();
    this.shards = shardResourceType();
    this.indexWriters = [workspacePendingWriter(store), hostedPendingWriter(store), accessSubjectsWriter()];
  }

  /** Built-in API sets per cluster, layered under each cluster's CRDs. */
  apiSets(builtins: readonly ResourceType[]): APISets {
    return new APISets((cluster) => this.paths.facts(cluster)?.apis, builtins, [this.workspaces, this.workspaceTypeType], [this.shards]);
  }

  /** Resolves `/clusters/<path>` to a cluster name. */
  resolvePath = (path: string): string | undefined => this.paths.resolve(path);

  /** Root's workspace types and Shard; then the lifecycle controller. */
  start(deps: TenancyControllerDeps): void {
    this.paths.start();
    backfillAccessSubjects(this.store);
    this.workspaceTypes.start();
    // A non-root shard keeps root's built-in types too (kcp replicates them to every shard through its cache server):
    // workspaces of those types can be created in workspaces it hosts.
    bootstrapWorkspaceTypes(deps.generic, this.workspaceTypeType, this.batteries, deps.shard.virtualWorkspaceUrl());
    if (deps.shard.isRoot) {
      registerShard(deps.generic, this.shards, { baseURL: deps.shard.baseUrl(), externalURL: deps.externalUrl(), virtualWorkspaceURL: deps.shard.virtualWorkspaceUrl() });
    }
    deps.shard.directory.start();
    const types: TenancyTypes = {
      workspaces: this.workspaces,
      logicalClusters: deps.logicalClusters,
      namespaces: deps.namespaces,
      clusterRoleBindings: deps.clusterRoleBindings,
      serviceAccounts: deps.serviceAccounts,
    };
    const remote: RemoteWorkspaces = new RemoteWorkspaces({
      store: this.store,
      generic: deps.generic,
      workspaces: this.workspaces,
      client: deps.shard.client(),
      shards: deps.shard.directory,
      scheduler: () => scheduler,
    });
    const scheduler: WorkspaceScheduler = new WorkspaceScheduler({
      store: this.store,
      generic: deps.generic,
      types,
      paths: this.paths,
      workspaceTypes: this.workspaceTypes,
      externalUrl: deps.externalUrl,
      shardName: deps.shard.name,
      shards: deps.shard.directory,
      remote,
    });
    // A new workspace is scheduled in the commit of its POST when it can be (one commit, its row written once);
    // the controller below does it otherwise, and after a restart.
    deps.generic.settleCreatesOf(this.workspaces, (ws, row) => scheduler.scheduleOnCreate(clusterOfKey(row.key), ws, row));
    this.occupied = new OccupiedResources(this.store);
    this.occupied.start();
    const deleter = new ClusterContentDeleter(this.store, deps.generic, deps.catalogFor, deps.logicalClusters, this.occupied, this.workspaces);
    this.controller = new WorkspaceController({
      store: this.store,
      generic: deps.generic,
      types,
      scheduler,
      deleter,
      shardName: deps.shard.name,
      shards: deps.shard.directory,
      remote,
      onError: deps.onError,
    });
    this.directory = deps.shard.directory;
    this.controller.start();
    // Virtual workspaces run in-process in every shard: each Shard's virtualWorkspaceURL serves its own clusters.
    const typeStatus = new WorkspaceTypeStatusController({
      store: this.store,
      generic: deps.generic,
      workspaceTypes: this.workspaceTypeType,
      virtualWorkspaceUrls: () => shardVirtualWorkspaceUrls(deps.shard.directory, deps.shard.virtualWorkspaceUrl()),
      onError: deps.onError,
    });
    deps.shard.directory.onChange(() => typeStatus.requeueAll());
    typeStatus.start();
    this.typeStatus = typeStatus;
    this.homes = new HomeWorkspaces({ store: this.store, generic: deps.generic, workspaces: this.workspaces, paths: this.paths, options: this.homeOptions });
  }

  stop(): void {
    this.directory?.stop();
    this.controller?.stop();
    this.typeStatus?.stop();
    this.occupied?.stop();
    this.workspaceTypes.stop();
    this.paths.stop();
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
