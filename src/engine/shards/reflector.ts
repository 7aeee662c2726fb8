/**
 * List-then-watch of one collection on one shard, like client-go's reflector: a full list replaces what the
 * index holds from it, then watch events update it as they happen (so the index trails a change by one event's
 * travel, milliseconds). A broken stream is resumed from the last resourceVersion; an expired one (410) or a
 * shard that went away is listed again, after a short backoff that grows while the shard stays unreachable.
 */
import { ShardRequestError, type ShardClient, type WatchEvent } from './shard-client.js';

export type KubeItem = Record<string, unknown> & {
  metadata?: { name?: string; resourceVersion?: string; annotations?: Record<string, string> };
};

export interface ReflectorHandlers {
  replace(items: KubeItem[]): void;
  upsert(item: KubeItem): void;
  remove(item: KubeItem): void;
  /** Called with true after each successful list, false when the shard cannot be listed or watched. */
  health(ok: boolean, error?: Error): void;
}

const MIN_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 2_000;

export class Reflector {
  private readonly controller = new AbortController();
  private running?: Promise<void>;

  constructor(
    private readonly client: ShardClient,
    /** Collection path, e.g. `/clusters/*\/apis/tenancy.kcp.io/v1alpha1/workspaces`. */
    private readonly path: string,
    private readonly handlers: ReflectorHandlers,
  ) {}

  start(): void {
    this.running ??= this.run();
  }

  async stop(): Promise<void> {
    this.controller.abort();
    await this.running;
  }

  private get stopped(): boolean {
    return this.controller.signal.aborted;
  }

  private async run(): Promise<void> {
    let backoff = MIN_BACKOFF_MS;
    while (!this.stopped) {
      try {
        const list = await this.client.requestJson<{ items?: KubeItem[]; metadata?: { resourceVersion?: string } }>(this.path);
        if (this.stopped) return;
        this.handlers.replace(list.items ?? []);
        this.handlers.health(true);
        backoff = MIN_BACKOFF_MS;
        await this.watchFrom(list.metadata?.resourceVersion ?? '0');
      } catch (err) {
        if (this.stopped) return;
        this.handlers.health(false, err as Error);
        await this.sleep(backoff);
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      }
    }
  }

  /** Watches until the history is gone (410: list again) or the shard fails (thrown). */
  private async watchFrom(resourceVersion: string): Promise<void> {
    let rv = resourceVersion;
    let expired = false;
    while (!this.stopped && !expired) {
      const query = `watch=true&allowWatchBookmarks=true&resourceVersion=${encodeURIComponent(rv)}`;
      await this.client.watch(
        `${this.path}?${query}`,
        (event: WatchEvent) => {
          if (event.type === 'ERROR') {
            expired = (event.object as { code?: number }).code === 410;
            if (!expired) throw new ShardRequestError(`watch ${this.path}: ${String((event.object as { message?: string }).message)}`);
            return;
          }
          const item = event.object as KubeItem;
          rv = item.metadata?.resourceVersion ?? rv;
          if (event.type === 'ADDED' || event.type === 'MODIFIED') this.handlers.upsert(item);
          else if (event.type === 'DELETED') this.handlers.remove(item);
        },
        this.controller.signal,
      );
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.controller.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      }, { once: true });
    });
  }
}
