import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'test/**/*.test.ts'],
    // oclif imports command files with native import(); tsx lets that resolve .ts sources in tests.
    execArgv: ['--import', 'tsx'],
    disableConsoleIntercept: true,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
