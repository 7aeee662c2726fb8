import { describe, expect, it } from 'vitest';
import type { StoreEvent } from './store.js';
import { WatchHub } from './watch-hub.js';

const event = (key: string, revision: number): StoreEvent => ({ type: 'ADDED', key, revision, value: 'v' });

describe('WatchHub', () => {
  it('matches watchers by prefix whatever the prefix looks like, among thousands of others', () => {
    const hub = new WatchHub();
    const got = new Map<string, number[]>();
    const watch = (prefix: string) =>
      hub.subscribe(prefix, 0, 0, (events) => got.set(prefix, [...(got.get(prefix) ?? []), ...events.map((e) => e.revision)]), []);
    for (let i = 0; i < 5000; i++) watch(`/registry/core/configmaps/cluster${i}/`);
    const prefixes = [
      '',
      '/registry/',
      '/registry/core/configmaps/',
      '/registry/core/configmaps/c1/',
      '/registry/core/configmaps/c1', // no trailing slash: also c10
      '/registry/core/configmaps/c1/default/a', // one object
      '/registry/core/secrets/',
    ];
    for (const prefix of prefixes) watch(prefix);
    expect(hub.size).toBe(5000 + prefixes.length);

    hub.publish([event('/registry/core/configmaps/c1/default/a', 1), event('/registry/core/configmaps/c10/default/a', 2)]);
    hub.publish([event('/registry/core/configmaps/cluster42/default/x', 3)]);
    hub.publish([event('/other', 4)]);

    expect(Object.fromEntries(prefixes.map((p) => [p, got.get(p) ?? []]))).toEqual({
      '': [1, 2, 3, 4],
      '/registry/': [1, 2, 3],
      '/registry/core/configmaps/': [1, 2, 3],
      '/registry/core/configmaps/c1/': [1],
      '/registry/core/configmaps/c1': [1, 2],
      '/registry/core/configmaps/c1/default/a': [1],
      '/registry/core/secrets/': [],
    });
    expect(got.get('/registry/core/configmaps/cluster42/')).toEqual([3]);
    expect(got.get('/registry/core/configmaps/cluster4/')).toBeUndefined();
  });

  it('forgets cancelled watchers and everything on clear', () => {
    const hub = new WatchHub();
    const a = hub.subscribe('/a/', 0, 0, () => undefined, []);
    hub.subscribe('/a/', 0, 0, () => undefined, []);
    a.cancel();
    expect(hub.size).toBe(1);
    hub.clear();
    expect(hub.size).toBe(0);
  });

  it('hands a one-event commit to each matching watcher in turn; one cancelled by another listener gets nothing', () => {
    const hub = new WatchHub();
    const got: string[] = [];
    let b: ReturnType<WatchHub['subscribe']> | undefined;
    hub.subscribe('/r/', 0, 0, (events) => {
      got.push(`a${events.map((e) => e.revision).join()}`);
      b?.cancel();
    }, []);
    b = hub.subscribe('/r/', 0, 0, (events) => got.push(`b${events.map((e) => e.revision).join()}`), []);
    hub.subscribe('', 0, 0, (events) => got.push(`root${events.map((e) => e.revision).join()}`), []);
    hub.publish([event('/r/x', 1)]);
    hub.publish([event('/r/y', 2), event('/s/z', 3)]);
    expect(got).toEqual(['root1', 'a1', 'root2,3', 'a2']);
  });
});

