import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import E2eSequencer from './test/helpers/e2e-sequencer.js';
import { etcdBinary, etcdVersion } from './test/helpers/etcd-binary.js';

/**
 * The tiers (docs/testing.md): unit first and alone (`sequence.groupOrder` 0), then the others side by side in one
 * queue of workers (groupOrder 1):
 *   unit         beside their modules, no server of any kind; `npm run test:unit`
 *   integration  kcpt/testing's in-process control plane, client libraries, the etcd store against a real etcd
 *   e2e          a real `kcpt start` (the project's shared server unless a file needs its own), the real kubectl,
 *                client peers and the reliability smokes; then the same server on etcd (e2e-etcd) and as a sharded
 *                cluster (e2e-sharded) for the files whose behaviour storage or sharding can change.
 * Integration shares the e2e tiers' queue rather than running as a step of its own: its files need nothing the e2e
 * files do, and as a step its last file (the etcd store's contract, one long file) ran on otherwise idle workers.
 */

/**
 * The second storage run: what a store can change, on etcd (KCPT_E2E_STORAGE=etcd). Everything else behaves the same
 * on both by construction: the Store contract suite (src/engine/storage/contract.ts) holds SQLite, memory and etcd to
 * the same answers, and the files listed here check what sits on top of the store's watch, history, revisions,
 * prefix scans and durability.
 */
const etcdProjectFiles = [
  // Watches, informers, resuming from a resourceVersion, compaction (410 Gone and relist).
  'test/e2e/informer-watch.test.ts',
  'test/e2e/informer-relist.test.ts',
  'test/e2e/informer-soak.test.ts',
  'test/e2e/client-node.test.ts',
  'test/e2e/kubectl-delete-watch.test.ts',
  // CRD lifecycle: storage of a new resource, its objects, their removal with the CRD.
  'test/e2e/crds-lifecycle.test.ts',
  'test/e2e/crds-objects.test.ts',
  // Cross-cluster prefix scans (wildcards), garbage collection and deleting a workspace's whole keyspace.
  'test/e2e/wildcard-crd.test.ts',
  'test/e2e/garbage-collection.test.ts',
  'test/e2e/garbage-collection-restart.test.ts',
  'test/e2e/workspaces-deletion.test.ts',
  'test/e2e/workspaces-deletion-restart.test.ts',
  // Objects across a restart (what is durable, and what the store hands back after it).
  'test/e2e/workspace-objects.test.ts',
  // History replays and exact-revision lists must not cross tenants on any store; the fuzzer's hostile reads.
  'test/reliability/isolation.test.ts',
  'test/reliability/fuzz.test.ts',
];

/**
 * The sharded run: what sharding can change, through a front-proxy (KCPT_E2E_TOPOLOGY=sharded: `kcpt start --shards 3`,
 * root and shard-1 on SQLite, shard-2 on etcd): the CLI session, workspaces, home workspaces and API sharing
 * (bindings, default bindings of custom WorkspaceTypes on every shard, a provider's controller, the APIExport virtual
 * workspace), plus test/e2e-sharded/ (what only makes sense there). The API-sharing files are topology-aware only
 * where sharding differs by nature, as kcp's e2e is: an endpoint slice lists one URL per shard hosting bindings, and
 * `/clusters/*` wildcards, which the proxy does not route (kcp's does not either), are read from each shard. Tests
 * that assert what one server shows but a proxy cannot are skipped by test/helpers/sharded-skips.ts, which says why.
 */
const shardedProjectFiles = [
  'test/e2e-sharded/**/*.test.ts',
  'test/e2e/cli-ws.test.ts',
  'test/e2e/workspaces*.test.ts',
  'test/e2e/home-workspaces.test.ts',
  'test/e2e/api-bindings.test.ts',
  'test/e2e/api-provider.test.ts',
  'test/e2e/apiexport-virtual-workspace.test.ts',
  'test/e2e/apiexport-claims.test.ts',
  'test/e2e/default-api-bindings.test.ts',
  // The restart cases of api-bindings, default-api-bindings and apiexport-virtual-workspace: one server, one restart.
  'test/e2e/api-sharing-restart.test.ts',
  // The fuzzer's hostile requests through the front-proxy: what the proxy answers itself, routes or forwards.
  'test/reliability/fuzz.test.ts',
];

/** Files that start an etcd themselves, whatever the project. */
const startEtcd = [
  'src/engine/storage/etcd-store.test.ts',
  'src/engine/storage/etcd-failover.test.ts',
  'test/e2e/etcd-storage.test.ts',
  'test/e2e/etcd-failover.test.ts',
  'test/e2e/front-proxy-mixed-storage.test.ts',
];

/**
 * Without etcd: CI fails (those files fail to start it; the etcd projects' globalSetup says why); a local run leaves
 * out what needs it, saying so in one line, so that a first `npm test` without etcd is green.
 */
