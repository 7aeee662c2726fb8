/**
 * The order in which vitest queues test files. The integration project and the three e2e projects share one queue
 * of four workers; vitest's own order runs them by project name, and within a project by the last run's durations
 * (a fresh clone has none: then by file size). A run then ends the way the last project ends: in a fresh-clone run
 * the sharded project's private clusters started last, with three workers idle.
 *
 * So: the sharded project first, then etcd, then integration (a few files, the etcd store's contract long), then the
 * plain e2e project, whose many short files fill the end; and in each project the files known to take longest
 * (they wait: soaks, peers, private servers and clusters) first, then vitest's order. A file missing from the lists
 * below only loses its head start.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const projectOrder = ['e2e-sharded', 'e2e-etcd', 'integration', 'e2e'];

/** Per project, the longest files of a fresh-clone run, longest first. */
const longestFirst: Record<string, string[]> = {
  'e2e-sharded': [
    'test/e2e/api-sharing-restart.test.ts',
    'test/e2e/apiexport-virtual-workspace.test.ts',
    'test/e2e/cli-ws.test.ts',
    'test/e2e/api-bindings.test.ts',
    'test/reliability/fuzz.test.ts',
    'test/e2e/default-api-bindings.test.ts',
    'test/e2e/api-provider.test.ts',
    'test/e2e/workspaces-private.test.ts',
  ],
  'e2e-etcd': [
    'test/e2e/informer-soak.test.ts',
    'test/e2e/kubectl-delete-watch.test.ts',
    'test/reliability/isolation.test.ts',
    'test/e2e/garbage-collection.test.ts',
    'test/e2e/crds-lifecycle.test.ts',
    'test/e2e/client-node.test.ts',
  ],
  integration: [
    'src/engine/storage/etcd-store.test.ts',
    'test/testing-library/widgets.test.ts',
    'test/testing-library/control-plane.test.ts',
    'src/engine/storage/etcd-failover.test.ts',
  ],
  e2e: [
    'test/peers/python/python.test.ts',
    'test/e2e/packaging.test.ts',
    'test/e2e/informer-soak.test.ts',
    'test/e2e/kubectl-writes.test.ts',
    'test/e2e/front-proxy.test.ts',
    'test/e2e/kubectl-delete-watch.test.ts',
    'test/e2e/cross-shard-apis.test.ts',
    'test/e2e/apiexport-virtual-workspace.test.ts',
    'test/e2e/snapshots.test.ts',
    'test/e2e/cli-ws.test.ts',
    'test/reliability/soak.test.ts',
    'test/e2e/kubectl-plugins.test.ts',
    'test/reliability/isolation.test.ts',
    'test/e2e/garbage-collection.test.ts',
    'test/e2e/detached-server.test.ts',
    'test/e2e/shards.test.ts',
    'test/e2e/front-proxy-mixed-storage.test.ts',
    'test/peers/go.test.ts',
  ],
};

export default class E2eSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const position = new Map(sorted.map((spec, i) => [spec, i]));
    const projectRank = (spec: TestSpecification) => {
      const i = projectOrder.indexOf(spec.project.name);
      return i < 0 ? -1 : i;
    };
    const fileRank = (spec: TestSpecification) => {
      const i = longestFirst[spec.project.name]?.indexOf(relative(this.ctx.config.root, spec.moduleId)) ?? -1;
      return i < 0 ? Number.MAX_SAFE_INTEGER : i;
    };
    return sorted.sort(
      (a, b) =>
        a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder ||
        projectRank(a) - projectRank(b) ||
        fileRank(a) - fileRank(b) ||
        position.get(a)! - position.get(b)!,
    );
  }
}
