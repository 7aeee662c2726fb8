/**
 * A non-root shard registers itself in root as Shard `<name>` (label `name=<name>`, its URLs in spec), creating or
 * updating it, as kcp's shard does at start. Root may be down when the shard starts or restarts: the shard serves
 * anyway and retries with backoff until root has taken the current URLs.
 */
import type { KubeObject } from '../registry/types.js';
import type { ShardSpec } from '../tenancy/shard-placement.js';
import { statusMessage, type ShardClient } from './shard-client.js';

const SHARDS_PATH = '/clusters/root/apis/core.kcp.io/v1alpha1/shards';

/** Shard `name` as the shard's flags describe it. */
export function shardObject(name: string, spec: Required<ShardSpec>): KubeObject {
  return {
    apiVersion: 'core.kcp.io/v1alpha1',
    kind: 'Shard',
    metadata: { name, labels: { name }, annotations: { 'kcp.io/cluster': 'root' } },
    spec: { ...spec },
  };
}

/** One attempt: create the Shard, or update the existing one's URLs and `name` label. Throws with root's reason. */
export async function registerShardOnce(client: ShardClient, shard: KubeObject): Promise<void> {
  const name = shard.metadata!.name!;
  const created = await client.root('POST', SHARDS_PATH, shard);
  if (created.status === 201 || created.status === 200) return;
  if (created.status !== 409) throw new Error(`creating Shard ${name} in root: ${statusMessage(created)}`);
  const current = await client.root<KubeObject>('GET', `${SHARDS_PATH}/${name}`);
  if (current.status !== 200) throw new Error(`reading Shard ${name} in root: ${statusMessage(current)}`);
  const existing = current.body;
  const next: KubeObject = {
    ...existing,
    metadata: { ...existing.metadata, labels: { ...(existing.metadata?.labels ?? {}), ...shard.metadata!.labels } },
    spec: { ...((existing.spec ?? {}) as object), ...(shard.spec as object) },
  };
  if (JSON.stringify(next) === JSON.stringify(existing)) return;
  const updated = await client.root('PUT', `${SHARDS_PATH}/${name}`, next);
  if (updated.status !== 200) throw new Error(`updating Shard ${name} in root: ${statusMessage(updated)}`);
}

/** Registers until it works; `stop()` gives up (server shutdown). Resolves when registered or stopped. */
export function keepRegistering(client: ShardClient, shard: KubeObject, log: (line: string) => void): { done: Promise<void>; stop(): void } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;
  const done = (async () => {
    let delay = 250;
    let reported = '';
    while (!stopped) {
      try {
        await registerShardOnce(client, shard);
        if (reported) log(`shard ${shard.metadata!.name}: registered in root`);
        return;
      } catch (err) {
        const message = (err as Error).message;
        if (message !== reported) log(`shard ${shard.metadata!.name}: ${message}; retrying`);
        reported = message;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, delay);
      });
      delay = Math.min(delay * 2, 5000);
    }
  })();
  return {
    done,
    stop() {
      stopped = true;
      clearTimeout(timer);
      wake?.();
    },
  };
}
