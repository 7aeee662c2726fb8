import type { GenericStore } from '../../registry/generic-store.js';
import type { KubeObject, ResourceType } from '../../registry/types.js';
import type { Store } from '../../storage/store.js';
import type { ClusterPaths } from '../../tenancy/cluster-paths.js';
import type { WorkspaceTypes } from '../../tenancy/workspace-types.js';
import type { Condition } from '../default-bindings.js';
import type { APIExport } from '../types.js';

export interface DefaultAPIBindingsDeps {
  store: Store;
  generic: GenericStore;
  paths: ClusterPaths;
  workspaceTypes: WorkspaceTypes;
  logicalClusters: ResourceType;
  apiBindings: ResourceType;
  apiExports: ResourceType;
  /**
   * An APIExport of this shard or, in a sharded deployment, of another one (`shard` set), and how a path resolves
   * there too; absent: this shard's exports and paths only.
   */
  exportOf?(cluster: string, name: string): { object: APIExport; shard?: string } | undefined;
  resolvePath?(path: string): string | undefined;
  /** Calls `listener` when an export of another shard changed. */
  onRemoteExportChange?(listener: () => void): void;
  onError?(controller: string, key: string, err: unknown): void;
}

export interface LogicalClusterView extends KubeObject {
  spec?: { createdBy?: { username: string; groups?: string[]; uid?: string; extra?: Record<string, string[]> } };
  status?: { phase?: string; initializers?: string[]; conditions?: Condition[] };
}
