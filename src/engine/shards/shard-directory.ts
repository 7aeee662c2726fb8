/**
 * The Shards of the deployment, as the scheduler and the cross-shard controllers need them. On the root shard they
 * are objects of its own store (cluster `root`), re-read when one changes; a non-root shard keeps a copy listed from
 * root, refreshed every few seconds (and when asked), and keeps the last good copy while root is unreachable.
 */
import type { KubeObject } from '../registry/types.js';
import type { Store, WatchHandle } from '../storage/store.js';
import { decodeStored } from '../registry/stored-object.js';
import type { ShardDirectory } from '../tenancy/shard-placement.js';
import type { ShardClient } from './shard-client.js';

export const shardsPrefix = '/registry/core.kcp.io/shards/root/';

/** The root shard's view: its own store. */
export class LocalShardDirectory implements ShardDirectory {
  private cached?: readonly KubeObject[];
  private watch?: WatchHandle;
  private readonly listeners: Array<() => void> = [];

  constructor(private readonly store: Store) {}

  shards(): readonly KubeObject[] {
    // Without the watch running (before start) nothing would invalidate a cached answer.
    if (this.cached && this.watch) return this.cached;
    const list = Object.freeze(this.store.list(shardsPrefix).items.map((kv) => Object.freeze(decodeStored(kv))));
    if (this.watch) this.cached = list;
    return list;
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  start(): void {
    this.watch = this.store.watch(shardsPrefix, this.store.currentRevision(), () => {
      this.cached = undefined;
      for (const l of this.listeners) l();
    });
  }

  stop(): void {
    this.watch?.cancel();
    this.watch = undefined;
  }
}

const REFRESH_MS = 3000;

/** A non-root shard's view: root's Shards, listed through the root shard kubeconfig. */
export class RemoteShardDirectory implements ShardDirectory {
  private list: readonly KubeObject[] = [];
  private fingerprint = '';
  private timer?: NodeJS.Timeout;
  private refreshing?: Promise<void>;
  private readonly listeners: Array<() => void> = [];

  constructor(
    private readonly client: ShardClient,
    private readonly onError: (message: string) => void = () => {},
  ) {}

  shards(): readonly KubeObject[] {
    return this.list;
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  start(): void {
    const tick = () => {
      void this.refresh().finally(() => {
        if (this.timer !== undefined) this.timer = setTimeout(tick, REFRESH_MS).unref();
      });
    };
    this.timer = setTimeout(tick, 0).unref();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Lists root's Shards now (one list at a time); keeps the last good answer on failure. */
  refresh(): Promise<void> {
    this.refreshing ??= this.fetch().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async fetch(): Promise<void> {
    try {
      const res = await this.client.root<{ items?: KubeObject[] }>('GET', '/clusters/root/apis/core.kcp.io/v1alpha1/shards');
      if (res.status !== 200) return this.onError(`listing Shards in root: HTTP ${res.status}`);
      const items = (res.body.items ?? []).map((s) => Object.freeze({ metadata: s.metadata, spec: s.spec }) as KubeObject);
      const fingerprint = JSON.stringify(items.map((s) => [s.metadata?.name, s.metadata?.labels, s.metadata?.annotations, s.spec]));
      this.list = Object.freeze(items);
      if (fingerprint !== this.fingerprint) {
        this.fingerprint = fingerprint;
        for (const l of this.listeners) l();
      }
    } catch (err) {
      this.onError(`listing Shards in root: ${(err as Error).message}`);
    }
  }
}
