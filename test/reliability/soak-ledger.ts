/**
 * The soak's truth and the watchers' view of it: a ledger of every acknowledged write (with the resourceVersion the
 * server answered), and, per watcher, the events it received split into segments (a segment is one unbroken run of
 * revisions: it starts at the revision the watcher listed or was told to start from, and only a 410 ends it). A
 * watcher passed iff, for every segment, the events it saw are exactly the matching ledger writes in that revision
 * range: none missing, none extra, none twice.
 */

export type ObjectResource = 'configmaps' | 'widgets';
export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface Write {
  /** `<resource>/<logical cluster>/<namespace>/<name>`: the same key a watcher derives from an event's object. */
  key: string;
  resource: ObjectResource;
  cluster: string;
  namespace: string;
  tier: string;
  type: EventType;
  /** The answered resourceVersion; for a delete (answered with a Status) the one its DELETED event carries. */
  rv?: number;
}

/** What a watcher looks at, as the ledger can tell which writes it must see. */
export interface Interest {
  resource: ObjectResource;
  /** Logical cluster name; undefined for the `*` wildcard. */
  cluster?: string;
  namespace?: string;
  /** `tier=<value>` selector; undefined for none (`app=soak` matches every soak object). */
  tier?: string;
}

export interface SeenEvent {
  type: EventType;
  key: string;
  rv: number;
}

export interface Segment {
  /** The revision the watch started after (a list's revision, or the resume point given at the start). */
  start: number;
  /** Last revision seen before a 410 ended the segment; undefined while it is the current one. */
  end?: number;
  events: SeenEvent[];
}

export const objectKey = (resource: string, obj: { metadata?: { name?: string; namespace?: string; annotations?: Record<string, string> } }): string =>
  `${resource}/${obj.metadata?.annotations?.['kcp.io/cluster'] ?? ''}/${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;

export function matches(interest: Interest, w: Write): boolean {
  return (
    interest.resource === w.resource &&
    (interest.cluster === undefined || interest.cluster === w.cluster) &&
    (interest.namespace === undefined || interest.namespace === w.namespace) &&
    (interest.tier === undefined || interest.tier === w.tier)
  );
}

export class Ledger {
  readonly writes: Write[] = [];
  /** Delete revisions as the watchers reported them; every report for a key must agree. */
  private readonly deleteRvs = new Map<string, number>();
  private readonly pendingDeletes = new Map<string, Write>();
  readonly conflicts: string[] = [];
  /** The highest revision of an acknowledged write known so far (a delete's once a watcher has reported it). */
  maxRv = 0;

  record(w: Write): void {
    if (w.type === 'DELETED') {
      const known = this.deleteRvs.get(w.key);
      if (known !== undefined) w.rv = known;
      else this.pendingDeletes.set(w.key, w);
    }
    if (w.rv !== undefined) this.maxRv = Math.max(this.maxRv, w.rv);
    this.writes.push(w);
  }

  /** A DELETED event's revision for `key`: the first report fixes it, any later one must say the same. */
  observeDelete(key: string, rv: number): void {
    const known = this.deleteRvs.get(key);
    if (known === undefined) {
      this.deleteRvs.set(key, rv);
      const pending = this.pendingDeletes.get(key);
      if (pending) {
        pending.rv = rv;
        this.maxRv = Math.max(this.maxRv, rv);
        this.pendingDeletes.delete(key);
      }
    } else if (known !== rv) this.conflicts.push(`${key} deleted at ${known} and at ${rv}`);
  }

  /** Acknowledged deletes no watcher ever reported (their revision is unknown, so no range check can hold them). */
  unobservedDeletes(): string[] {
    return [...this.pendingDeletes.keys()];
  }
}

export interface SegmentCheck {
  missing: string[];
  unexpected: string[];
}

export const eventId = (e: { type: string; key: string; rv?: number }) => `${e.type} ${e.key}@${e.rv}`;

/** What the incremental check needs from a watcher. */
export interface SeenIndex {
  /** Whether a segment covers `rv` (start < rv ≤ its end, or ≤ `head` for the current one). */
  covers(rv: number, head: number): boolean;
  hasSeen(id: string): boolean;
}

/**
 * The check made while the load runs, at every sample: only the writes acknowledged since the previous sample (and
 * those still above the watcher's revision then) are looked at, so it costs the same at minute 10 as at minute 1.
 * A write at or below the revision the watcher has reached, in a range it covers, must have been seen.
 */
export class IncrementalCheck {
  private next = 0;
  private pending: Write[] = [];

  constructor(
    private readonly ledger: Ledger,
    private readonly interest: Interest,
  ) {}

  missingUpTo(reached: number, seen: SeenIndex): string[] {
    const fresh = this.ledger.writes.slice(this.next).filter((w) => matches(this.interest, w));
    this.next = this.ledger.writes.length;
    const candidates = this.pending.concat(fresh);
    this.pending = [];
    const missing: string[] = [];
    for (const w of candidates) {
      if (w.rv === undefined || w.rv > reached) this.pending.push(w);
      else if (seen.covers(w.rv, reached) && !seen.hasSeen(eventId(w))) missing.push(eventId(w));
    }
    return missing;
  }
}

/**
 * The matching writes up to `head` that a watcher covers and has not seen yet, to poll while it catches up (a relist
 * meanwhile can uncover some: they are then the list's business, not the stream's).
 */
export function outstanding(ledger: Ledger, interest: Interest, seen: SeenIndex, head: number, among: Write[] = ledger.writes): Write[] {
  return among.filter((w) => w.rv !== undefined && w.rv <= head && matches(interest, w) && seen.covers(w.rv, head) && !seen.hasSeen(eventId(w)));
}

/**
 * Compares each segment with the ledger once the load has stopped: `head` (the last acknowledged revision) bounds the
 * current segment, a 410 bounds the others.
 */
export function checkSegments(ledger: Ledger, interest: Interest, segments: Segment[], head: number): SegmentCheck {
  const out: SegmentCheck = { missing: [], unexpected: [] };
  const mine = ledger.writes.filter((w) => w.rv !== undefined && matches(interest, w));
  for (const seg of segments) {
    const hi = seg.end ?? head;
    const expected = new Set(mine.filter((w) => w.rv! > seg.start && w.rv! <= hi).map(eventId));
    const seen = new Set(seg.events.map(eventId));
    for (const id of expected) if (!seen.has(id)) out.missing.push(id);
    for (const id of seen) if (!expected.has(id)) out.unexpected.push(id);
  }
  return out;
}

/** Percentile of a sorted list (nearest rank). */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Least-squares slope of y over x. */
export function slope(points: { x: number; y: number }[]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.x - mx) * (p.y - my);
    den += (p.x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}
