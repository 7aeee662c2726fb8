/**
 * globalSetup of the `e2e-etcd` and `e2e-sharded` projects in CI: without an etcd binary the project cannot run, and CI says so before
 * any test starts instead of reporting a green run that skipped the etcd backend (locally vitest.config.ts leaves
 * the project out with one line instead).
 */
import { etcdBinary, etcdVersion } from './etcd-binary.js';

export default function setup(): void {
  if (etcdVersion() === undefined) {
    throw new Error(
      `the e2e-etcd and e2e-sharded projects need etcd, but \`${etcdBinary()} --version\` did not run: install it (Debian: apt-get install etcd-server; .ci/run does) or set ETCD_BIN`,
    );
  }
}
