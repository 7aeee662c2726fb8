/**
 * Reading the SQLite event log for a prefix after a revision (watch replay, LIST at a past revision).
 *
 * Each version of a key is stored once (schema 2): an ADDED or MODIFIED row leaves its value empty, because that
 * version is the current row in `objects` until the key changes again, and from then on it is the next event's
 * prev_value (MODIFIED) or value (DELETED). Compaction drops a prefix of revisions, so an event that is still
 * logged always has its successor logged too. A LIST at a past revision needs only previous values, which stay
 * inline; a watch replay fills the values in (`ValueSource`), from later events of the same page when it can.
 *
 * Two plans, picked by how much of the log lies after the revision:
 * - few revisions: walk the log by revision (rowid range) and filter keys — cost ∝ revisions walked;
 * - many revisions: find the prefix's revisions in the changes index and its current rows (no values read; see
 *   prefixRevisions), then fetch only those rows — cost ∝ events and objects of that prefix, so a 30-second-old
 *   resume of one workspace's ConfigMaps does not read every other workspace's writes. A prefix holding more
 *   current rows than there are revisions to walk (a resource across every cluster) is walked after all.
 */
import type { LoggedEvent } from './history.js';
import { prefixEnd } from './keys.js';
import { DELETED, EVENT_TYPES, MODIFIED, type EventRow, type Statements } from './sqlite-schema.js';
import type { StoreEvent } from './store.js';

export const LOG_PAGE = 1000;

/** Turns a stored value (possibly compressed, value-codec.ts) back into the value written. */
export type Decode = (stored: string) => string;

export function toLoggedEvent(row: EventRow, decode: Decode): LoggedEvent {
  const value = decode(row.value);
  const event: StoreEvent = { type: EVENT_TYPES[row.type]!, key: row.key, revision: row.revision, value };
  if (row.type === MODIFIED) event.prevValue = row.prevValue === null ? undefined : decode(row.prevValue);
  else if (row.type === DELETED) event.prevValue = value;
  return { event, prevRevision: row.prevRevision, createRevision: row.createRevision, ts: row.ts };
}

/** Where the values of events logged without one are found. */
export interface ValueSource {
  /** Events at or below this revision carry their value inline. */
  inlineUpTo: number;
  statements: Statements;
  /** The current stored value of a key (as stored: not decoded). */
  current(key: string): string | undefined;
}

/** The value a key had just before `row` (undefined: it did not exist), as far as the row itself tells. */
function valueBefore(row: EventRow): string | undefined {
  if (row.type === MODIFIED) return row.prevValue ?? undefined;
  if (row.type === DELETED) return row.value;
  return undefined;
}

/** Fills in, in place, the values of a page's events that were logged without one. */
function fillValues(rows: EventRow[], source: ValueSource): void {
  // Later events of the same page hold earlier versions: walk backwards, remembering each key's older version.
  const before = new Map<string, string | undefined>();
  for (let i = rows.length - 1; i >= 0; i--) {
    const row = rows[i]!;
    if (row.type !== DELETED && row.revision > source.inlineUpTo) {
      let value = before.has(row.key) ? before.get(row.key) : undefined;
      if (value === undefined) {
        const next = source.statements.nextEventOfKey.get(row.key, row.createRevision, row.revision);
        value = next ? (next.type === DELETED ? next.value : (next.prevValue ?? undefined)) : source.current(row.key);
      }
      if (value === undefined) throw new Error(`event log row ${row.revision} for ${row.key}: its value is neither logged later nor current`);
      row.value = value;
    }
    before.set(row.key, valueBefore(row));
  }
}

/** Events with after < revision ≤ upTo whose key starts with prefix, in revision order, in pages. */
export function* readEventPages(
  statements: Statements,
  prefix: string,
  after: number,
  upTo: number,
  scanLimit: number,
  decode: Decode,
  /** Given: every event comes with its value (watch replay). Omitted: only previous values are needed (past LIST). */
  values?: ValueSource,
): Generator<LoggedEvent[]> {
  const page = (rows: EventRow[]) => {
    if (values) fillValues(rows, values);
    return rows.map((row) => toLoggedEvent(row, decode));
  };
  if (after >= upTo) return;
  const end = prefixEnd(prefix);
  // A prefix with more current rows than there are revisions to walk (a whole resource across clusters) is walked.
  const found = upTo - after <= scanLimit ? undefined : prefixRevisions(statements, prefix, end, after, upTo, upTo - after);
  if (!found) {
    // Each page is its own query (no open cursor): a listener may write to the database between pages.
    for (let cursor = after; cursor < upTo; ) {
      const rows =
        end === undefined
          ? statements.scanEventsOpen.all(cursor, upTo, prefix, LOG_PAGE)
          : statements.scanEvents.all(cursor, upTo, prefix, end, LOG_PAGE);
      if (rows.length === 0) return;
      cursor = rows[rows.length - 1]!.revision;
      yield page(rows);
      if (rows.length < LOG_PAGE) return;
    }
    return;
  }
  const revisions = [...found].sort((a, b) => a - b);
  for (let i = 0; i < revisions.length; i += LOG_PAGE) {
    const chunk = revisions.slice(i, i + LOG_PAGE);
    // A candidate may be another key's event (below): only the prefix's own are kept.
    const rows = statements.eventsByRevision.all(JSON.stringify(chunk)).filter((row) => row.key >= prefix && (end === undefined || row.key < end));
    if (rows.length > 0) yield page(rows);
  }
}

/**
 * The revisions in (after, upTo] of the prefix's events, and possibly some of other keys' (the caller filters them).
 * The changes index holds every MODIFIED and DELETED; an ADDED is found as the create_revision of its generation:
 * of the generation's later events (a generation ended by a delete has its DELETED logged) or of its current row.
 * The current rows also hold unlogged keys, whose create_revision is whatever event preceded them: such a
 * revision is a candidate only, hence the caller's filter.
 */
function prefixRevisions(
  statements: Statements,
  prefix: string,
  end: string | undefined,
  after: number,
  upTo: number,
  /** Undefined (walk the log instead) once the prefix has more current rows than this. */
  maxRows: number,
): Set<number> | undefined {
  const current =
    end === undefined ? statements.currentOfPrefixOpen.all(prefix, maxRows + 1) : statements.currentOfPrefix.all(prefix, end, maxRows + 1);
  if (current.length > maxRows) return undefined;
  const found = new Set<number>();
  for (const created of current) if (created > after && created <= upTo) found.add(created);
  const changes =
    end === undefined ? statements.changesOfPrefixOpen.all(prefix, after, upTo) : statements.changesOfPrefix.all(prefix, end, after, upTo);
  for (const [revision, created] of changes) {
    if (revision <= upTo) found.add(revision);
    if (created > after) found.add(created);
  }
  return found;
}
