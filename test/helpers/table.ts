/**
 * Reads kubectl's human-readable tables the way a person does: column positions come from the header line
 * (kubectl aligns every cell under its header with a tabwriter), so empty cells stay empty instead of shifting.
 */
export interface ParsedTable {
  header: string[];
  rows: string[][];
  /** Rows as objects keyed by header name. */
  records: Record<string, string>[];
}

export function parseTable(stdout: string): ParsedTable {
  const lines = stdout.split('\n').filter((l) => l.trim() !== '');
  if (lines.length === 0) return { header: [], rows: [], records: [] };
  const headerLine = lines[0]!;
  const starts: number[] = [];
  const header: string[] = [];
  // A header name may hold single spaces (`NOMINATED NODE`); columns are separated by at least three.
  for (const m of headerLine.matchAll(/\S+(?: \S+)*/g)) {
    starts.push(m.index);
    header.push(m[0]);
  }
  const rows = lines.slice(1).map((line) =>
    starts.map((start, i) => {
      const end = i + 1 < starts.length ? starts[i + 1] : undefined;
      return line.slice(start, end).trim();
    }),
  );
  const records = rows.map((cells) => Object.fromEntries(header.map((h, i) => [h, cells[i] ?? ''])));
  return { header, rows, records };
}

/** Splits each non-empty line on runs of whitespace (for output printed row by row, like `get -w`). */
export function words(stdout: string): string[][] {
  return stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => l.trim().split(/\s+/));
}

/** kubectl's AGE cell for an object created moments ago: `0s` … `59s`, or `1m…` on a slow machine. */
export const freshAge = /^(\d{1,2}s|\d+m\d*s?)$/;
