/**
 * The moving parts of the informer soak: a driver that creates, changes and deletes custom resources at a steady
 * pace, a controller that writes status through the status subresource with optimistic concurrency, a ledger of
 * every write's result (the truth the informers are held to), and an observer that records what an informer saw.
 */
import type * as k8s from '@kubernetes/client-node';
import { sleep } from './kubectl.js';
import { isOwnAbort, statusOf, type ClientNode } from './custom-resources.js';

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';
export interface SeenEvent {
  type: EventType;
  rv: number;
}

export interface Widget extends k8s.KubernetesObject {
  spec?: { size?: number };
  status?: { observedGeneration?: number; seenSize?: number };
}

export interface Resource {
  group: string;
  version: string;
  plural: string;
  kind: string;
}

export const keyOf = (o: k8s.KubernetesObject) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
const rvOf = (o: k8s.KubernetesObject) => Number(o.metadata?.resourceVersion);

/** Every successful write, per object, with the resourceVersion the server answered. */
export class Ledger {
  readonly writes = new Map<string, SeenEvent[]>();
  record(key: string, type: EventType, rv: number): void {
    let list = this.writes.get(key);
    if (!list) this.writes.set(key, (list = []));
    list.push({ type, rv });
  }
  /** What an informer must have seen for `key`: the writes in revision order (a delete's revision is unknown). */
  expected(key: string): SeenEvent[] {
    const list = [...(this.writes.get(key) ?? [])];
    const deleted = list.filter((e) => e.type === 'DELETED');
    const rest = list.filter((e) => e.type !== 'DELETED').sort((a, b) => a.rv - b.rv);
    return deleted.length ? [...rest, { type: 'DELETED', rv: 0 }] : rest;
  }
}

/** What one informer reported through its add/update/delete callbacks, per object. */
export class Observer {
  readonly seen = new Map<string, SeenEvent[]>();
  readonly errors: unknown[] = [];
  connects = 0;
  lists = 0;
  constructor(informer: k8s.Informer<Widget>) {
    const push = (type: EventType) => (o: Widget) => {
      let list = this.seen.get(keyOf(o));
      if (!list) this.seen.set(keyOf(o), (list = []));
      list.push({ type, rv: type === 'DELETED' ? 0 : rvOf(o) });
    };
    informer.on('add', push('ADDED'));
    informer.on('update', push('MODIFIED'));
    informer.on('delete', push('DELETED'));
    informer.on('connect', () => (this.connects += 1));
    informer.on('error', (err) => {
      if (!isOwnAbort(err)) this.errors.push(err);
    });
  }
  /** Wraps a list function so that relists are counted. */
  counting<T>(list: () => Promise<T>): () => Promise<T> {
    return () => {
      this.lists += 1;
      return list();
    };
  }
  eventCount(): number {
    let n = 0;
    for (const list of this.seen.values()) n += list.length;
    return n;
  }
}

/** Differences between what an observer saw and the ledger, for the objects `include` selects. */
export function mismatches(ledger: Ledger, observer: Observer, include: (key: string) => boolean): string[] {
  const out: string[] = [];
  const keys = new Set([...ledger.writes.keys(), ...observer.seen.keys()].filter(include));
  for (const key of [...keys].sort()) {
    const want = ledger.expected(key).map((e) => `${e.type}@${e.rv || ''}`);
    const got = (observer.seen.get(key) ?? []).map((e) => `${e.type}@${e.rv || ''}`);
    if (want.join(' ') !== got.join(' ')) out.push(`${key}: want [${want.join(' ')}] got [${got.join(' ')}]`);
  }
  return out;
}

/**
 * A Watch that remembers why each stream ended (null: the server ended it; TimeoutError: client-node 2.x gave up
 * on an idle stream) and every raw event's resourceVersion per object, so duplicates hidden by the informer's
 * "same resourceVersion" check still show.
 */
export function countingWatch(lib: ClientNode, kc: k8s.KubeConfig) {
  const ends: string[] = [];
  const raw = new Map<string, number[]>();
  const watch = new lib.Watch(kc);
  const original = watch.watch.bind(watch);
  watch.watch = (path, query, callback, done) =>
    original(
      path,
      query,
      (type, obj: k8s.KubernetesObject, whole) => {
        if (type !== 'BOOKMARK' && type !== 'ERROR') {
          let list = raw.get(keyOf(obj));
          if (!list) raw.set(keyOf(obj), (list = []));
          list.push(rvOf(obj));
        }
        callback(type, obj, whole);
      },
      (err) => {
        ends.push(err ? ((err as { name?: string }).name ?? String(err)) : 'server-end');
        done(err);
      },
    );
  return { watch, ends, raw };
}

export interface SoakApi {
  objects: k8s.CustomObjectsApi;
  resource: Resource;
}

const idOf = (r: Resource, namespace: string, name: string) => ({
  group: r.group,
  version: r.version,
  plural: r.plural,
  namespace,
  name,
});

/**
 * Keeps status.observedGeneration and status.seenSize in line with each object, from an informer's cache. A write
 * based on a stale copy answers 409; the controller then reads the object again and retries (never gives up
 * silently: `failures` lists what it could not do).
 */
export class StatusController {
  retries409 = 0;
  writes = 0;
  readonly failures: string[] = [];
  private readonly queue = new Set<string>();
  private wake: (() => void) | undefined;
  private stopped = false;
  private running: Promise<void> | undefined;

