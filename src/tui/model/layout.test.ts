import { describe, expect, it } from 'vitest';
import { cut, screenLayout, treeColumns, treePaneWidth, wrapWords, type RowText } from './layout.js';

const rows: RowText[] = [
  { label: '▾ layout-2775bb', type: 'organization', phase: 'Ready' },
  { label: '  ▾ development-environment', type: 'universal', phase: 'Ready' },
  { label: '    ▸ backend-services', type: 'universal', phase: 'Initializing' },
];

describe('screen layout', () => {
  it('keeps names whole, then the phase, before the type', () => {
    expect(treeColumns(rows, 27)).toEqual({ name: 27, type: 0, phase: 0 });
    expect(treeColumns(rows, 33)).toEqual({ name: 27, type: 0, phase: 5 });
    expect(treeColumns(rows, 40)).toEqual({ name: 27, type: 0, phase: 12 });
    expect(treeColumns(rows, 53)).toEqual({ name: 27, type: 12, phase: 12 });
  });

  it('widens the tree pane for whole names and phases while the details keep some room', () => {
    // Past three fifths for 4 of border and padding, the widest name, a space, the widest phase; not past 20 left.
    expect(treePaneWidth(rows, 70)).toBe(4 + 27 + 1 + 12);
    expect(treePaneWidth(rows, 60)).toBe(40);
    expect(treePaneWidth(rows, 40)).toBe(24);
    // Never under about a third of the screen.
    expect(treePaneWidth(rows, 200)).toBe(70);
  });

  it('gives the URL lines of its own, cut at the screen width, and wraps the keys', () => {
    const url = 'https://127.0.0.1:6443/clusters/root:layout-2775bb:development-environment:backend-services';
    const layout = screenLayout({ rows: 24, columns: 60, tree: rows, url });
    expect(layout.urlLines.join('')).toBe(`URL  ${url}`);
    expect(layout.urlLines.every((l) => l.length <= 60)).toBe(true);
    expect(layout.keyLines.length).toBe(2);
    expect(layout.leftWidth + layout.rightWidth).toBe(60);
    // Header, the panes' borders, the status line, the URL's and the keys' lines, and the panes' insides: the screen.
    expect(4 + layout.urlLines.length + layout.keyLines.length + layout.paneHeight).toBe(24);
    expect(cut('abcdef', 4)).toEqual(['abcd', 'ef']);
    expect(wrapWords(['a b', 'cd', 'e'], 5)).toEqual(['a b', 'cd  e']);
  });
});
