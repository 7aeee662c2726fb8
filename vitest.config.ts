import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

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
    // The starter project's own tests (kcpt/testing, as a provider's project runs them) run with ours.
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'test/**/*.test.ts', 'templates/api-provider/test/**/*.test.ts'],
    // oclif imports command files with native import(); tsx lets that resolve .ts sources in tests.
    execArgv: ['--import', 'tsx'],
    disableConsoleIntercept: true,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
