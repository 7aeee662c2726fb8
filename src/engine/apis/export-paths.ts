/**
 * Workspace paths of this shard's APIExports (their `kcp.io/path` annotation → cluster): kcp resolves an export
 * reference by an index of exports by path, needed where the path does not lead through workspaces (a non-root
 * shard; see tenancy/path-index.ts).
 */
import type { Store } from '../storage/store.js';
import { LocalPathIndex, PathCounts } from '../tenancy/path-index.js';
import { EXPORTS_PREFIX } from './names.js';

export { PathCounts as ExportPathCounts };

export class LocalExportPaths extends LocalPathIndex {
  constructor(store: Store, pathOfCluster: (cluster: string) => string | undefined) {
    super(store, EXPORTS_PREFIX, pathOfCluster);
  }
}
