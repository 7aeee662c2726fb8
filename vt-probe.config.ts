import { defineConfig } from 'vitest/config';
export default defineConfig({ test: { pool: 'forks', isolate: false, maxWorkers: 2, disableConsoleIntercept: true, testTimeout: 60000, hookTimeout: 60000,
  include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'test/architecture/**/*.test.ts', 'test/cli/**/*.test.ts'], exclude: ['**/node_modules/**', 'src/engine/storage/etcd-*.test.ts'] } });
