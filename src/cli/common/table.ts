/** kubectl's table layout: a header row, columns padded to the widest cell plus three spaces, no trailing blanks. */
export function formatTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]! + 3)))
      .join('')
      .trimEnd();
  return `${[line(headers), ...rows.map(line)].join('\n')}\n`;
}
