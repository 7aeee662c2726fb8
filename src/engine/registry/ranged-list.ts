/**
 * One page of a list over several disjoint key ranges under one prefix, as if the store had been asked for the
 * whole prefix: items in key order, `startAfter` a key anywhere under the prefix, one revision for every range
 * (the first range read fixes it when the caller did not). What lets a wildcard read of a virtual workspace's
 * claimed resource cost its consumers' objects instead of every logical cluster's.
 */
import type { ListOptions, ListResult, Store } from '../storage/store.js';

/** `ranges` sorted, disjoint, all under the prefix `startAfter` is under. */
export function listRanges(store: Store, ranges: readonly string[], options: ListOptions): ListResult {
  const limit = options.limit && options.limit > 0 ? options.limit : 0;
  const items: ListResult['items'] = [];
  let revision = options.revision;
  const after = options.startAfter;
  let i = 0;
  // Ranges wholly before the start key: it is past every key of a range it sorts after without lying inside it.
  while (i < ranges.length && after !== undefined && after > ranges[i]! && !after.startsWith(ranges[i]!)) i++;
  for (; i < ranges.length; i++) {
    const range = ranges[i]!;
    const want = limit ? limit - items.length : 0;
    const page = store.list(range, {
      startAfter: after !== undefined && after.startsWith(range) ? after : undefined,
      limit: want,
      revision,
      countRemaining: false,
    });
    revision = page.revision;
    items.push(...page.items);
    if (limit && items.length >= limit) {
      return { items, revision, more: page.more || anyKeyIn(store, ranges.slice(i + 1), revision) };
    }
  }
  return { items, revision: revision ?? store.currentRevision(), more: false };
}

function anyKeyIn(store: Store, ranges: readonly string[], revision: number): boolean {
  return ranges.some((range) => store.list(range, { limit: 1, revision, countRemaining: false }).items.length > 0);
}
