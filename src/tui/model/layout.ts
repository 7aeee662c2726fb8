/**
 * Where everything goes on a screen of `rows` × `columns`, as pure functions: the browser fills the terminal exactly
 * (header, the two panes, the selected workspace's URL on lines of its own, the status line, the keys), so every
 * frame, after a resize too, is drawn whole. The tree pane is as wide as its rows need (within bounds), and a row's
 * name is cut only when the pane has no room left for it: the phase and then the type give way first.
 */

/** What a tree row shows, before it is fitted to its columns. Names, types and phases are one column a character. */
export interface RowText {
  label: string;
  type: string;
  phase: string;
}

/** Widths of a tree row's columns; 0 leaves the column (and the space before it) out. */
export interface RowWidths {
  name: number;
  type: number;
  phase: number;
}

export interface ScreenLayout {
  /** Outer widths of the panes (borders included); they add up to the screen's columns. */
  leftWidth: number;
  rightWidth: number;
  /** Lines inside each pane's border. */
  paneHeight: number;
  /** The URL line, cut to the screen's width (a URL wider than the screen continues on the next line). */
  urlLines: string[];
  /** The keys, wrapped to the screen's width. */
  keyLines: string[];
}

/** A pane's border and padding: a character each side. */
export const paneChrome = 4;
/** Lines that are not the panes' insides: header, the panes' top and bottom borders, the status line. */
const fixedLines = 4;

export const footerKeys = ['↑↓ move', '→ expand', '← collapse', '⏎ use', 'c create', 'd delete', 'b bind', '/ filter', 'r refresh', '? help', 'q quit'];

export const urlLabel = 'URL  ';

export function screenLayout(opts: { rows: number; columns: number; tree: RowText[]; url: string }): ScreenLayout {
  const columns = Math.max(1, opts.columns);
  const leftWidth = treePaneWidth(opts.tree, columns);
  const urlLines = cut(`${urlLabel}${opts.url}`, columns);
  const keyLines = wrapWords(footerKeys, columns);
  return {
    leftWidth,
    rightWidth: columns - leftWidth,
    paneHeight: Math.max(1, opts.rows - fixedLines - urlLines.length - keyLines.length),
    urlLines,
    keyLines,
  };
}

/** The details pane's outer width below which the tree gives way. */
const minDetailsWidth = 20;

/**
 * The tree pane's outer width: what its widest row needs, between a third of the screen and three fifths, or more
 * where the names and phases need it (the details keep at least `minDetailsWidth`).
 */
export function treePaneWidth(tree: RowText[], columns: number): number {
  const { label, type, phase } = widest(tree);
  const wanted = paneChrome + label + (type ? 1 + type : 0) + (phase ? 1 + phase : 0);
  const least = Math.min(columns, Math.max(24, Math.floor(columns * 0.35)));
  // Names and phases whole come before the details' width, down to a narrow details pane.
  const namesAndPhases = paneChrome + label + (phase ? 1 + phase : 0);
  const most = Math.max(least, Math.floor(columns * 0.6), Math.min(columns - minDetailsWidth, namesAndPhases));
  return Math.min(most, Math.max(least, wanted));
}

/**
 * The columns of tree rows in `inner` columns: the names as wide as the widest, then the phase, then the type, each
 * shown only where it fits (at least a few characters of it); what is left widens the name column.
 */
export function treeColumns(tree: RowText[], inner: number): RowWidths {
  const most = widest(tree);
  const name = Math.min(most.label, inner);
  let left = inner - name;
  const fit = (wanted: number) => {
    if (wanted === 0 || left - 1 < Math.min(wanted, 4)) return 0;
    const width = Math.min(wanted, left - 1);
    left -= width + 1;
    return width;
  };
  const phase = fit(most.phase);
  const type = fit(most.type);
  return { name: name + left, type, phase };
}

function widest(tree: RowText[]): { label: number; type: number; phase: number } {
  let label = 0;
  let type = 0;
  let phase = 0;
  for (const r of tree) {
    label = Math.max(label, r.label.length);
    type = Math.max(type, r.type.length);
    phase = Math.max(phase, r.phase.length);
  }
  return { label, type, phase };
}

/** `text` in pieces of `width` characters: a URL has no spaces to wrap at, and must stay whole when copied. */
export function cut(text: string, width: number): string[] {
  const chars = [...text];
  const lines: string[] = [];
  for (let i = 0; i < chars.length; i += width) lines.push(chars.slice(i, i + width).join(''));
  return lines.length ? lines : [''];
}

/** Words joined by two spaces, as many a line as fit in `width` (a word wider than the line is cut). */
export function wrapWords(words: string[], width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    const next = line ? `${line}  ${word}` : word;
    if ([...next].length <= width || !line) line = next;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line) lines.push(line);
  return lines.map((l) => ([...l].length > width ? [...l].slice(0, width).join('') : l));
}

/** `text` wrapped at spaces to lines of `width` at most (a word wider than a line is cut into pieces). */
export function wrapText(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const next = line ? `${line} ${word}` : word;
    if ([...next].length <= width) {
      line = next;
      continue;
    }
    if (line) lines.push(line);
    const pieces = cut(word, width);
    line = pieces.pop() ?? '';
    lines.push(...pieces);
  }
  lines.push(line);
  return lines;
}
