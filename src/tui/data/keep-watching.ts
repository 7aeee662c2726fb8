/**
 * List, then watch from the list's resourceVersion, for as long as the browser needs a collection: the server ending
 * a watch resumes it from the last event; 410 Gone (history compacted) relists; a connection failure reports the
 * server gone and retries with a growing pause (up to 5 s) until it answers again, then relists (events in between
 * are not replayed by a restarted server). Any other error (403, 404) is reported once and ends the loop: retrying
 * cannot fix it.
 */
import { ApiError, ConnectionError } from '../../client/errors.js';
import type { WatchEvent } from '../../client/http-client.js';
import type { Listed } from './workspace-source.js';

export interface WatchedCollection<T> {
  list(signal: AbortSignal): Promise<Listed<T>>;
  watch(resourceVersion: string | undefined, signal: AbortSignal): AsyncIterable<WatchEvent<T>>;
  listed(items: T[]): void;
  changed(type: 'ADDED' | 'MODIFIED' | 'DELETED', item: T): void;
  failed(err: unknown): void;
  /** The server could not be reached (why, and how many tries in a row failed), or answers again (undefined). */
  connection(offline: string | undefined, failedTries?: number): void;
}

const firstPauseMs = 250;
const longestPauseMs = 5_000;

export async function keepWatching<T extends { metadata?: { resourceVersion?: string } }>(c: WatchedCollection<T>, signal: AbortSignal): Promise<void> {
  let pause = firstPauseMs;
  let failedTries = 0;
  while (!signal.aborted) {
    try {
      const { items, resourceVersion } = await c.list(signal);
      if (signal.aborted) return;
      if (failedTries > 0) c.connection(undefined);
      c.listed(items);
      pause = firstPauseMs;
      failedTries = 0;
      let rv = resourceVersion;
      while (!signal.aborted) {
        for await (const event of c.watch(rv, signal)) {
          rv = event.object.metadata?.resourceVersion ?? rv;
          if (event.type !== 'BOOKMARK') c.changed(event.type, event.object);
        }
      }
    } catch (err) {
      if (signal.aborted || (err as Error).name === 'AbortError') return;
      if (err instanceof ApiError && err.status === 410) continue;
      if (!(err instanceof ConnectionError)) {
        c.failed(err);
        return;
      }
      c.connection(err.message, ++failedTries);
      await sleep(pause, signal);
      pause = Math.min(longestPauseMs, pause * 2);
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
