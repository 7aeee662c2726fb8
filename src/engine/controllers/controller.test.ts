import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMemoryStore } from '../storage/index.js';
import { defineController, type Controller } from './controller.js';

const running: Controller[] = [];
afterEach(() => running.splice(0).forEach((c) => c.stop()));

function put(store: ReturnType<typeof createMemoryStore>, key: string, value = '{}') {
  store.commit([{ type: 'create', key, value }]);
}

describe('defineController', () => {
  it('feeds the queue from storage events after start and from the keys a restart left, then reconciles each key once', async () => {
    const store = createMemoryStore();
    put(store, '/markers/left-over');
    put(store, '/things/before-start');
    const seen: string[] = [];
    const controller = defineController({
      name: 'things',
      store,
      watches(feed) {
        for (const kv of store.list('/markers/').items) feed.add(kv.key.slice('/markers/'.length));
        feed.watch('/things/', (e) => feed.add(e.key.slice('/things/'.length)));
      },
      reconcile: (key) => void seen.push(key),
    });
    running.push(controller);
    controller.start();
    put(store, '/things/a');
    put(store, '/things/b');
    store.commit([{ type: 'update', key: '/things/a', value: '{"x":1}' }]);
    await new Promise((r) => setImmediate(r));
    await controller.idle();
    // Events from before start are not replayed; a key queued twice in one turn is reconciled once.
    expect(seen.sort()).toEqual(['a', 'b', 'left-over']);
  });

  it('hands the reconcile its queue for follow-up keys and retries a failing key', async () => {
    const errors: string[] = [];
    const seen: string[] = [];
    let failures = 1;
    const controller = defineController({
      name: 'chain',
      watches: (feed) => feed.add('first'),
      reconcile(key, queue) {
        seen.push(key);
        if (key === 'first') queue.add('second');
        if (key === 'second' && failures-- > 0) throw new Error('not yet');
      },
      onError: (name, key, err) => errors.push(`${name} ${key}: ${(err as Error).message}`),
    });
    running.push(controller);
    controller.start();
    await vi.waitFor(() => expect(seen).toHaveLength(3));
    expect(seen).toEqual(['first', 'second', 'second']);
    expect(errors).toEqual(['chain second: not yet']);
  });

  it('silences listeners and cancels watches once stopped', async () => {
    const store = createMemoryStore();
    const listeners: Array<(name: string) => void> = [];
    const seen: string[] = [];
    const controller = defineController({
      name: 'quiet',
      store,
      watches(feed) {
        feed.watch('/things/', (e) => seen.push(`event ${e.key}`));
        feed.listen((l: (name: string) => void) => listeners.push(l), (name) => seen.push(`heard ${name}`));
      },
      reconcile: () => undefined,
    });
    controller.start();
    listeners[0]!('one');
    put(store, '/things/a');
    controller.stop();
    listeners[0]!('two');
    put(store, '/things/b');
    expect(seen).toEqual(['heard one', 'event /things/a']);
    expect(() => controller.start()).toThrow(/started before/);
  });
});