const inCI = process.env.CI === 'true' || process.env.CI === '1';
const etcdFound = etcdVersion() !== undefined;
const withEtcd = etcdFound || inCI;
// vitest evaluates this file more than once in its process: say it once.
const noted = Symbol.for('kcpt.no-etcd-noted');
if (!withEtcd && !(globalThis as Record<symbol, unknown>)[noted]) {
  (globalThis as Record<symbol, unknown>)[noted] = true;
  console.warn(
    `no etcd (\`${etcdBinary()} --version\` failed; Debian: apt-get install etcd-server): skipping the e2e-etcd and e2e-sharded projects and ${startEtcd.length} files that start etcd (${startEtcd.join(', ')})`,
  );
}
const unlessEtcd = withEtcd ? [] : startEtcd;

/** Test files of the integration tier (in-process servers); the etcd store's own tests start an etcd. */
const integrationFiles = [
  'test/integration/**/*.test.ts',
  'test/testing-library/**/*.test.ts',
  'test/templates/**/*.test.ts',
  // The starter project's own tests (kcpt/testing, as a provider's project runs them) run with ours.
  'templates/api-provider/test/**/*.test.ts',
  'src/engine/storage/etcd-store.test.ts',
  'src/engine/storage/etcd-failover.test.ts',
];

const unitFiles = ['src/**/*.test.ts', 'src/**/*.test.tsx', 'test/architecture/**/*.test.ts', 'test/cli/**/*.test.ts'];

/**
 * Workers per tier on this 2-core machine. Unit tests are CPU-bound: one worker per core. Integration and e2e tests
 * mostly wait (on a server process, kubectl, a watch, a controller): more workers than cores keep both cores busy.
 * KCPT_TEST_WORKERS overrides the e2e tiers' count. No tier isolates its files (isolate: false): a worker imports
 * client-node, the helpers and the engine once, not once per file (the cores are busy throughout a run, and those
 * imports were about a fifth of it). Files stay hermetic by workspace, not by module state.
 */
const e2eWorkers = Number(process.env.KCPT_TEST_WORKERS ?? 4);

export default defineConfig({
  resolve: {
    // kcpt/testing as an installed kcpt provides it (package.json exports; needs a build), also for the starter
    // project under templates/, whose own package.json hides this one from Node's self-reference.
    alias: [
      { find: /^kcpt\/testing\/vitest$/, replacement: fileURLToPath(new URL('./dist/engine-bundle/testing-vitest.js', import.meta.url)) },
      { find: /^kcpt\/testing$/, replacement: fileURLToPath(new URL('./dist/engine-bundle/testing.js', import.meta.url)) },
    ],
  },
  test: {
    disableConsoleIntercept: true,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The e2e projects' files longest first, the project with the most short files last (test/helpers/e2e-sequencer.ts).
    sequence: { sequencer: E2eSequencer },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: unitFiles,
          exclude: ['**/node_modules/**', ...integrationFiles],
          // No servers, no module state worth a fresh process per file: one process per core runs them all.
          isolate: false,
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: integrationFiles,
          exclude: ['**/node_modules/**', ...unlessEtcd],
          maxWorkers: e2eWorkers,
          isolate: false,
          // With the e2e projects (one group has one worker count: e2eWorkers).
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          // Every other test file under test/ (peers, reliability, security regressions…) is e2e.
          include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
          exclude: [
            '**/node_modules/**',
            ...unitFiles,
            ...integrationFiles,
            'test/e2e-sharded/**',
            ...unlessEtcd,
          ],
          globalSetup: ['./test/helpers/shared-server-setup.ts'],
          maxWorkers: e2eWorkers,
          isolate: false,
          sequence: { groupOrder: 1 },
        },
      },
      ...(withEtcd
        ? [
            {
              extends: true,
              test: {
                name: 'e2e-etcd',
                include: etcdProjectFiles,
                env: { KCPT_E2E_STORAGE: 'etcd' },
                // Test names start with "[etcd] " so both runs of a test are told apart in every report.
                runner: './test/helpers/etcd-project-runner.ts',
                globalSetup: ['./test/helpers/etcd-project-setup.ts', './test/helpers/shared-server-setup.ts'],
                maxWorkers: e2eWorkers,
                isolate: false,
                sequence: { groupOrder: 1 },
              },
            },
            {
              extends: true,
              test: {
                name: 'e2e-sharded',
                include: shardedProjectFiles,
                // Its one case expects the shard's 404 for the deleted path (the proxy answers 403): a file with nothing
                // to run here would still start its private cluster.
                exclude: ['**/node_modules/**', 'test/e2e/workspaces-deletion-restart.test.ts'],
                env: { KCPT_E2E_TOPOLOGY: 'sharded' },
                // Every request crosses the proxy, and a private cluster is four processes and an etcd on a shared box.
                testTimeout: 120_000,
                hookTimeout: 180_000,
                // Test names start with "[sharded] ".
                runner: './test/helpers/sharded-project-runner.ts',
                // Its shard-2 stores in etcd.
                globalSetup: ['./test/helpers/etcd-project-setup.ts', './test/helpers/shared-server-setup.ts'],
                maxWorkers: e2eWorkers,
                isolate: false,
                sequence: { groupOrder: 1 },
              },
            },
          ]
        : []),
    ],
  },
});
