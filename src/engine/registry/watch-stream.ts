/**
 * WATCH: replays history from a resourceVersion (or synthesises ADDED events for the current state), then streams
 * live events from the store's in-process fan-out. Handles selector transitions (an object that stops matching is
 * DELETED for this watcher, carrying the content it last matched with; one that starts matching is ADDED), bookmarks,
 * timeouts and 410 for compacted history.
 */
import { longTimer, type LongTimer } from '../machinery/long-timer.js';
import { CompactedError, type Store, type StoreEvent, type WatchHandle } from '../storage/store.js';
import { listObjects } from './list.js';
import type { ListPredicate } from './predicates.js';
import { readScope } from './read-scope.js';
import { spliceResourceVersion } from './stored-object.js';
import { apiVersionOf, type KubeObject, type ResourceType } from './types.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchSink {
  /** Write one event; returns false when the client is not keeping up. */
  send(type: WatchEventType, objectJson: string): boolean;
  end(): void;
  /** Register a callback for the client going away. */
  onClose(callback: () => void): void;
}

export interface WatchRequest {
  rt: ResourceType;
  /** undefined = every logical cluster (wildcard). */
  cluster: string | undefined;
  namespace: string;
  predicate: ListPredicate;
  resourceVersion?: string;
  sendInitialEvents?: boolean;
  allowWatchBookmarks: boolean;
  timeoutSeconds?: number;
  /**
   * Without timeoutSeconds a watch ends after a random time between this and twice this (kube-apiserver's
   * --min-request-timeout, default 1800 s), so reconnects spread out.
   */
  minRequestTimeoutSeconds?: number;
  /** Rewrites a stored object's JSON for the served version (identity for most types). */
  convert?: (json: string) => string;
  /**
   * The type's objects as written by this server read back as stored (ResourceType.convert.storedAsRead): an ADDED or
   * MODIFIED committed after the watch began is sent without `convert`. Its value was written then, by the current
   * build; a DELETED's value and anything replayed or listed may be older and are converted.
   */
  freshAsStored?: boolean;
  bookmarkIntervalMs?: number;
}

export async function serveWatch(store: Store, req: WatchRequest, sink: WatchSink): Promise<void> {
  const { rt, predicate } = req;
  // kube's watch context starts with the request, before any initial events: its deadline bounds them too. Without
  // timeoutSeconds (or 0) upstream picks a random lifetime in [min, 2·min), so watches spread their reconnects.
  const minimum = req.minRequestTimeoutSeconds ?? 1800;
  const deadline = Date.now() + (req.timeoutSeconds || minimum * (1 + Math.random())) * 1000;
  // Wildcard watches decide per event whether its cluster serves the type right now: CRDs come and go.
  const { prefix, admits } = readScope(rt, req.cluster, req.namespace, false);
  const convert = req.convert ?? ((json: string) => json);
  const writtenFrom = req.freshAsStored ? store.currentRevision() : Infinity;
  /** The text of an event's own value: written at its revision. */
  const convertOwn = (event: StoreEvent, json: string) => (event.revision > writtenFrom && event.type !== 'DELETED' ? json : convert(json));
  let closed = false;
  let handle: WatchHandle | undefined;
  const timers: NodeJS.Timeout[] = [];
  let lifetime: LongTimer | undefined;
  const close = () => {
    if (closed) return;
    closed = true;
    handle?.cancel();
    lifetime?.cancel();
    for (const t of timers) clearTimeout(t);
    sink.end();
  };
  sink.onClose(() => {
    closed = true;
    handle?.cancel();
    lifetime?.cancel();
    for (const t of timers) clearTimeout(t);
  });
  const emit = (type: WatchEventType, json: string) => {
    if (closed) return;
    // A client that stops reading must not make us buffer without bound: drop it, it will resume from its RV.
    if (!sink.send(type, json)) close();
  };

  let fromRevision: number;
  const rv = req.resourceVersion;
  const initialEvents = req.sendInitialEvents ?? (!rv || rv === '0');
  if (initialEvents) {
    // Synthetic ADDED events for the current state, then live events after the snapshot's revision.
    let continueToken: string | undefined;
    let snapshot = '';
    do {
      const page = await listObjects(store, rt, req.cluster, req.namespace, predicate, { continueToken, limit: 500 });
      snapshot = snapshot || page.resourceVersion;
      if (closed) return;
      for (const item of page.items) emit('ADDED', convert(item));
      continueToken = page.continueToken;
    } while (continueToken && !closed);
    fromRevision = Number(snapshot);
    if (req.sendInitialEvents && req.allowWatchBookmarks) {
      emit('BOOKMARK', bookmarkJson(rt, fromRevision, true));
    }
  } else if (!rv || rv === '0') {
    // sendInitialEvents=false without a resourceVersion: only what happens from now on.
    fromRevision = store.currentRevision();
  } else {
    fromRevision = Number(rv);
  }
  if (closed) return;

  try {
    handle = store.watch(prefix, fromRevision, (events) => {
      for (const event of events) deliver(event);
    });
  } catch (err) {
    if (err instanceof CompactedError) {
      emit('ERROR', expiredStatusJson(err.requested, err.compacted + 1));
      close();
      return;
    }
    throw err;
  }

  function deliver(event: StoreEvent): void {
    if (closed) return;
    if (admits && !admits(event.key)) return;
    const json = eventJson(event);
    if (predicate.matchesEverything) {
      emit(event.type, convertOwn(event, json));
      return;
    }
    const now = predicate.matches(eventObject(event));
    if (event.type === 'DELETED') {
      if (now) emit('DELETED', convert(json));
      return;
    }
    const before =
      event.type === 'MODIFIED' && event.prevValue !== undefined
        ? predicate.matches(previousObject(event))
        : event.type === 'MODIFIED' && now;
    if (now && before) emit('MODIFIED', convertOwn(event, json));
    else if (now) emit('ADDED', convertOwn(event, json));
    // kube's cacher: the object as this watcher last saw it, at the event's revision; the new content is not its.
    else if (before) emit('DELETED', convert(spliceResourceVersion(event.prevValue!, event.revision)));
  }

  if (req.allowWatchBookmarks) {
    scheduleBookmarks(deadline, () => emit('BOOKMARK', bookmarkJson(rt, store.currentRevision(), false)), timers, req.bookmarkIntervalMs);
  }
  lifetime = longTimer(close, deadline - Date.now());
}

