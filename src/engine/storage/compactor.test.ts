import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { churn } from './contract-support.js';
import { startCompactor } from './compactor.js';
import { createMemoryStore, type MemoryStore } from './memory-store.js';
import { openSqliteStore } from './sqlite-store.js';
import type { Store } from './store.js';

const directory = mkdtempSync(join(tmpdir(), 'kcpt-compactor-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const backends: Array<[string, () => MemoryStore]> = [
  ['memory', () => createMemoryStore()],
  ['sqlite', () => openSqliteStore(join(directory, `${Math.random().toString(36).slice(2)}.db`))],
];

describe.each(backends)('startCompactor on %s', (_name, factory) => {
  const cleanup: Array<() => void> = [];
  afterEach(() => {
    for (const fn of cleanup.splice(0).reverse()) fn();
  });
  const open = () => {
    const store = factory();
    cleanup.push(() => store.close());
    return store;
  };

  it('knows which revision was logged before a moment', async () => {
    const store = open();
    expect(store.latestRevisionBefore(Date.now() + 1000)).toBe(0);
    churn(store, 20);
    await sleep(3);
    const between = Date.now();
    await sleep(3);
    churn(store, 5);
    expect(store.latestRevisionBefore(between)).toBe(20);
    expect(store.latestRevisionBefore(0)).toBe(0);
    expect(store.latestRevisionBefore(Date.now() + 1)).toBe(25);
  });

  it('compacts history older than the retention window, keeping the newest 1000 revisions', async () => {
    const store = open();
    const last = churn(store, 2500);
    const stop = startCompactor(store, { retentionMs: 60_000, intervalMs: 5, now: () => Date.now() + 61_000 });
    cleanup.push(stop);
    await vi.waitFor(() => expect(store.compactedRevision()).toBe(last - 1000), { timeout: 5000, interval: 10 });
  });

  it('leaves history inside the retention window alone', async () => {
    const store = open();
    churn(store, 2500);
    cleanup.push(startCompactor(store, { retentionMs: 60_000, intervalMs: 5 }));
    await sleep(50);
    expect(store.compactedRevision()).toBe(0);
  });

  it('does nothing once stopped', async () => {
    const store = open();
    churn(store, 2500);
    const stop = startCompactor(store, { intervalMs: 5, retentionMs: 0, now: () => Date.now() + 1000 });
    stop();
    await sleep(50);
    expect(store.compactedRevision()).toBe(0);
  });
});

describe('startCompactor on a store without timestamps', () => {
  it('compacts to the revision it saw one retention window ago', async () => {
    const inner = createMemoryStore();
    // Only the Store interface, no latestRevisionBefore: the compactor must sample revisions itself.
    const store: Store = {
      name: 'plain',
      currentRevision: () => inner.currentRevision(),
      compactedRevision: () => inner.compactedRevision(),
      get: (key) => inner.get(key),
      list: (prefix, options) => inner.list(prefix, options),
      count: (prefix) => inner.count(prefix),
      commit: (ops) => inner.commit(ops),
      watch: (prefix, from, listener) => inner.watch(prefix, from, listener),
      compact: (revision) => inner.compact(revision),
      close: () => inner.close(),
    };
    let clock = 0;
    churn(store, 1500);
    const stop = startCompactor(store, { retentionMs: 1000, intervalMs: 5, now: () => clock });
    try {
      await sleep(30); // samples revision 1500 at t=0
      churn(store, 1500);
      clock = 1001;
      await vi.waitFor(() => expect(store.compactedRevision()).toBe(1500), { timeout: 5000, interval: 10 });
    } finally {
      stop();
      store.close();
    }
  });
});
