import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { etcdBinary, etcdVersion } from './test/helpers/etcd-binary.js';

/**
 * The `e2e-etcd` project runs the suites that start servers through test/helpers/server.ts a second time, each server
 * on etcd (KCPT_E2E_STORAGE=etcd). Left out, and why:
 */
const notOnEtcd = {
  // Already on etcd in the default project (they ask for etcd themselves).
  'test/e2e/etcd-storage.test.ts': 'runs on etcd anyway',
  'test/e2e/etcd-failover.test.ts': 'runs on etcd anyway',
  // Mixes storages itself: root and shard-1 on SQLite, shard-2 on etcd.
  'test/e2e/front-proxy-mixed-storage.test.ts': 'picks each shard\'s storage',
  // They pick their storage (memory://) on purpose: the second run would be the same run.
  'test/e2e/bad-input.test.ts': 'chooses memory://',
  'test/reliability/overload.test.ts': 'chooses memory://',
  // They start `bin/run.js start` themselves on its default SQLite root directory (the process's life cycle, an
  // installed package), not through the helper: the second run would be the same run.
  'test/e2e/packaging.test.ts': 'starts kcpt itself on SQLite',
  'test/e2e/server-lifecycle.test.ts': 'starts kcpt itself on SQLite',
  'test/e2e/detached-server.test.ts': 'starts kcpt itself on SQLite',
  // SIGKILLs the server and checks the SQLite file with PRAGMA integrity_check; etcd's own durability is the
  // failover test's subject (test/e2e/etcd-failover.test.ts).
  'test/reliability/crash.test.ts': 'checks the SQLite file',
} as const;

const etcdProjectFiles = ['test/e2e/**/*.test.ts', 'test/reliability/fuzz.test.ts', 'test/reliability/isolation-matrix.test.ts'];

/**
 * The `e2e-sharded` project runs the files that prove issue 11's "what must work" a third time, each server a sharded
 * cluster (KCPT_E2E_TOPOLOGY=sharded: `kcpt start --shards 3`, root and shard-1 on SQLite, shard-2 on etcd) used only
 * through its front-proxy: the CLI session, workspaces, kubectl, home workspaces and API sharing (bindings, default
 * bindings of custom WorkspaceTypes on every shard, a provider's controller, the APIExport virtual workspace). The
 * API-sharing files are topology-aware only where sharding differs by nature, as kcp's e2e is: an endpoint slice
 * lists one URL per shard hosting bindings (a consumer is addressed at its shard's URL, "every consumer" is read at
 * every URL), and `/clusters/*` wildcards, which the proxy does not route (kcp's does not either), are read from each
 * shard. The other e2e files are left out to keep CI time down (each sharded server is four processes and an etcd),
 * and kubectl-basics because it creates its second logical cluster by name on the server (only a shard takes that;
 * the proxy routes only clusters it knows). test/e2e-sharded/ holds what only makes sense there (workspaces landing
 * on every shard). Tests that assert what one server shows but a proxy cannot are skipped by
 * test/helpers/sharded-skips.ts, which says why.
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
];

/** Without etcd: CI fails (the project's globalSetup says why); a local run leaves the project out, saying so once. */
const inCI = process.env.CI === 'true' || process.env.CI === '1';
const etcdFound = etcdVersion() !== undefined;
// vitest evaluates this file more than once in its process: say it once.
const noted = Symbol.for('kcpt.e2e-etcd.skip-noted');
if (!etcdFound && !inCI && !(globalThis as Record<symbol, unknown>)[noted]) {
  (globalThis as Record<symbol, unknown>)[noted] = true;
  console.warn(`e2e-etcd, e2e-sharded: skipped, no etcd (\`${etcdBinary()} --version\` failed; Debian: apt-get install etcd-server)`);
}

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
    // oclif imports command files with native import(); tsx lets that resolve .ts sources in tests.
    execArgv: ['--import', 'tsx'],
    disableConsoleIntercept: true,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'default',
          // The starter project's own tests (kcpt/testing, as a provider's project runs them) run with ours.
          include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'test/**/*.test.ts', 'templates/api-provider/test/**/*.test.ts'],
          exclude: ['**/node_modules/**', 'test/e2e-sharded/**'],
        },
      },
      ...(etcdFound || inCI
        ? [
            {
              extends: true,
              test: {
                name: 'e2e-etcd',
                include: etcdProjectFiles,
                exclude: ['**/node_modules/**', ...Object.keys(notOnEtcd)],
                env: { KCPT_E2E_STORAGE: 'etcd' },
                // Test names start with "[etcd] " so both runs of a test are told apart in every report.
                runner: './test/helpers/etcd-project-runner.ts',
                globalSetup: ['./test/helpers/etcd-project-setup.ts'],
              },
            },
            {
              extends: true,
              test: {
                name: 'e2e-sharded',
                include: shardedProjectFiles,
                env: { KCPT_E2E_TOPOLOGY: 'sharded' },
                // Every request crosses the proxy, and a file's server is four processes and an etcd on a shared box.
                testTimeout: 120_000,
                hookTimeout: 180_000,
                // Test names start with "[sharded] ".
                runner: './test/helpers/sharded-project-runner.ts',
                // Its shard-2 stores in etcd.
                globalSetup: ['./test/helpers/etcd-project-setup.ts'],
              },
            },
          ]
        : []),
    ],
  },
});
