import { describe, expect, it } from 'vitest';
import { openSqliteStore } from '../storage/sqlite-store.js';
import type { StoreEvent } from '../storage/store.js';
import { WorkQueue } from './work-queue.js';

const key = (name: string) => `/registry/core/configmaps/c1/ns/${name}`;

describe('work queue with a storage group', () => {
  it('commits the reconciles of one drain together and tells watchers afterwards', async () => {
    const store = openSqliteStore(':memory:');
    const delivered: number[][] = [];
    store.watch('/registry/', 0, (events: StoreEvent[]) => delivered.push(events.map((e) => e.revision)));
    const queue = new WorkQueue('test', (name) => void store.commit([{ type: 'create', key: key(name), value: name }]), undefined, store.group!.bind(store));
    for (const name of ['a', 'b', 'c']) queue.add(name);
    await queue.idle();
    // One drain, one group: the three commits reach watchers in one delivery, in revision order.
    expect(delivered).toEqual([[1, 2, 3]]);
    expect(store.list('/registry/').items.map((kv) => kv.value)).toEqual(['a', 'b', 'c']);
    store.close();
  });

  it('keeps a failing reconcile from undoing the others, and retries it', async () => {
    const store = openSqliteStore(':memory:');
    const errors: string[] = [];
    let failFirst = true;
    const queue = new WorkQueue(
      'test',
      (name) => {
        store.commit([{ type: 'create', key: key(`${name}-${failFirst ? 1 : 2}`), value: name }]);
        if (name === 'bad' && failFirst) {
          failFirst = false;
          throw new Error('not yet');
        }
      },
      (_queue, k) => errors.push(k),
      store.group!.bind(store),
    );
    queue.add('good');
    queue.add('bad');
    await queue.idle();
    await new Promise((r) => setTimeout(r, 50));
    await queue.idle();
    expect(errors).toEqual(['bad']);
    // The failed attempt's write is kept (as without a group: a reconcile's commits are its own), the retry adds its own.
    expect(store.list('/registry/').items.map((kv) => kv.key)).toEqual([key('bad-1'), key('bad-2'), key('good-1')]);
    queue.stop();
    store.close();
  });
});