/**
 * The event's object with its resourceVersion, spliced once per event rather than once per watcher: the hub hands
 * one commit's event to every watcher in turn, so the last one is all that needs remembering. Watchers then share
 * one string, which lets the writer's frame cache (render.ts) recognise it without comparing contents.
 */
let lastEvent: StoreEvent | undefined;
let lastEventJson = '';
function eventJson(event: StoreEvent): string {
  if (event !== lastEvent) {
    lastEventJson = spliceResourceVersion(event.value, event.revision);
    lastEvent = event;
  }
  return lastEventJson;
}

/**
 * The event's object (and its previous content) parsed once per event for every watcher whose selector must look at
 * it, not once per such watcher: predicates only read the object they are given (label and field selectors, a
 * virtual workspace's filter), so the watchers of one commit can share one parse. Same reasoning as eventJson.
 */
const eventObject = parsedOncePerEvent((event) => eventJson(event));
const previousObject = parsedOncePerEvent((event) => event.prevValue!);

/** A parse of one text of the event, kept for the next watcher of the same event. */
function parsedOncePerEvent(textOf: (event: StoreEvent) => string): (event: StoreEvent) => KubeObject {
  let parsedFor: StoreEvent | undefined;
  let parsed: KubeObject | undefined;
  return (event) => {
    if (event !== parsedFor || parsed === undefined) {
      parsed = JSON.parse(textOf(event)) as KubeObject;
      parsedFor = event;
    }
    return parsed;
  };
}

/** kube's cacher sends a watch that allows bookmarks one at least this often (defaultBookmarkFrequency). */
const BOOKMARK_FREQUENCY_MS = 60_000;
/** …and one this long before the watch's deadline, so that a client is as up to date as it can be when it ends. */
const PRE_TIMEOUT_BOOKMARK_MS = 2_000;

/**
 * When a watch's next periodic bookmark comes, from `now`, and whether it is the last, or undefined for none: kube's
 * cacheWatcher.nextBookmarkTime. The heartbeat comes `every` ms, or at the pre-timeout moment when that is sooner,
 * and that one is the last: the watch closes at its deadline without another (a watch of two seconds or less gets no
 * periodic bookmark at all). kube's own send is rounded to its one-second timer buckets, so a client sees it between
 * about three and one seconds before the end.
 */
function nextBookmark(now: number, deadline: number, every: number): { delay: number; last: boolean } | undefined {
  const preTimeout = deadline - PRE_TIMEOUT_BOOKMARK_MS;
  if (preTimeout <= now) return undefined;
  return now + every < preTimeout ? { delay: every, last: false } : { delay: preTimeout - now, last: true };
}

/**
 * Sends the periodic bookmarks of a watch ending at `deadline`, each timer kept in `timers` for the close to clear.
 * The pre-timeout bookmark is known to be the last when it is scheduled: a timer keeps another clock than Date.now()
 * and may fire a millisecond before its moment, which asked again would schedule a second one.
 */
export function scheduleBookmarks(deadline: number, send: () => void, timers: NodeJS.Timeout[], every = BOOKMARK_FREQUENCY_MS): void {
  const schedule = () => {
    const next = nextBookmark(Date.now(), deadline, every);
    if (next) timers.push(setTimeout(next.last ? send : tick, next.delay).unref());
  };
  const tick = () => {
    send();
    schedule();
  };
  schedule();
}

export function bookmarkJson(rt: ResourceType, revision: number, initialEventsEnd: boolean): string {
  const metadata: Record<string, unknown> = { resourceVersion: String(revision), creationTimestamp: null };
  if (initialEventsEnd) metadata.annotations = { 'k8s.io/initial-events-end': 'true' };
  return JSON.stringify({ kind: rt.kind, apiVersion: apiVersionOf(rt), metadata });
}

export function expiredStatusJson(requested: number, oldest: number): string {
  return JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `too old resource version: ${requested} (${oldest})`,
    reason: 'Expired',
    code: 410,
  });
}