  constructor(
    private readonly api: SoakApi,
    private readonly cache: k8s.ObjectCache<Widget>,
    private readonly ledger: Ledger,
  ) {}

  enqueue = (o: Widget) => {
    this.queue.add(keyOf(o));
    this.wake?.();
  };

  start(): void {
    this.running = (async () => {
      while (!this.stopped) {
        const key = this.queue.values().next().value as string | undefined;
        if (key === undefined) {
          await new Promise<void>((resolve) => (this.wake = resolve));
          continue;
        }
        this.queue.delete(key);
        await this.reconcile(key);
      }
    })();
  }

  idle(): boolean {
    return this.queue.size === 0;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.running;
  }

  private async reconcile(key: string): Promise<void> {
    const [namespace, name] = key.split('/') as [string, string];
    let current: Widget | undefined = this.cache.get(name, namespace);
    for (let attempt = 0; current && attempt < 20; attempt++) {
      const generation = current.metadata?.generation;
      const size = current.spec?.size;
      if (current.status?.observedGeneration === generation && current.status?.seenSize === size) return;
      const body: Widget = { ...current, status: { observedGeneration: generation, seenSize: size } };
      try {
        const written = (await this.api.objects.replaceNamespacedCustomObjectStatus({
          ...idOf(this.api.resource, namespace, name),
          body,
        })) as Widget;
        this.writes += 1;
        if (rvOf(written) !== rvOf(current)) this.ledger.record(key, 'MODIFIED', rvOf(written));
        return;
      } catch (err) {
        const code = statusOf(err);
        if (code === 404) return; // deleted meanwhile: nothing to do
        if (code !== 409) {
          this.failures.push(`${key}: status write failed: ${String(err)}`);
          return;
        }
        this.retries409 += 1;
        current = await this.api.objects
          .getNamespacedCustomObject(idOf(this.api.resource, namespace, name))
          .then((o) => o as Widget, (e: unknown) => (statusOf(e) === 404 ? undefined : Promise.reject(e)));
      }
    }
    if (current) this.failures.push(`${key}: still conflicting after 20 attempts`);
  }
}

export interface DriverOptions {
  namespaces: string[];
  /** Pause between steps. */
  stepMs: number;
  /** Active/idle cycle (idle stretches let client-node 2.x time idle watches out); absent = always active. */
  cycle?: { activeMs: number; idleMs: number };
}

/** An object the driver made and has not deleted, with the size it last wrote. */
interface LiveWidget {
  namespace: string;
  name: string;
  size: number;
}

/** Creates, updates (spec) and deletes objects at a steady pace and records every write in the ledger. */

export class Driver {
  creates = 0;
  updates = 0;
  deletes = 0;
  private readonly live: LiveWidget[] = [];
  private serial = 0;

  constructor(
    private readonly api: SoakApi,
    private readonly ledger: Ledger,
    private readonly opts: DriverOptions,
  ) {}

  async run(durationMs: number): Promise<void> {
    const started = Date.now();
    while (Date.now() - started < durationMs) {
      const { cycle } = this.opts;
      if (cycle && (Date.now() - started) % (cycle.activeMs + cycle.idleMs) >= cycle.activeMs) {
        await sleep(250);
        continue;
      }
      await this.step();
      await sleep(this.opts.stepMs);
    }
  }

  private async step(): Promise<void> {
    const roll = Math.random();
    if (this.live.length < 6 || (roll < 0.3 && this.live.length < 25)) return this.create();
    if (roll < 0.45) return this.remove();
    const changed = await this.update(this.pick());
    // A second change to the same object right behind the first makes the controller's write of the first conflict (409).
    if (Math.random() < 0.3) await this.update(changed);
  }

  private pick() {
    return this.live[Math.floor(Math.random() * this.live.length)]!;
  }

  private async create(): Promise<void> {
    const namespace = this.opts.namespaces[this.serial % this.opts.namespaces.length]!;
    const name = `w-${++this.serial}`;
    const { group, version, kind } = this.api.resource;
    const created = (await this.api.objects.createNamespacedCustomObject({
      ...idOf(this.api.resource, namespace, name),
      body: { apiVersion: `${group}/${version}`, kind, metadata: { name, namespace }, spec: { size: 1 } },
    })) as Widget;
    this.creates += 1;
    this.live.push({ namespace, name, size: 1 });
    this.ledger.record(`${namespace}/${name}`, 'ADDED', rvOf(created));
  }

  private async update(target: LiveWidget): Promise<LiveWidget> {
    target.size += 1;
    const patched = (await this.api.objects.patchNamespacedCustomObject({
      ...idOf(this.api.resource, target.namespace, target.name),
      body: [{ op: 'replace', path: '/spec/size', value: target.size }],
    })) as Widget;
    this.updates += 1;
    this.ledger.record(`${target.namespace}/${target.name}`, 'MODIFIED', rvOf(patched));
    return target;
  }

  private async remove(): Promise<void> {
    const target = this.live.splice(Math.floor(Math.random() * this.live.length), 1)[0]!;
    await this.api.objects.deleteNamespacedCustomObject(idOf(this.api.resource, target.namespace, target.name));
    this.deletes += 1;
    this.ledger.record(`${target.namespace}/${target.name}`, 'DELETED', 0);
  }
}
