/**
 * A keyed work queue like client-go's: a key queued many times is processed once, never concurrently with
 * itself, and failures are retried with exponential backoff. Timers are unref'd so they never keep a process
 * (or a test) alive.
 */
/** One key's work; `queue` takes follow-up keys. */
export type Reconcile = (key: string, queue: WorkQueue) => Promise<ReconcileResult | void> | ReconcileResult | void;

export interface ReconcileResult {
  /** Process the key again after this many milliseconds. */
  requeueAfterMs?: number;
}

/** Runs a synchronous burst of work as one storage transaction (Store.group). */
export type Group = <T>(fn: () => T) => T;

export class WorkQueue {
  private readonly pending = new Set<string>();
  private readonly active = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;
  private scheduled = false;

  constructor(
    private readonly name: string,
    private readonly reconcile: Reconcile,
    private readonly onError: (name: string, key: string, err: unknown) => void = () => {},
    /**
     * Given: the synchronous part of every reconcile of one drain runs inside one group, so a burst of keys (the
     * workspaces scheduled or deleted together) commits once instead of once per key.
     */
    private readonly group?: Group,
  ) {}

  add(key: string): void {
    if (this.stopped) return;
    if (this.active.has(key)) {
      this.dirty.add(key);
      return;
    }
    this.pending.add(key);
    this.schedule();
  }

  addAfter(key: string, ms: number): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.add(key);
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.pending.clear();
  }

  /** Resolves once nothing is pending or running (for tests and orderly shutdown). */
  async idle(): Promise<void> {
    while (this.pending.size > 0 || this.active.size > 0) await new Promise((r) => setTimeout(r, 5));
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    const keys = [...this.pending];
    this.pending.clear();
    if (!this.group) {
      await Promise.all(keys.map((key) => this.process(key)));
      return;
    }
    let running: Promise<void>[] = [];
    try {
      // process() runs its reconcile synchronously up to the first await; errors it catches itself.
      this.group(() => (running = keys.map((key) => this.process(key))));
    } catch (err) {
      // The group could not be committed: none of its work persisted, so every key runs again.
      await Promise.allSettled(running);
      for (const key of keys) {
        this.onError(this.name, key, err);
        this.addAfter(key, 100);
      }
      return;
    }
    await Promise.all(running);
  }

  private async process(key: string): Promise<void> {
    if (this.stopped) return;
    this.active.add(key);
    try {
      const result = await this.reconcile(key, this);
      this.failures.delete(key);
      if (result?.requeueAfterMs !== undefined) this.addAfter(key, result.requeueAfterMs);
    } catch (err) {
      const n = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, n);
      this.onError(this.name, key, err);
      this.addAfter(key, Math.min(5 * 2 ** n, 30_000));
    } finally {
      this.active.delete(key);
      if (this.dirty.delete(key)) this.add(key);
    }
  }
}

/** The `<cluster>|<name>` key most reconcilers queue, split back (a cluster name never holds `|`). */
export function splitClusterKey(key: string): { cluster: string; name: string } {
  const sep = key.indexOf('|');
  return { cluster: key.slice(0, sep), name: key.slice(sep + 1) };
}
