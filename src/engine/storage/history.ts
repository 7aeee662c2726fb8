/**
 * Paging a LIST, at the latest revision or at a past one, over any backend that can range-read its current rows.
 *
 * A past state is never stored as such: the state at N is the current rows with every key that changed after N
 * rolled back to what it was at N (the first logged event after N tells: ADDED ⇒ absent at N, MODIFIED or
 * DELETED ⇒ present with the previous value). Only keys that changed cost anything, so a LIST at a recent
 * revision in a quiet prefix is a plain range read.
 */
import { compareKeys } from './keys.js';
import type { KeyValue, ListOptions, ListResult, StoreEvent } from './store.js';

/** A log entry: the event as watchers see it, plus what a rollback and retention need. */
export interface LoggedEvent {
  event: StoreEvent;
  /** Revision of the write this event replaced (0 for ADDED). */
  prevRevision: number;
  createRevision: number;
  /** Wall-clock milliseconds when it was logged (non-decreasing), for time-based retention. */
  ts: number;
}

export interface PastState {
  /** The key as it was at the listed revision; undefined when it did not exist then. */
  then: KeyValue | undefined;
  /** Whether the key exists in the current rows (so it must be hidden or replaced there). */
  existsNow: boolean;
}

/** The state of `first.key` just before `first` (the first event after the listed revision). */
export function stateBefore(first: LoggedEvent): KeyValue | undefined {
  const { type, key, revision, prevValue } = first.event;
  if (type === 'ADDED') return undefined;
  if (prevValue === undefined) throw new Error(`event log row ${revision} for ${key} lacks its previous value`);
  return { key, value: prevValue, revision: first.prevRevision, createRevision: first.createRevision };
}

/** Folds events after N (revision order, per key at least) into the keys a LIST at N must correct. */
export function collectChanges(events: Iterable<LoggedEvent>): Map<string, PastState> {
  const changed = new Map<string, PastState>();
  for (const logged of events) {
    const { key, type } = logged.event;
    const known = changed.get(key);
    if (known) known.existsNow = type !== 'DELETED';
    else changed.set(key, { then: stateBefore(logged), existsNow: type !== 'DELETED' });
  }
  return changed;
}

/** The range reads a backend supplies; both are in key order, bounded to keys starting with prefix. */
export interface CurrentRows {
  /** Current rows with key > startAfter (when given); limit 0 = all. */
  range(prefix: string, startAfter: string | undefined, limit: number): KeyValue[];
  /** Number of current rows with key > after. */
  countAfter(prefix: string, after: string): number;
}

export function pageList(
  rows: CurrentRows,
  prefix: string,
  options: ListOptions,
  revision: number,
  changed: Map<string, PastState> = new Map(),
): ListResult {
  const limit = options.limit && options.limit > 0 ? Math.floor(options.limit) : 0;
  const cursor = options.startAfter !== undefined && options.startAfter >= prefix ? options.startAfter : undefined;
  const after = (key: string) => cursor === undefined || key > cursor;

  let hidden = 0;
  for (const [key, state] of changed) if (state.existsNow && after(key)) hidden++;
  // Over-fetch by the rows the rollback may hide so a full page survives; +1 tells whether more follow.
  const fetchLimit = limit ? limit + 1 + hidden : 0;
  const current = rows.range(prefix, cursor, fetchLimit);
  let merged = current;
  if (changed.size > 0) {
    const truncated = fetchLimit > 0 && current.length === fetchLimit;
    const horizon = truncated ? current[current.length - 1]!.key : undefined;
    merged = current.filter((row) => !changed.has(row.key));
    for (const state of changed.values()) {
      const then = state.then;
      // Past rows beyond the last fetched current row could interleave with rows not fetched: leave them out.
      if (then && after(then.key) && (horizon === undefined || then.key <= horizon)) merged.push(then);
    }
    merged.sort((a, b) => compareKeys(a.key, b.key));
  }
  if (!limit || merged.length <= limit) return { items: merged, revision, more: false };

  const items = merged.slice(0, limit);
  if (options.countRemaining === false) return { items, revision, more: true };
  const last = items[limit - 1]!.key;
  let remaining = rows.countAfter(prefix, last);
  for (const [key, state] of changed) {
    if (key <= last) continue;
    if (state.existsNow) remaining--;
    if (state.then) remaining++;
  }
  return { items, revision, more: true, remaining };
}
