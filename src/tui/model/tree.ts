/**
 * The workspace tree as the TUI holds it: what is known about each workspace (by path), which levels are loaded,
 * which are expanded, where the cursor is and the name filter. Pure functions over an immutable state, so the
 * browser's behaviour (expand, collapse, move, filter, live updates) is tested without rendering anything. Levels are
 * loaded lazily: only the levels a user expands are ever listed, so a tree of 10,000 workspaces costs what its
 * visible levels cost.
 */
import { parentPath as parentOf } from '../../client/workspace-path.js';

export interface WorkspaceNode {
  name: string;
  /** Absolute workspace path, `root:org:team`. */
  path: string;
  type?: string;
  phase?: string;
  url?: string;
  /** The logical cluster name (spec.cluster). */
  cluster?: string;
  /** Being deleted (deletionTimestamp set). */
  deleting?: boolean;
  /** A mount: it has no tree of its own to expand. */
  mount?: boolean;
}

export type Level =
  | { state: 'loading' }
  | { state: 'loaded'; paths: string[] }
  | { state: 'error'; message: string };

export interface TreeState {
  /** The top row: the workspace the browser was opened at. */
  readonly rootPath: string;
  readonly nodes: ReadonlyMap<string, WorkspaceNode>;
  readonly levels: ReadonlyMap<string, Level>;
  readonly expanded: ReadonlySet<string>;
  /** Path of the selected row. */
  readonly cursor: string;
  readonly filter: string;
}

export interface Row {
  node: WorkspaceNode;
  depth: number;
  expanded: boolean;
  /** Whether expanding can show anything (not a mount; not a level known to be empty). */
  expandable: boolean;
  /** The level below is being listed, or failed to list (the message). */
  loading: boolean;
  error?: string;
}

export function initialState(root: WorkspaceNode): TreeState {
  return {
    rootPath: root.path,
    nodes: new Map([[root.path, root]]),
    levels: new Map(),
    expanded: new Set([root.path]),
    cursor: root.path,
    filter: '',
  };
}

const byName = (a: WorkspaceNode, b: WorkspaceNode) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** The visible rows, depth first, children by name; with a filter, the matches and the ancestors that lead to them. */
export function flatten(state: TreeState): Row[] {
  const rows: Row[] = [];
  const filter = state.filter.toLowerCase();
  const keep = filter ? matchingPaths(state, filter) : undefined;
  const visit = (path: string, depth: number) => {
    const node = state.nodes.get(path);
    if (!node || (keep && !keep.has(path))) return;
    const level = state.levels.get(path);
    const expanded = state.expanded.has(path);
    rows.push({
      node,
      depth,
      expanded,
      expandable: !node.mount && !(level?.state === 'loaded' && level.paths.length === 0),
      loading: expanded && level?.state === 'loading',
      error: level?.state === 'error' ? level.message : undefined,
    });
    if (expanded && level?.state === 'loaded') for (const child of level.paths) visit(child, depth + 1);
  };
  visit(state.rootPath, 0);
  return rows;
}

/** Paths whose name matches the filter, plus their ancestors; only loaded levels are searched (nothing is fetched). */
function matchingPaths(state: TreeState, filter: string): Set<string> {
  const keep = new Set<string>();
  const visit = (path: string): boolean => {
    const node = state.nodes.get(path);
    if (!node) return false;
    let any = node.name.toLowerCase().includes(filter);
    const level = state.levels.get(path);
    if (level?.state === 'loaded') for (const child of level.paths) any = visit(child) || any;
    if (any) keep.add(path);
    return any;
  };
  // The top row always stays: it is where the tree hangs.
  visit(state.rootPath);
  keep.add(state.rootPath);
  return keep;
}

export function cursorIndex(state: TreeState, rows: Row[]): number {
  const at = rows.findIndex((r) => r.node.path === state.cursor);
  return at < 0 ? 0 : at;
}

export function selected(state: TreeState): WorkspaceNode | undefined {
  return state.nodes.get(state.cursor);
}

/** Moves the cursor by `delta` rows (clamped), e.g. ±1 for the arrows, ±page for PgUp/PgDn. */
export function move(state: TreeState, delta: number, rows = flatten(state)): TreeState {
  if (rows.length === 0) return state;
  const next = Math.max(0, Math.min(rows.length - 1, cursorIndex(state, rows) + delta));
  return { ...state, cursor: rows[next].node.path };
}

export function moveTo(state: TreeState, where: 'first' | 'last', rows = flatten(state)): TreeState {
  if (rows.length === 0) return state;
  return { ...state, cursor: rows[where === 'first' ? 0 : rows.length - 1].node.path };
}

/**
 * → / l / space: expands the selected workspace; on one already expanded, steps to its first child. Returns the path
 * whose level must be loaded (none when it is loaded or loading already).
 */
