/**
 * Waiting for one object to reach a state by watching it from the version the caller already has: no polling, no
 * missed change in between. Used only when the create's answer is not already the state wanted.
 */
import { ApiError } from './errors.js';
import type { KubeClient } from './http-client.js';

interface Named {
  metadata?: { name?: string; resourceVersion?: string; [k: string]: unknown };
}

/**
 * Resolves with the first version of the object for which `done` is true; `done` may throw to give up with a
 * reason. Rejects when the object is deleted or `timeoutMs` passes.
 */
export async function waitForObject<T extends Named>(
  client: KubeClient,
  collection: string,
  seen: T,
  done: (obj: T) => boolean,
  opts: { timeoutMs: number; what: string },
): Promise<T> {
  // Not AbortSignal.timeout(): its timer would outlive the wait, and a stopped control plane leaves no timers.
  const aborter = new AbortController();
  const timer = setTimeout(() => aborter.abort(), opts.timeoutMs);
  try {
    return await watchUntil(client, collection, seen, done, opts, aborter.signal);
  } finally {
    clearTimeout(timer);
  }
}

async function watchUntil<T extends Named>(
  client: KubeClient,
  collection: string,
  seen: T,
  done: (obj: T) => boolean,
  opts: { timeoutMs: number; what: string },
  signal: AbortSignal,
): Promise<T> {
  const name = seen.metadata?.name ?? '';
  let resourceVersion = seen.metadata?.resourceVersion;
  for (;;) {
    try {
      const query = { fieldSelector: `metadata.name=${name}`, resourceVersion, timeoutSeconds: Math.ceil(opts.timeoutMs / 1000) };
      for await (const { type, object } of client.watch<T>(collection, { query, signal })) {
        resourceVersion = object.metadata?.resourceVersion ?? resourceVersion;
        if (type === 'DELETED') throw new Error(`${name} was deleted while waiting for ${opts.what}`);
        if (type !== 'BOOKMARK' && done(object)) return object;
      }
    } catch (err) {
      if (signal.aborted) throw new Error(`timed out after ${opts.timeoutMs} ms waiting for ${opts.what}`);
      if (!(err instanceof ApiError && err.status === 410)) throw err;
      const current = await client.get<T>(`${collection}/${name}`);
      if (done(current)) return current;
      resourceVersion = current.metadata?.resourceVersion;
    }
  }
}
