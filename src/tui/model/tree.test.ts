import { describe, expect, it } from 'vitest';
import {
  collapse,
  expand,
  expandedLevels,
  flatten,
  initialState,
  move,
  moveTo,
  removeChild,
  setFilter,
  setLevel,
  setLevelError,
  upsertChild,
  visibleWindow,
  type TreeState,
  type WorkspaceNode,
} from './tree.js';

const ws = (path: string, extra: Partial<WorkspaceNode> = {}): WorkspaceNode => ({ name: path.slice(path.lastIndexOf(':') + 1), path, ...extra });
const names = (s: TreeState) => flatten(s).map((r) => `${'  '.repeat(r.depth)}${r.node.name}${r.expanded ? '/' : ''}`);

function orgTree(): TreeState {
  let s = initialState(ws('root'));
  s = setLevel(s, 'root', [ws('root:b'), ws('root:a'), ws('root:c', { mount: true })]);
  return s;
}

describe('workspace tree model', () => {
  it('shows the top row expanded, its children sorted by name', () => {
    expect(names(orgTree())).toEqual(['root/', '  a', '  b', '  c']);
  });

  it('moves the cursor within the rows and clamps at both ends', () => {
    let s = orgTree();
    s = move(s, 1);
    expect(s.cursor).toBe('root:a');
    s = move(s, 10);
    expect(s.cursor).toBe('root:c');
    s = move(s, -100);
    expect(s.cursor).toBe('root');
    expect(moveTo(s, 'last').cursor).toBe('root:c');
  });

  it('expands lazily: asks for the level once, shows it when loaded, steps into it on a second expand', () => {
    let s = move(orgTree(), 1);
    const first = expand(s);
    expect(first.load).toBe('root:a');
    s = first.state;
    expect(flatten(s)[1]).toMatchObject({ expanded: true, loading: true });
    s = setLevel(s, 'root:a', [ws('root:a:x'), ws('root:a:y')]);
    expect(names(s)).toEqual(['root/', '  a/', '    x', '    y', '  b', '  c']);
    const again = expand(s);
    expect(again.load).toBeUndefined();
    expect(again.state.cursor).toBe('root:a:x');
  });

  it('collapses, then steps to the parent; keeps the loaded level for the next expand', () => {
    let s = expand(move(orgTree(), 1)).state;
    s = setLevel(s, 'root:a', [ws('root:a:x')]);
    s = move(s, 1);
    expect(s.cursor).toBe('root:a:x');
    s = collapse(s);
    expect(s.cursor).toBe('root:a');
    s = collapse(s);
    expect(names(s)).toEqual(['root/', '  a', '  b', '  c']);
    expect(expand(s).load).toBeUndefined();
    expect(collapse(moveTo(s, 'first')).expanded.has('root')).toBe(true);
  });

  it('does not expand mounts and marks known-empty levels as not expandable', () => {
    let s = moveTo(orgTree(), 'last');
    expect(expand(s).state).toBe(s);
    s = expand(move(orgTree(), 2)).state;
    s = setLevel(s, 'root:b', []);
    expect(flatten(s).find((r) => r.node.path === 'root:b')).toMatchObject({ expandable: false, expanded: true });
  });

  it('keeps a failed level as an error a later expand retries', () => {
    let s = expand(move(orgTree(), 1)).state;
    s = setLevelError(s, 'root:a', 'forbidden');
    expect(flatten(s)[1].error).toBe('forbidden');
    s = collapse(s);
    expect(expand(s).load).toBe('root:a');
  });

  it('applies watch events: a new child in name order, a changed phase, a removed child moving the cursor', () => {
    let s = orgTree();
    s = upsertChild(s, 'root', ws('root:aa', { phase: 'Initializing' }));
    expect(names(s)).toEqual(['root/', '  a', '  aa', '  b', '  c']);
    s = upsertChild(s, 'root', ws('root:aa', { phase: 'Ready' }));
    expect(flatten(s)[2].node.phase).toBe('Ready');
    s = move(s, 2);
    s = removeChild(s, 'root', 'root:aa');
    expect(names(s)).toEqual(['root/', '  a', '  b', '  c']);
    expect(s.cursor).toBe('root:b');
  });

  it('a relisted level drops vanished children and their subtrees', () => {
    let s = expand(move(orgTree(), 1)).state;
    s = setLevel(s, 'root:a', [ws('root:a:x')]);
    s = setLevel(s, 'root', [ws('root:b')]);
    expect(names(s)).toEqual(['root/', '  b']);
    expect(s.nodes.has('root:a:x')).toBe(false);
    expect(s.cursor).toBe('root');
  });

  it('filters by name over the loaded levels, keeping the ancestors of matches', () => {
    let s = expand(move(orgTree(), 1)).state;
    s = setLevel(s, 'root:a', [ws('root:a:team-x'), ws('root:a:other')]);
    s = setFilter(s, 'TEAM');
    expect(names(s)).toEqual(['root/', '  a/', '    team-x']);
    expect(setFilter(s, 'nothing-matches').cursor).toBe('root');
    expect(names(setFilter(s, ''))).toHaveLength(6);
  });

  it('lists the expanded levels that are visible (a collapsed ancestor hides its expanded children)', () => {
    let s = expand(move(orgTree(), 1)).state;
    s = setLevel(s, 'root:a', [ws('root:a:x')]);
    s = expand(move(s, 1)).state;
    expect(expandedLevels(s).sort()).toEqual(['root', 'root:a', 'root:a:x']);
    s = collapse(move(s, -1));
    expect(expandedLevels(s).sort()).toEqual(['root']);
  });

  it('windows rows to the pane height, scrolling only as far as the cursor needs', () => {
    expect(visibleWindow(100, 0, 10)).toEqual({ start: 0, end: 10 });
    expect(visibleWindow(100, 12, 10, 0)).toEqual({ start: 3, end: 13 });
    expect(visibleWindow(100, 5, 10, 3)).toEqual({ start: 3, end: 13 });
    expect(visibleWindow(100, 1, 10, 3)).toEqual({ start: 1, end: 11 });
    expect(visibleWindow(5, 4, 10, 3)).toEqual({ start: 0, end: 5 });
  });

  it('flattens a level of 10,000 children without walking anything collapsed', () => {
    let s = initialState(ws('root'));
    s = setLevel(s, 'root', Array.from({ length: 10_000 }, (_, i) => ws(`root:w${String(i).padStart(5, '0')}`)));
    const rows = flatten(s);
    expect(rows).toHaveLength(10_001);
    expect(move(s, 9_999, rows).cursor).toBe('root:w09998');
  });
});
