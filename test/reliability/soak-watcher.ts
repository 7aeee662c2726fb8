/**
 * One soak watcher: lists (or starts from a known revision), watches with bookmarks over keep-alive HTTPS — its own
 * streaming request, or @kubernetes/client-node's Watch — and keeps going the way a client does: a stream that ends
 * is resumed from the last revision seen, a 410 Gone relists and watches from the list's revision. Some watchers
 * drop their connection now and then on purpose (and some wait before resuming, long enough for compaction to pass
 * them). Every event is checked on arrival (revisions strictly increasing: a repeat or a step back is a duplicate)
 * and kept, per segment, for the ledger check at the end.
 */
import type { Agent } from 'node:https';
import { request } from 'node:https';
import * as k8s from '@kubernetes/client-node';
import type { TestServer } from '../helpers/server.js';
import type { KeepAliveClient } from './keep-alive-client.js';
import { eventId, objectKey, type EventType, type Interest, type Ledger, type Segment, type SeenIndex } from './soak-ledger.js';

export interface WatcherSpec {
  id: string;
  /** `/clusters/<path or *>` */
  base: string;
  /** The API path below the base, e.g. `/api/v1/namespaces/soak/configmaps`. */
  path: string;
  resource: string;
  labelSelector?: string;
  /** What the ledger holds this watcher to; undefined: checked only against a final list (e.g. Workspaces). */
  interest?: Interest;
  client: 'raw' | 'client-node';
  /** Drop the connection this often (ms) and resume from the last revision. */
  dropEveryMs?: number;
  /** Wait this long after a drop before resuming (past the history window: expect a 410 and a relist). */
  resumeDelayMs?: number;
}

export interface WatcherCounters {
  events: number;
  duplicates: number;
  drops: number;
  resumes: number;
  gone: number;
  relists: number;
  serverErrors: number;
  errors: string[];
}

export interface WatchEnv {
  server: TestServer;
  token: string;
  /** Keep-alive agent shared by the raw watch streams. */
  agent: Agent;
  /** For lists (relists and the final comparison). */
  client: KeepAliveClient;
  /** A KubeConfig at the server's base URL (no /clusters suffix), for client-node watchers. */
  kubeConfig: k8s.KubeConfig;
  ledger: Ledger;
}

interface WatchObject {
  kind?: string;
  code?: number;
  metadata?: { name?: string; namespace?: string; resourceVersion?: string; annotations?: Record<string, string> };
}

