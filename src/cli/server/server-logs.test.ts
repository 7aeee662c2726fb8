import { describe, expect, it } from 'vitest';
import { latestRun } from './server-logs.js';

const log = [
  '--- kcpt start --detach at 2026-01-01T00:00:00.000Z ---',
  'kcpt is ready at https://127.0.0.1:6443 (started in 100 ms). Point kubectl at it with:',
  'received SIGTERM, shutting down',
  '--- kcpt start --detach at 2026-01-02T00:00:00.000Z ---',
  'kcpt is ready at https://127.0.0.1:7443 (started in 90 ms). Point kubectl at it with:',
  '  export KUBECONFIG=/tmp/kcp/admin.kubeconfig',
  '',
].join('\n');

describe('kcpt logs', () => {
  it('prints the latest run, or its last N lines', () => {
    expect(latestRun(log)).toBe('kcpt is ready at https://127.0.0.1:7443 (started in 90 ms). Point kubectl at it with:\n  export KUBECONFIG=/tmp/kcp/admin.kubeconfig\n');
    expect(latestRun(log, 1)).toBe('  export KUBECONFIG=/tmp/kcp/admin.kubeconfig\n');
    expect(latestRun('no header\n', 5)).toBe('no header\n');
  });
});
