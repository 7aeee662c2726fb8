/**
 * The tree state plus one list-and-watch loop per visible expanded level: expanding a workspace lists its children
 * and keeps them live; collapsing it stops its watch. `refresh()` restarts every loop (a relist of what is shown).
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { Workspace } from '../../client/workspace-api.js';
import type { Listed } from '../data/workspace-source.js';
import { keepWatching } from '../data/keep-watching.js';
import { describe, toNode, type WorkspaceSource } from '../data/workspace-source.js';
import { expandedLevels, initialState, removeChild, setLevel, setLevelError, upsertChild, type TreeState, type WorkspaceNode } from '../model/tree.js';

export interface Offline {
  /** The last failure's message. */
  reason: string;
  /** When the first try failed (ms since the epoch). */
  since: number;
  /** Tries that failed in a row (the loops retry with a growing pause). */
  failedTries: number;
}

export interface LiveTree {
  tree: TreeState;
  update(change: (s: TreeState) => TreeState): void;
  /** The last Workspace object a list or watch delivered, by path (the details pane shows its conditions live). */
  objects: ReadonlyMap<string, Workspace>;
  /** Set while the server cannot be reached. */
  offline?: Offline;
  refresh(): void;
}

/**
 * `firstLevel`, when given, is the top workspace's children as listed before the browser was drawn: the first frame
 * shows them, and their watch starts from that list's resourceVersion.
 */
export function useLiveTree(source: WorkspaceSource, top: WorkspaceNode, firstLevel?: Listed<Workspace>): LiveTree {
  const objects = useRef(new Map<string, Workspace>());
  const prefetched = useRef(firstLevel);
  const [tree, setTree] = useState(() => {
    const start = initialState(top);
    if (!firstLevel) return start;
    return setLevel(start, top.path, firstLevel.items.map((ws) => remember(objects.current, top.path, ws)));
  });
  const [offline, setOffline] = useState<Offline | undefined>();
  const connection = useCallback(
    (reason: string | undefined, failedTries = 1) =>
      setOffline((was) => (reason === undefined ? undefined : { reason, since: was?.since ?? Date.now(), failedTries: Math.max(failedTries, was?.failedTries ?? 0) })),
    [],
  );
  const [generation, setGeneration] = useState(0);
  const watchers = useRef(new Map<string, AbortController>());
  const levelsKey = expandedLevels(tree).sort().join('\n');

  useEffect(() => {
    const wanted = new Set(levelsKey ? levelsKey.split('\n') : []);
    for (const [path, ctl] of watchers.current) {
      if (!wanted.has(path)) {
        ctl.abort();
        watchers.current.delete(path);
      }
    }
    for (const parent of wanted) {
      if (watchers.current.has(parent)) continue;
      const ctl = new AbortController();
      watchers.current.set(parent, ctl);
      const remembered = (ws: Workspace) => remember(objects.current, parent, ws);
      void keepWatching<Workspace>(
        {
          list: (signal) => {
            const first = parent === top.path ? prefetched.current : undefined;
            prefetched.current = undefined;
            return first ? Promise.resolve(first) : source.listLevel(parent, signal);
          },
          watch: (rv, signal) => source.watchLevel(parent, rv, signal),
          listed: (items) => setTree((s) => setLevel(s, parent, items.map(remembered))),
          changed: (type, ws) => {
            const node = remembered(ws);
            if (type === 'DELETED') {
              objects.current.delete(node.path);
              setTree((s) => removeChild(s, parent, node.path));
            } else setTree((s) => upsertChild(s, parent, node));
          },
          failed: (err) => {
            // The loop ends: forget it, so expanding the level again retries.
            watchers.current.delete(parent);
            setTree((s) => setLevelError(s, parent, describe(err)));
          },
          connection,
        },
        ctl.signal,
      );
    }
  }, [levelsKey, generation, source, top.path, connection]);

  // Everything stops when the browser closes.
  useEffect(
    () => () => {
      for (const ctl of watchers.current.values()) ctl.abort();
      watchers.current.clear();
    },
    [],
  );

  const refresh = useCallback(() => {
    for (const ctl of watchers.current.values()) ctl.abort();
    watchers.current.clear();
    setGeneration((g) => g + 1);
  }, []);

  return { tree, update: setTree, objects: objects.current, offline, refresh };
}

function remember(objects: Map<string, Workspace>, parent: string, ws: Workspace): WorkspaceNode {
  const node = toNode(parent, ws);
  objects.set(node.path, ws);
  return node;
}
