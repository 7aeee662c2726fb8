/**
 * Time-based retention for any Store: every interval, drop logged events older than the retention window
 * (kube-apiserver compacts every 5 min; client-node resumes ~every 30 s, so minutes of history are plenty).
 * Work goes out in small `compact()` slices with a yield to the event loop between them, so requests never wait
 * behind a whole compaction.
 */
import type { Store } from './store.js';

export interface CompactorOptions {
  /** Keep at least this much history. Default 5 minutes. */
  retentionMs?: number;
  /** How often to look. Default 60 s. */
  intervalMs?: number;
  /** Where failures go (the compactor keeps running). Default: a process warning. */
  onError?: (error: unknown) => void;
  /** Clock, for tests. */
  now?: () => number;
}

/** Stores that know when each revision was logged (both built-in backends do). */
interface RevisionClock {
  latestRevisionBefore(timestampMs: number): number;
}

function hasRevisionClock(store: Store): store is Store & RevisionClock {
  return typeof (store as Partial<RevisionClock>).latestRevisionBefore === 'function';
}

/** Starts compacting in the background; returns the function that stops it. Timers never keep the process alive. */
export function startCompactor(store: Store, options: CompactorOptions = {}): () => void {
  const retentionMs = options.retentionMs ?? 5 * 60_000;
  const intervalMs = options.intervalMs ?? 60_000;
  const now = options.now ?? Date.now;
  const onError = options.onError ?? ((error: unknown) => process.emitWarning(`storage compaction failed: ${String(error)}`));
  // Fallback for stores without timestamps: remember which revision was current when, and compact to the
  // newest sample older than the retention window.
  const samples: Array<{ at: number; revision: number }> = [];
  let stopped = false;
  let running = false;

  const targetRevision = (): number => {
    const cutoff = now() - retentionMs;
    if (hasRevisionClock(store)) return store.latestRevisionBefore(cutoff);
    samples.push({ at: now(), revision: store.currentRevision() });
    let target = 0;
    while (samples.length > 0 && samples[0]!.at <= cutoff) target = samples.shift()!.revision;
    return target;
  };

  const slice = (target: number): void => {
    if (stopped) {
      running = false;
      return;
    }
    try {
      const before = store.compactedRevision();
      store.compact(target);
      if (store.compactedRevision() > before) {
        setImmediate(slice, target).unref();
        return;
      }
    } catch (error) {
      onError(error);
    }
    running = false;
  };

  const tick = (): void => {
    if (stopped || running) return;
    try {
      const target = targetRevision();
      if (target <= store.compactedRevision()) return;
      running = true;
      slice(target);
    } catch (error) {
      running = false;
      onError(error);
    }
  };

  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
