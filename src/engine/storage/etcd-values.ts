/**
 * How the etcd store lays kcpt's data out in etcd values.
 *
 * A data key's value is one header line with the key's kcpt revisions, then the stored bytes unchanged:
 *   `kcpt <revision> <createRevision>\n<value>`
 * so `etcdctl get` still shows the object, and a restart rebuilds exact resourceVersions without any history.
 *
 * A log record (one per commit with logged events, key `kcpt-store/log/<last revision>`) is JSON: the commit's
 * events with what a past-revision LIST and a watch resume need (see history.ts LoggedEvent).
 */
import type { LoggedEvent } from './history.js';
import type { KeyValue, WatchEventType } from './store.js';

const HEADER = 'kcpt ';

export function encodeRowValue(row: KeyValue): string {
  return `${HEADER}${row.revision} ${row.createRevision}\n${row.value}`;
}

export function parseRowValue(key: string, stored: string): Omit<KeyValue, 'key'> {
  const newline = stored.indexOf('\n');
  const header = newline === -1 ? '' : stored.slice(0, newline);
  const match = /^kcpt (\d+) (\d+)$/.exec(header);
  if (!match) {
    throw new Error(`etcd key ${key} was not written by kcpt (no "kcpt <revision> <createRevision>" header line)`);
  }
  return { value: stored.slice(newline + 1), revision: Number(match[1]), createRevision: Number(match[2]) };
}

/** Compact field names: a record is written with every commit. */
interface StoredEvent {
  t: 'A' | 'M' | 'D';
  k: string;
  r: number;
  v: string;
  p?: string;
  pr: number;
  cr: number;
}

const TYPE_CODES: Record<WatchEventType, StoredEvent['t']> = { ADDED: 'A', MODIFIED: 'M', DELETED: 'D' };
const TYPES: Record<StoredEvent['t'], WatchEventType> = { A: 'ADDED', M: 'MODIFIED', D: 'DELETED' };

export function encodeLogRecord(logged: LoggedEvent[]): string {
  const events = logged.map(({ event, prevRevision, createRevision }): StoredEvent => {
    const stored: StoredEvent = { t: TYPE_CODES[event.type], k: event.key, r: event.revision, v: event.value, pr: prevRevision, cr: createRevision };
    // A DELETED's previous value is its value; no need to store it twice.
    if (event.prevValue !== undefined && event.type !== 'DELETED') stored.p = event.prevValue;
    return stored;
  });
  return JSON.stringify({ ts: logged[0]?.ts ?? 0, events });
}

export function parseLogRecord(text: string): LoggedEvent[] {
  const { ts, events } = JSON.parse(text) as { ts: number; events: StoredEvent[] };
  return events.map((stored) => {
    const type = TYPES[stored.t];
    const prevValue = type === 'DELETED' ? stored.v : stored.p;
    return {
      event: { type, key: stored.k, revision: stored.r, value: stored.v, ...(prevValue !== undefined ? { prevValue } : {}) },
      prevRevision: stored.pr,
      createRevision: stored.cr,
      ts,
    };
  });
}