export function expand(state: TreeState): { state: TreeState; load?: string } {
  const node = selected(state);
  if (!node || node.mount) return { state };
  const level = state.levels.get(node.path);
  if (state.expanded.has(node.path)) {
    if (level?.state === 'loaded' && level.paths.length > 0) {
      const rows = flatten(state);
      return { state: move(state, 1, rows) };
    }
    return { state };
  }
  const expanded = new Set(state.expanded).add(node.path);
  const needsLoad = !level || level.state === 'error';
  const levels = needsLoad ? new Map(state.levels).set(node.path, { state: 'loading' } as Level) : state.levels;
  return { state: { ...state, expanded, levels }, load: needsLoad ? node.path : undefined };
}

/** ← / h: collapses the selected workspace, or steps to its parent when it is collapsed already. */
export function collapse(state: TreeState): TreeState {
  const path = state.cursor;
  if (state.expanded.has(path) && path !== state.rootPath) {
    const expanded = new Set(state.expanded);
    expanded.delete(path);
    return { ...state, expanded };
  }
  const parent = parentOf(path);
  if (path === state.rootPath || parent === undefined || !state.nodes.has(parent)) return state;
  return { ...state, cursor: parent };
}

/** Paths of the expanded levels (the ones the browser keeps listed and watched). */
export function expandedLevels(state: TreeState): string[] {
  return [...state.expanded].filter((p) => isVisible(state, p));
}

/** Whether every ancestor up to the top row is expanded. */
function isVisible(state: TreeState, path: string): boolean {
  if (path === state.rootPath) return true;
  if (!state.nodes.has(path)) return false;
  const parent = parentOf(path);
  return parent !== undefined && state.expanded.has(parent) && isVisible(state, parent);
}

/** A level as listed: replaces what was known of it (children that vanished are forgotten, with their subtrees). */
export function setLevel(state: TreeState, parent: string, children: WorkspaceNode[]): TreeState {
  const nodes = new Map(state.nodes);
  const old = state.levels.get(parent);
  const paths = [...children].sort(byName).map((c) => c.path);
  const keep = new Set(paths);
  if (old?.state === 'loaded') for (const p of old.paths) if (!keep.has(p)) forget(nodes, state, p);
  for (const c of children) nodes.set(c.path, c);
  const levels = new Map(state.levels).set(parent, { state: 'loaded', paths });
  return fixCursor({ ...state, nodes, levels });
}

export function setLevelError(state: TreeState, parent: string, message: string): TreeState {
  return { ...state, levels: new Map(state.levels).set(parent, { state: 'error', message }) };
}

/** A watch event's workspace added or changed below `parent`. */
export function upsertChild(state: TreeState, parent: string, child: WorkspaceNode): TreeState {
  const nodes = new Map(state.nodes).set(child.path, child);
  const level = state.levels.get(parent);
  if (level?.state !== 'loaded' || level.paths.includes(child.path)) return { ...state, nodes };
  const paths = insertSorted(level.paths, child, nodes);
  return { ...state, nodes, levels: new Map(state.levels).set(parent, { state: 'loaded', paths }) };
}

/** A watch event's workspace gone from `parent`: the cursor moves to a neighbour (or the parent) if it was there. */
export function removeChild(state: TreeState, parent: string, path: string): TreeState {
  const level = state.levels.get(parent);
  const rows = flatten(state);
  const before = cursorIndex(state, rows);
  const nodes = new Map(state.nodes);
  forget(nodes, state, path);
  const levels = new Map(state.levels);
  if (level?.state === 'loaded') levels.set(parent, { state: 'loaded', paths: level.paths.filter((p) => p !== path) });
  const next = { ...state, nodes, levels };
  if (nodes.has(state.cursor)) return next;
  const after = flatten(next);
  return { ...next, cursor: after[Math.min(before, after.length - 1)]?.node.path ?? state.rootPath };
}

export function setFilter(state: TreeState, filter: string): TreeState {
  return fixCursor({ ...state, filter });
}

/** Where the selected workspace was dropped from view (a filter, a relist), the cursor goes to the first row. */
function fixCursor(state: TreeState): TreeState {
  const rows = flatten(state);
  if (rows.some((r) => r.node.path === state.cursor)) return state;
  return { ...state, cursor: rows[0]?.node.path ?? state.rootPath };
}

function forget(nodes: Map<string, WorkspaceNode>, state: TreeState, path: string): void {
  nodes.delete(path);
  const level = state.levels.get(path);
  if (level?.state === 'loaded') for (const p of level.paths) forget(nodes, state, p);
}

function insertSorted(paths: string[], child: WorkspaceNode, nodes: ReadonlyMap<string, WorkspaceNode>): string[] {
  let lo = 0;
  let hi = paths.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((nodes.get(paths[mid])?.name ?? '') < child.name) lo = mid + 1;
    else hi = mid;
  }
  return [...paths.slice(0, lo), child.path, ...paths.slice(lo)];
}

/**
 * The slice of rows a pane of `height` lines shows: keeps the previous first row when the cursor is still inside,
 * else scrolls just enough to show it.
 */
export function visibleWindow(total: number, cursor: number, height: number, previousStart = 0): { start: number; end: number } {
  const h = Math.max(1, height);
  let start = Math.max(0, Math.min(previousStart, Math.max(0, total - h)));
  if (cursor < start) start = cursor;
  else if (cursor >= start + h) start = cursor - h + 1;
  return { start, end: Math.min(total, start + h) };
}
