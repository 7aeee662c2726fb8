import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WriteAuthority } from '../admission/write-authority.js';
import { configMaps, namespaces } from '../builtin/core/resources.js';
import { openSqliteStore, type SqliteStore } from '../storage/sqlite-store.js';
import { GenericStore } from './generic-store.js';
import { buildPredicate } from './predicates.js';
import type { KubeObject } from './types.js';
import { scheduleBookmarks, serveWatch, type WatchEventType, type WatchSink } from './watch-stream.js';

interface Seen {
  type: WatchEventType;
  name: string;
  tier: string | undefined;
  resourceVersion: string;
}

function recordingSink(): WatchSink & { seen: Seen[] } {
  const seen: Seen[] = [];
  return {
    seen,
    send(type, json) {
      const obj = JSON.parse(json) as KubeObject;
      seen.push({ type, name: obj.metadata!.name!, tier: obj.metadata?.labels?.tier, resourceVersion: obj.metadata!.resourceVersion! });
      return true;
    },
    end() {},
    onClose() {},
  };
}

/** Each test's own store, with namespace `ns` in cluster c1. */
let dir: string;
let store: SqliteStore;
let generic: GenericStore;
const ctx = { rt: configMaps, cluster: 'c1', namespace: 'ns' };

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'kcpt-watch-stream-'));
  store = openSqliteStore(path.join(dir, 'kcpt.db'));
  generic = new GenericStore(store, namespaces, { authority: new WriteAuthority() });
  generic.create({ rt: namespaces, cluster: 'c1', namespace: '' }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns' } });
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('watches with selectors on the same commits', () => {
  it('gives each watcher the events its own selector decides, transitions included, however many watchers share a commit', async () => {
    const watch = async (labelSelector?: string, fieldSelector?: string) => {
      const sink = recordingSink();
      await serveWatch(
        store,
        {
          rt: configMaps,
          cluster: 'c1',
          namespace: 'ns',
          predicate: buildPredicate(configMaps, labelSelector, fieldSelector),
          resourceVersion: String(store.currentRevision()),
          allowWatchBookmarks: false,
        },
        sink,
      );
      return sink;
    };
    // Interleaved, so each commit reaches watchers with different selectors one after another.
    const front = await watch('tier=front');
    const all = await watch();
    const back = await watch('tier=back');
    const named = await watch(undefined, 'metadata.name=b');
    const frontAgain = await watch('tier in (front)');
    const notFront = await watch('tier!=front');

    const a = generic.create(ctx, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', labels: { tier: 'front' } } });
    generic.create(ctx, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', labels: { tier: 'back' } } });
    const moved = generic.update(ctx, 'a', { ...a, metadata: { ...a.metadata, labels: { tier: 'back' } } });
    generic.delete(ctx, 'b');

    const movedRv = moved.metadata!.resourceVersion!;
    expect(front.seen).toEqual([
      { type: 'ADDED', name: 'a', tier: 'front', resourceVersion: a.metadata!.resourceVersion },
      // kube's cacher: the object as this watcher last saw it (still front), at the revision that moved it out.
      { type: 'DELETED', name: 'a', tier: 'front', resourceVersion: movedRv },
    ]);
    expect(frontAgain.seen).toEqual(front.seen);
    expect(back.seen.map((e) => [e.type, e.name, e.tier])).toEqual([
      ['ADDED', 'b', 'back'],
      ['ADDED', 'a', 'back'],
      ['DELETED', 'b', 'back'],
    ]);
    expect(notFront.seen.map((e) => [e.type, e.name, e.tier])).toEqual(back.seen.map((e) => [e.type, e.name, e.tier]));
    expect(named.seen.map((e) => [e.type, e.name])).toEqual([
      ['ADDED', 'b'],
      ['DELETED', 'b'],
    ]);
    expect(all.seen.map((e) => [e.type, e.name, e.tier])).toEqual([
      ['ADDED', 'a', 'front'],
      ['ADDED', 'b', 'back'],
      ['MODIFIED', 'a', 'back'],
      ['DELETED', 'b', 'back'],
    ]);
  });
});

describe('a watch of a type stored as it reads (freshAsStored)', () => {
  const configMap = (name: string, tier: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { tier } } });
  /** A conversion that leaves a mark, so each event shows whether it was converted. */
  const convert = (json: string) => {
    const obj = JSON.parse(json) as KubeObject;
    obj.metadata!.annotations = { ...obj.metadata!.annotations, converted: 'yes' };
    return JSON.stringify(obj);
  };
  const watch = async (resourceVersion: string, labelSelector?: string) => {
    const seen: string[] = [];
    const sink: WatchSink = {
      send(type, json) {
        const obj = JSON.parse(json) as KubeObject;
        seen.push(`${type} ${obj.metadata!.name} ${obj.metadata!.labels!.tier}${obj.metadata!.annotations?.converted ? ' converted' : ''}`);
        return true;
      },
      end() {},
      onClose() {},
    };
    const predicate = buildPredicate(configMaps, labelSelector, undefined);
    await serveWatch(store, { rt: configMaps, cluster: 'c1', namespace: 'ns', predicate, resourceVersion, allowWatchBookmarks: false, convert, freshAsStored: true }, sink);
    return seen;
  };

  it('sends what is written after it began as stored, and converts what may be older: replayed events, a deletion’s last value, a selector’s DELETED', async () => {
    const from = String(store.currentRevision());
    const old = generic.create(ctx, configMap('old', 'front'));
    generic.create(ctx, configMap('gone', 'back'));
    const all = await watch(from);
    const front = await watch(from, 'tier=front');

    generic.update(ctx, 'old', { ...old, metadata: { ...old.metadata, labels: { tier: 'back' } } });
    generic.create(ctx, configMap('new', 'front'));
    generic.delete(ctx, 'gone');

    expect(all).toEqual([
      'ADDED old front converted',
      'ADDED gone back converted',
      'MODIFIED old back',
      'ADDED new front',
      'DELETED gone back converted',
    ]);
    expect(front).toEqual(['ADDED old front converted', 'DELETED old front converted', 'ADDED new front']);
  });
});

describe('bookmarks of a watch with a deadline (kube’s cacheWatcher.nextBookmarkTime)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** The seconds after the start at which each bookmark came, and when the watch ended. */
  const timeline = async (timeoutSeconds: number, runSeconds: number) => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const start = Date.now();
    const at = () => (Date.now() - start) / 1000;
    const bookmarks: number[] = [];
    let ended: number | undefined;
    const sink: WatchSink = {
      send(type) {
        if (type === 'BOOKMARK') bookmarks.push(at());
        return true;
      },
      end() {
        ended = at();
      },
      onClose() {},
    };
    const predicate = buildPredicate(configMaps, undefined, undefined);
    const resourceVersion = String(store.currentRevision());
    await serveWatch(store, { rt: configMaps, cluster: 'c1', namespace: 'ns', predicate, resourceVersion, allowWatchBookmarks: true, timeoutSeconds }, sink);
    await vi.advanceTimersByTimeAsync(runSeconds * 1000);
    return { bookmarks, ended };
  };

  it('sends one two seconds before the deadline and closes without another', async () => {
    expect(await timeline(5, 10)).toEqual({ bookmarks: [3], ended: 5 });
  });

  it('sends none when the watch is two seconds or shorter', async () => {
    expect(await timeline(2, 5)).toEqual({ bookmarks: [], ended: 2 });
    expect(await timeline(1, 5)).toEqual({ bookmarks: [], ended: 1 });
  });

  it('sends one a minute, the last of them two seconds before the deadline', async () => {
    expect(await timeline(150, 200)).toEqual({ bookmarks: [60, 120, 148], ended: 150 });
    // The minute's heartbeat would come after the pre-timeout moment: only the pre-timeout one.
    expect(await timeline(61, 70)).toEqual({ bookmarks: [59], ended: 61 });
  });

  it('sends the pre-timeout bookmark once when its timer fires a millisecond before Date.now() reaches its moment', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let clock = 1_000_000;
    const now = vi.spyOn(Date, 'now').mockImplementation(() => clock);
    try {
      const sent: number[] = [];
      const timers: NodeJS.Timeout[] = [];
      scheduleBookmarks(clock + 4_000, () => sent.push(clock), timers);
      clock += 1_999; // the 2,000 ms timer fires while the wall clock reads a millisecond short
      vi.advanceTimersByTime(2_000);
      clock += 1_000;
      vi.advanceTimersByTime(1_000);
      expect(sent).toEqual([1_001_999]);
    } finally {
      now.mockRestore();
    }
  });
});
