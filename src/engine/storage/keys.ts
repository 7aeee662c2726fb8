/**
 * Key-range helpers and the retention constants every backend shares, so all of them make the same promises.
 */

/** Compaction never removes the newest this-many revisions (kine's rule): a resume a few seconds old always works. */
export const KEEP_NEWEST_REVISIONS = 1000;
/** Rows deleted per compaction transaction: small enough that one slice holds the writer for a few ms. */
export const COMPACT_BATCH_ROWS = 1000;
/** Rows one `compact()` call may delete before returning, so a caller can yield to the event loop in between. */
export const COMPACT_MAX_ROWS_PER_CALL = 1000;

/**
 * Exclusive upper bound of the keys that start with `prefix`, or undefined when the range is unbounded.
 * Incrementing the last code point (not appending '\uffff') keeps the bound exact in SQLite's UTF-8 byte order
 * as well, so `/a/c1/` ends at `/a/c10` and never lets `/a/c10/x` in.
 */
export function prefixEnd(prefix: string): string | undefined {
  const last = prefix.charCodeAt(prefix.length - 1);
  if (last < 0xd7ff) return prefix.slice(0, -1) + String.fromCharCode(last + 1);
  const codePoints = Array.from(prefix);
  while (codePoints.length > 0) {
    const codePoint = codePoints.pop()!.codePointAt(0)!;
    if (codePoint < 0x10ffff) {
      // Surrogate code points cannot be stored; the next real one after U+D7FF is U+E000.
      const next = codePoint + 1 === 0xd800 ? 0xe000 : codePoint + 1;
      return codePoints.join('') + String.fromCodePoint(next);
    }
  }
  return undefined;
}

/** The `/`-terminated directory of a watch prefix: the bucket it is filed under (see watch-hub.ts). */
export function directoryOf(prefix: string): string {
  return prefix.slice(0, prefix.lastIndexOf('/') + 1);
}

/** Key order used by every backend (UTF-16 code units; equals SQLite's byte order for BMP text). */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Rejects revisions that would otherwise silently match nothing (NaN, fractions, negatives). */
export function assertRevision(revision: number, what: string): void {
  if (!Number.isSafeInteger(revision) || revision < 0) {
    throw new RangeError(`${what} must be a non-negative integer revision, got ${revision}`);
  }
}
