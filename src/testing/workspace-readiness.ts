/**
 * Waiting for workspaces to become Ready without polling and without a watch per workspace: one watch on the
 * Workspaces of every logical cluster (`/clusters/*`, which needs the shard admin) for the whole control plane,
 * started before the first workspace is created and resumed from the last event it saw. A workspace's Ready event
 * can arrive before its creator has read the POST answer, so Ready events nobody waits for yet are kept (a few
 * hundred, by uid) for the waiter that registers a moment later.
 */
import { ApiError } from '../client/errors.js';
import type { KubeClient } from '../client/http-client.js';
import type { Workspace } from '../client/workspace-api.js';

const everyWorkspace = '/clusters/*/apis/tenancy.kcp.io/v1alpha1/workspaces';
const keptUnclaimed = 512;

interface Waiter {
  resolve(ws: Workspace): void;
  reject(err: Error): void;
}

export class WorkspaceReadiness {
  private readonly waiters = new Map<string, Waiter>();
  private readonly unclaimed = new Map<string, Workspace>();
  private readonly aborter = new AbortController();
  private resourceVersion = '';
  private running: Promise<void> | undefined;
  private failure: Error | undefined;

  constructor(private readonly client: KubeClient) {}

  /** Lists once for a starting point, then keeps the watch open until stop(). */
  async start(): Promise<void> {
    await this.relist();
    this.running = this.watchLoop();
  }

  /** The workspace (by uid, from its POST answer) once it is Ready; rejects on deletion, timeout or stop. */
  waitReady(created: Workspace, timeoutMs: number): Promise<Workspace> {
    const uid = String(created.metadata.uid ?? '');
    const ready = this.unclaimed.get(uid);
    if (ready) {
      this.unclaimed.delete(uid);
      return Promise.resolve(ready);
    }
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<Workspace>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(uid);
        reject(new Error(`workspace "${created.metadata.name}" did not become Ready within ${timeoutMs} ms`));
      }, timeoutMs);
      const settle = () => {
        clearTimeout(timer);
        this.waiters.delete(uid);
      };
      this.waiters.set(uid, {
        resolve: (ws) => (settle(), resolve(ws)),
        reject: (err) => (settle(), reject(err)),
      });
    });
  }

  async stop(): Promise<void> {
    this.aborter.abort();
    await this.running;
    this.failAll(new Error('the control plane was stopped'));
  }

  private async relist(): Promise<void> {
    const list = await this.client.get<{ metadata?: { resourceVersion?: string }; items?: Workspace[] }>(everyWorkspace);
    this.resourceVersion = list.metadata?.resourceVersion ?? '';
    for (const ws of list.items ?? []) this.observe('MODIFIED', ws);
  }

  private async watchLoop(): Promise<void> {
    const signal = this.aborter.signal;
    while (!signal.aborted) {
      try {
        const query = { resourceVersion: this.resourceVersion, allowWatchBookmarks: true };
        for await (const event of this.client.watch<Workspace>(everyWorkspace, { query, signal })) {
          this.resourceVersion = event.object.metadata?.resourceVersion ?? this.resourceVersion;
          if (event.type !== 'BOOKMARK') this.observe(event.type, event.object);
        }
      } catch (err) {
        if (signal.aborted) return;
        // History compacted past our position: start again from a fresh list (which settles what we missed).
        if (err instanceof ApiError && err.status === 410) {
          await this.relist().catch((e: Error) => this.fail(e));
          continue;
        }
        this.fail(err as Error);
        return;
      }
    }
  }

  private observe(type: string, ws: Workspace): void {
    const uid = String(ws.metadata?.uid ?? '');
    const waiter = this.waiters.get(uid);
    if (type === 'DELETED') {
      waiter?.reject(new Error(`workspace "${ws.metadata.name}" was deleted before it became Ready`));
      this.unclaimed.delete(uid);
      return;
    }
    if (ws.status?.phase !== 'Ready') return;
    if (waiter) return waiter.resolve(ws);
    this.unclaimed.set(uid, ws);
    if (this.unclaimed.size > keptUnclaimed) this.unclaimed.delete(this.unclaimed.keys().next().value!);
  }

  private fail(err: Error): void {
    this.failure = new Error(`watching workspaces failed: ${err.message}`);
    this.failAll(this.failure);
  }

  private failAll(err: Error): void {
    for (const waiter of [...this.waiters.values()]) waiter.reject(err);
  }
}