export class SoakWatcher implements SeenIndex {
  readonly segments: Segment[] = [];
  private readonly seenIds = new Set<string>();
  readonly state = new Map<string, number>();
  readonly counters: WatcherCounters = { events: 0, duplicates: 0, drops: 0, resumes: 0, gone: 0, relists: 0, serverErrors: 0, errors: [] };
  lastRv = 0;
  private generation = 0;
  private abortCurrent: (() => void) | undefined;
  private stopped = false;
  /** A list is in flight: drops and resumes wait for it (it ends by opening the next watch itself). */
  private relisting = false;
  private dropTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly spec: WatcherSpec,
    private readonly env: WatchEnv,
  ) {}

  private url(params: Record<string, string>): string {
    const query = new URLSearchParams(params);
    if (this.spec.labelSelector) query.set('labelSelector', this.spec.labelSelector);
    return `${this.spec.base}${this.spec.path}?${query.toString()}`;
  }

  /** Lists (at `exactRv` when given: a past revision, as a late client resuming from its cache would) and watches. */
  async start(exactRv?: number): Promise<void> {
    await this.relist(exactRv);
    if (this.spec.dropEveryMs) {
      this.dropTimer = setInterval(() => this.drop(), this.spec.dropEveryMs);
      this.dropTimer.unref();
    }
  }

  covers(rv: number, head: number): boolean {
    return this.segments.some((seg) => rv > seg.start && rv <= (seg.end ?? head));
  }

  hasSeen(id: string): boolean {
    return this.seenIds.has(id);
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.dropTimer);
    this.generation++;
    this.abortCurrent?.();
  }

  private async relist(exactRv?: number): Promise<void> {
    this.relisting = true;
    this.generation++;
    this.abortCurrent?.();
    const params: Record<string, string> = exactRv ? { resourceVersion: String(exactRv), resourceVersionMatch: 'Exact' } : {};
    const res = await this.env.client.send({ method: 'GET', path: this.url(params) }, 30_000);
    if (res.status >= 500) this.counters.serverErrors++;
    if (res.status === 410 && exactRv) return this.relist();
    if (res.status !== 200) throw new Error(`${this.spec.id}: list answered ${res.status}: ${res.body.slice(0, 300)}`);
    const list = JSON.parse(res.body) as { metadata: { resourceVersion: string }; items: WatchObject[] };
    const rv = Number(list.metadata.resourceVersion);
    if (this.segments.length > 0) {
      this.segments[this.segments.length - 1]!.end = this.lastRv;
      this.counters.relists++;
    }
    this.state.clear();
    for (const item of list.items) this.state.set(objectKey(this.spec.resource, item), Number(item.metadata?.resourceVersion));
    this.lastRv = rv;
    this.segments.push({ start: rv, events: [] });
    this.relisting = false;
    this.open();
  }

  private drop(): void {
    if (this.stopped || this.relisting) return;
    this.counters.drops++;
    this.generation++;
    this.abortCurrent?.();
    const delay = this.spec.resumeDelayMs ?? 0;
    setTimeout(() => this.resume(), delay).unref();
  }

  private resume(): void {
    if (this.stopped || this.relisting) return;
    this.counters.resumes++;
    this.open();
  }

  private open(): void {
    if (this.stopped) return;
    this.abortCurrent?.();
    const gen = ++this.generation;
    const onEvent = (type: string, obj: WatchObject) => {
      if (gen === this.generation) this.onEvent(type, obj);
    };
    const onEnd = (err?: { status?: number; message: string }) => {
      if (gen !== this.generation || this.stopped) return;
      this.generation++;
      if (err?.status === 410) return this.onGone();
      if (err) {
        if ((err.status ?? 0) >= 500) this.counters.serverErrors++;
        this.counters.errors.push(`${this.spec.id}: ${err.message}`);
      }
      // The server (or the network) ended the stream: resume where we were, as client-go's reflector does.
      setTimeout(() => this.resume(), 200).unref();
    };
    const params = { watch: 'true', resourceVersion: String(this.lastRv), allowWatchBookmarks: 'true' };
    if (this.spec.client === 'raw') this.abortCurrent = this.openRaw(this.url(params), onEvent, onEnd);
    else this.abortCurrent = this.openClientNode(params, onEvent, onEnd);
  }

  private onGone(): void {
    if (this.stopped || this.relisting) return;
    this.counters.gone++;
    this.relist().catch((err: Error) => {
      this.counters.errors.push(`${this.spec.id}: relist: ${err.message}`);
      this.relisting = false;
      setTimeout(() => this.onGone(), 500).unref();
    });
  }

  private onEvent(type: string, obj: WatchObject): void {
    if (type === 'BOOKMARK') {
      this.lastRv = Math.max(this.lastRv, Number(obj.metadata?.resourceVersion));
      return;
    }
    if (type === 'ERROR') {
      // The history this watch resumes from was compacted: end the stream, relist.
      if (obj.code === 410) {
        this.generation++;
        this.abortCurrent?.();
        this.onGone();
        return;
      }
      if ((obj.code ?? 0) >= 500) this.counters.serverErrors++;
      this.counters.errors.push(`${this.spec.id}: ERROR event ${JSON.stringify(obj)}`);
      return;
    }
    const rv = Number(obj.metadata?.resourceVersion);
    const key = objectKey(this.spec.resource, obj);
    this.counters.events++;
    if (!(rv > this.lastRv)) {
      this.counters.duplicates++;
      this.counters.errors.push(`${this.spec.id}: ${type} ${key}@${rv} after ${this.lastRv} (duplicate or out of order)`);
      return;
    }
    this.lastRv = rv;
    const event = { type: type as EventType, key, rv };
    this.segments[this.segments.length - 1]!.events.push(event);
    this.seenIds.add(eventId(event));
    if (type === 'DELETED') {
      this.state.delete(key);
      if (this.spec.interest) this.env.ledger.observeDelete(key, rv);
    } else this.state.set(key, rv);
  }

  private openRaw(path: string, onEvent: (type: string, obj: WatchObject) => void, onEnd: (err?: { status?: number; message: string }) => void): () => void {
    const { server, token, agent } = this.env;
    const req = request({ hostname: '127.0.0.1', port: server.port, path, method: 'GET', agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
      if (res.statusCode !== 200) {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString('utf8')));
        res.on('end', () => onEnd({ status: res.statusCode, message: `watch answered ${res.statusCode}: ${body.slice(0, 300)}` }));
        return;
      }
      let buffered = '';
      res.on('data', (chunk: Buffer) => {
        buffered += chunk.toString('utf8');
        for (let nl = buffered.indexOf('\n'); nl !== -1; nl = buffered.indexOf('\n')) {
          const line = buffered.slice(0, nl).trim();
          buffered = buffered.slice(nl + 1);
          if (!line) continue;
          const event = JSON.parse(line) as { type: string; object: WatchObject };
          onEvent(event.type, event.object);
        }
      });
      res.on('end', () => onEnd());
      res.on('error', (err) => onEnd({ message: err.message }));
    });
    req.on('error', (err) => onEnd({ message: err.message }));
    req.end();
    return () => req.destroy();
  }

  private openClientNode(params: Record<string, string>, onEvent: (type: string, obj: WatchObject) => void, onEnd: (err?: { status?: number; message: string }) => void): () => void {
    const watch = new k8s.Watch(this.env.kubeConfig);
    const query: Record<string, string | boolean> = { resourceVersion: params.resourceVersion!, allowWatchBookmarks: true };
    if (this.spec.labelSelector) query.labelSelector = this.spec.labelSelector;
    let controller: AbortController | undefined;
    let aborted = false;
    watch
      .watch(`${this.spec.base}${this.spec.path}`, query, (type, obj) => onEvent(type, obj as WatchObject), (err: unknown) => {
        if (aborted) return;
        if (!err) return onEnd();
        const e = err as { statusCode?: number; message?: string; name?: string };
        if (e.name === 'AbortError') return;
        onEnd({ status: e.statusCode, message: `client-node watch: ${e.message ?? String(err)}` });
      })
      .then((c) => {
        controller = c;
        if (aborted) c.abort();
      })
      .catch((err: { statusCode?: number; message?: string }) => onEnd({ status: err.statusCode, message: `client-node watch: ${err.message}` }));
    return () => {
      aborted = true;
      controller?.abort();
    };
  }
}
