/**
 * Reading the SQLite event log for a prefix after a revision (watch replay, LIST at a past revision).
 *
 * Two plans, picked by how much of the log lies after the revision:
 * - few revisions: walk the log by revision (rowid range) and filter keys — cost ∝ revisions walked;
 * - many revisions: find the prefix's revisions in the key index (covering, no values read), then fetch only
 *   those rows — cost ∝ events of that prefix, so a 30-second-old resume of one workspace's ConfigMaps does
 *   not read every other workspace's writes.
 */
import type { LoggedEvent } from './history.js';
import { prefixEnd } from './keys.js';
import { DELETED, EVENT_TYPES, MODIFIED, type EventRow, type Statements } from './sqlite-schema.js';
import type { StoreEvent } from './store.js';

export const LOG_PAGE = 1000;

export function toLoggedEvent(row: EventRow): LoggedEvent {
  const event: StoreEvent = { type: EVENT_TYPES[row.type]!, key: row.key, revision: row.revision, value: row.value };
  if (row.type === MODIFIED) event.prevValue = row.prevValue ?? undefined;
  else if (row.type === DELETED) event.prevValue = row.value;
  return { event, prevRevision: row.prevRevision, createRevision: row.createRevision, ts: row.ts };
}

/** Events with after < revision ≤ upTo whose key starts with prefix, in revision order, in pages. */
export function* readEventPages(
  statements: Statements,
  prefix: string,
  after: number,
  upTo: number,
  scanLimit: number,
): Generator<LoggedEvent[]> {
  if (after >= upTo) return;
  const end = prefixEnd(prefix);
  if (upTo - after <= scanLimit) {
    // Each page is its own query (no open cursor): a listener may write to the database between pages.
    for (let cursor = after; cursor < upTo; ) {
      const rows =
        end === undefined
          ? statements.scanEventsOpen.all(cursor, upTo, prefix, LOG_PAGE)
          : statements.scanEvents.all(cursor, upTo, prefix, end, LOG_PAGE);
      if (rows.length === 0) return;
      cursor = rows[rows.length - 1]!.revision;
      yield rows.map(toLoggedEvent);
      if (rows.length < LOG_PAGE) return;
    }
    return;
  }
  const revisions =
    end === undefined
      ? statements.eventRevisionsOpen.all(prefix, after, upTo)
      : statements.eventRevisions.all(prefix, end, after, upTo);
  revisions.sort((a, b) => a - b);
  for (let i = 0; i < revisions.length; i += LOG_PAGE) {
    const chunk = revisions.slice(i, i + LOG_PAGE);
    yield statements.eventsByRevision.all(JSON.stringify(chunk)).map(toLoggedEvent);
  }
}
