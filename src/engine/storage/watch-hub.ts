/**
 * In-process watch fan-out shared by every backend. Commits are synchronous, so a store publishes each
 * commit's events right after it and no polling is needed (kine polls because its writers can be elsewhere).
 */
import { directoryOf } from './keys.js';
import type { StoreEvent, WatchHandle, WatchListener } from './store.js';

export type ListenerErrorHandler = (error: unknown, prefix: string) => void;

class Watcher {
  /** Highest revision delivered (or skipped as already replayed); later duplicates are dropped by it. */
  lastRevision: number;
  cancelled = false;
  replaying = true;
  /** Live batches that arrived while the replay was still being delivered (only on re-entrant commits). */
  pending: StoreEvent[][] = [];

  constructor(
    readonly prefix: string,
    fromRevision: number,
    readonly listener: WatchListener,
  ) {
    this.lastRevision = fromRevision;
  }
}

export class WatchHub {
  /**
   * Watchers filed by the `/`-terminated directory of their prefix. An event looks up only the handful of
   * directories its own key has (`''`, `/registry/`, `/registry/core/`, …), so a commit costs O(key depth),
   * not O(watchers), even with thousands of per-workspace watches.
   */
  private readonly byDirectory = new Map<string, Set<Watcher>>();
  private readonly queue: StoreEvent[][] = [];
  private delivering = false;

  constructor(private readonly onListenerError: ListenerErrorHandler = reportListenerError) {}

  get size(): number {
    let total = 0;
    for (const set of this.byDirectory.values()) total += set.size;
    return total;
  }

  /**
   * Registers a watcher, delivers `replay` (pages of logged events with fromRevision < revision ≤ upTo, in
   * order), then leaves it subscribed to live events. Everything happens before this returns.
   */
  subscribe(
    prefix: string,
    fromRevision: number,
    upTo: number,
    listener: WatchListener,
    replay: Iterable<StoreEvent[]>,
  ): WatchHandle {
    const watcher = new Watcher(prefix, fromRevision, listener);
    const directory = directoryOf(prefix);
    let set = this.byDirectory.get(directory);
    if (!set) this.byDirectory.set(directory, (set = new Set()));
    set.add(watcher);
    const handle: WatchHandle = { cancel: () => this.remove(watcher, directory) };
    try {
      for (const page of replay) {
        if (watcher.cancelled) break;
        this.deliver(watcher, page);
      }
      if (watcher.lastRevision < upTo) watcher.lastRevision = upTo;
    } catch (error) {
      // A failing replay read must not leave a half-registered watcher behind.
      this.remove(watcher, directory);
      throw error;
    } finally {
      watcher.replaying = false;
    }
    for (const batch of watcher.pending.splice(0)) this.deliver(watcher, batch);
    return handle;
  }

  /** Delivers one commit's events (revision order). Re-entrant commits from inside a listener are queued. */
  publish(events: StoreEvent[]): void {
    if (events.length === 0 || this.byDirectory.size === 0) return;
    this.queue.push(events);
    if (this.delivering) return;
    this.delivering = true;
    try {
      for (let batch = this.queue.shift(); batch; batch = this.queue.shift()) this.fanOut(batch);
    } finally {
      this.delivering = false;
    }
  }

  private fanOut(events: StoreEvent[]): void {
    if (events.length === 1) return this.fanOutOne(events);
    const matches = new Map<Watcher, StoreEvent[]>();
    for (const event of events) {
      const key = event.key;
      // Walk the key's own directories: '' then every '/'-terminated prefix.
      for (let end = 0; end !== -1; end = key.indexOf('/', end) + 1 || -1) {
        const set = this.byDirectory.get(key.slice(0, end));
        if (!set) continue;
        for (const watcher of set) {
          if (!key.startsWith(watcher.prefix)) continue;
          const list = matches.get(watcher);
          if (list) list.push(event);
          else matches.set(watcher, [event]);
        }
      }
    }
    for (const [watcher, batch] of matches) {
      if (watcher.replaying) watcher.pending.push(batch);
      else this.deliver(watcher, batch);
    }
  }

  /**
   * A one-event commit (most writes): every matching watcher gets the commit's own array, with no per-commit map of
   * matches. Listeners only read their batch.
   */
  private fanOutOne(events: StoreEvent[]): void {
    const key = events[0]!.key;
    for (let end = 0; end !== -1; end = key.indexOf('/', end) + 1 || -1) {
      const set = this.byDirectory.get(key.slice(0, end));
      if (!set) continue;
      for (const watcher of set) {
        if (!key.startsWith(watcher.prefix)) continue;
        if (watcher.replaying) watcher.pending.push(events);
        else this.deliver(watcher, events);
      }
    }
  }

  private deliver(watcher: Watcher, batch: StoreEvent[]): void {
    if (watcher.cancelled) return;
    const fresh = batch[0]!.revision > watcher.lastRevision ? batch : batch.filter((e) => e.revision > watcher.lastRevision);
    if (fresh.length === 0) return;
    watcher.lastRevision = fresh[fresh.length - 1]!.revision;
    try {
      watcher.listener(fresh);
    } catch (error) {
      // One broken consumer must not stop the commit that triggered it or starve the other watchers.
      this.onListenerError(error, watcher.prefix);
    }
  }

  private remove(watcher: Watcher, directory: string): void {
    watcher.cancelled = true;
    watcher.pending.length = 0;
    const set = this.byDirectory.get(directory);
    if (!set) return;
    set.delete(watcher);
    if (set.size === 0) this.byDirectory.delete(directory);
  }

  /** Cancels every watcher (store close). */
  clear(): void {
    for (const set of this.byDirectory.values()) for (const watcher of set) watcher.cancelled = true;
    this.byDirectory.clear();
  }
}

function reportListenerError(error: unknown, prefix: string): void {
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.emitWarning(`storage watch listener for "${prefix}" threw: ${detail}`, 'StorageWatchWarning');
}
