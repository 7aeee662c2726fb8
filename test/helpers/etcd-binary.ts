/**
 * Whether an etcd binary is there to start (`$ETCD_BIN` or `etcd` on PATH), for vitest.config.ts: the `e2e-etcd`
 * project needs one, and CI must not pass quietly without it.
 */
import { spawnSync } from 'node:child_process';

export function etcdBinary(): string {
  return process.env.ETCD_BIN ?? 'etcd';
}

/** `etcd --version`'s first line, or undefined when it cannot be run. */
export function etcdVersion(): string | undefined {
  const result = spawnSync(etcdBinary(), ['--version'], { encoding: 'utf8', timeout: 10_000 });
  if (result.status !== 0) return undefined;
  return result.stdout.split('\n')[0]?.trim();
}
