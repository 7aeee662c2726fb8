/**
 * The parts of API sharing that act on behalf of workspace types and exports, assembled for the server: the
 * `system:apibindings` initializer (with its `Maintain` marker rows) and the maximal permission policies the
 * authorizer asks about. Both read APIBindings and APIExports in their stored version (v1alpha2).
 */
import type { RequestAttributes } from '../authorization/rules.js';
import type { GenericStore } from '../registry/generic-store.js';
import type { IndexWriter } from '../registry/index-writer.js';
import type { ResourceType } from '../registry/types.js';
import type { Store } from '../storage/store.js';
import type { ClusterPaths } from '../tenancy/cluster-paths.js';
import type { WorkspaceTypes } from '../tenancy/workspace-types.js';
import type { BoundAPIs } from './bound-apis.js';
import type { Controller } from '../controllers/controller.js';
import { defaultAPIBindingsController, initializingClustersWriter, maintainedWorkspacesWriter } from './default-bindings-controller/index.js';
import { MaximalPermissionPolicies } from './maximal-permission-policy.js';
import { APIS_GROUP, BINDINGS, EXPORTS } from './names.js';

export interface DefaultAPIsDeps {
  store: Store;
  paths: ClusterPaths;
  workspaceTypes: WorkspaceTypes;
  /** The apis.kcp.io types (APIBinding and APIExport in their stored version among them). */
  types: readonly ResourceType[];
  /** What each cluster has bound (the catalogs' cache); also knows other shards' exports. */
  bound: BoundAPIs;
  /** Resolves an export's path here or on another shard (a sharded deployment). */
  resolvePath?(path: string): string | undefined;
}

function storedType(types: readonly ResourceType[], resource: string): ResourceType {
  const rt = types.find((t) => t.group === APIS_GROUP && t.resource === resource && t.version === 'v1alpha2');
  if (!rt) throw new Error(`type ${resource}.${APIS_GROUP}/v1alpha2 is missing`);
  return rt;
}

export class DefaultAPIs {
  readonly indexWriters: IndexWriter[];
  /** Which export's workspace caps a request on a bound resource (followed once started). */
  readonly policies: MaximalPermissionPolicies;
  private readonly apiBindings: ResourceType;
  private readonly apiExports: ResourceType;

  constructor(private readonly deps: DefaultAPIsDeps) {
    this.apiBindings = storedType(deps.types, BINDINGS);
    this.apiExports = storedType(deps.types, EXPORTS);
    this.policies = new MaximalPermissionPolicies(deps.store, deps.bound, this.apiExports);
    this.indexWriters = [maintainedWorkspacesWriter(deps.store, deps.workspaceTypes), initializingClustersWriter(deps.store)];
  }

  /** For the authorizer: the workspace whose RBAC caps a request on a bound resource, if any. */
  maximalPolicy = (cluster: string, attrs: RequestAttributes) => this.policies.policyFor(cluster, attrs);

  /** The `system:apibindings` initializer, built and not started. */
  controller(opts: { generic: GenericStore; logicalClusters: ResourceType; onError?(controller: string, key: string, err: unknown): void }): Controller {
    const { store, paths, workspaceTypes } = this.deps;
    return defaultAPIBindingsController({
      store,
      paths,
      workspaceTypes,
      generic: opts.generic,
      logicalClusters: opts.logicalClusters,
      apiBindings: this.apiBindings,
      apiExports: this.apiExports,
      exportOf: (cluster, name) => this.deps.bound.exportOf(cluster, name),
      resolvePath: this.deps.resolvePath,
      onRemoteExportChange: (listener) =>
        this.deps.bound.onReplicaChange((kind) => {
          if (kind === 'apiexports') listener();
        }),
      onError: opts.onError,
    });
  }
}
