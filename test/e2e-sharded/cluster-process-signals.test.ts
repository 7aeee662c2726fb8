/**
 * `kcpt start --shards`: the shards are child processes of the cluster process, and none outlives it. A SIGTERM
 * while the shards are still starting (a script that gave up waiting, say) stops them; a cluster process killed with
 * SIGKILL, with no chance to stop anything, leaves shards that notice their parent is gone and stop by themselves.
 * Each test starts its own cluster (it kills it).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { printedKubeconfig, spawnKcpt, useScratchDirectory } from '../helpers/cli.js';
import { eventually } from '../helpers/eventually.js';

const scratch = useScratchDirectory('kcpt-cluster-signals-');
const seen = new Set<number>();

afterAll(() => {
  // Whatever a failed test left running must not outlive the run.
  for (const pid of seen) if (running(pid)) process.kill(pid, 'SIGKILL');
});

/** A process that exists and is not a zombie (an orphan's zombie may never be reaped in a container). */
function running(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
}

async function shardPids(parent: number): Promise<number[]> {
  const r = await execa('pgrep', ['-P', String(parent)], { reject: false });
  const pids = String(r.stdout).split('\n').filter(Boolean).map(Number);
  for (const pid of pids) seen.add(pid);
  return pids;
}

function startCluster(name: string) {
  const home = join(scratch.path, `${name}-home`);
  return spawnKcpt(['start', '--root-directory', join(scratch.path, name), '--secure-port', '0', '--shards', '2'], { HOME: home, NO_COLOR: '1' });
}

describe('kcpt start --shards: no shard outlives the cluster process', () => {
  it('a SIGTERM while the shards start stops them, and the cluster process exits 0 saying so', async () => {
    const cluster = startCluster('early');
    const pid = cluster.child.pid!;
    const started = await eventually('the root shard launched', async () => {
      const pids = await shardPids(pid);
      expect(pids.length).toBeGreaterThan(0);
      return pids;
    });
    expect(cluster.output()).not.toContain('export KUBECONFIG=');
    cluster.child.kill('SIGTERM');
    const exited = await cluster.child;
    expect(exited.exitCode, cluster.output()).toBe(0);
    expect(cluster.output()).toContain('received SIGTERM while starting');
    await eventually('the shards stopped', () => {
      expect(started.filter(running)).toEqual([]);
      return true;
    });
  }, 60_000);

  it('shards of a cluster process killed with SIGKILL stop by themselves', async () => {
    const cluster = startCluster('killed');
    await printedKubeconfig(cluster, 90_000);
    const pid = cluster.child.pid!;
    const shards = await shardPids(pid);
    expect(shards).toHaveLength(2);
    expect(shards.filter(running)).toHaveLength(2);
    cluster.child.kill('SIGKILL');
    await cluster.child;
    await eventually('the orphaned shards stopped', () => {
      expect(shards.filter(running)).toEqual([]);
      return true;
    });
  }, 120_000);
});
