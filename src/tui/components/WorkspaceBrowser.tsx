/**
 * The whole browser: tree on the left, details (or a prompt) on the right, help across both; below them the selected
 * workspace's URL, the status line and the keys. It fills the terminal exactly and follows its size (model/layout.ts
 * decides where things go). Keys move through a pure tree model (../model/tree.ts); hooks keep the expanded levels
 * and the selected workspace live. Every server error lands in the status line; nothing a server answers ends the app,
 * and a server that goes away is waited for: the tree is listed again when it answers.
 */
import { Box, Text, useInput, type Key } from 'ink';
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { ApiError } from '../../client/errors.js';
import type { Workspace } from '../../client/workspace-api.js';
import type { Listed, WorkspaceSource } from '../data/workspace-source.js';
import { describe } from '../data/workspace-source.js';
import { useLiveTree } from '../hooks/useLiveTree.js';
import { useSelectedDetails } from '../hooks/useSelectedDetails.js';
import { useTerminalSize, type TerminalSize } from '../hooks/useTerminalSize.js';
import { screenLayout } from '../model/layout.js';
import { collapse, cursorIndex, expand, flatten, move, moveTo, selected, setFilter, visibleWindow, type Row, type WorkspaceNode } from '../model/tree.js';
import { eachKey, type KeySink } from '../keys.js';
import { accent } from '../theme.js';
import { ChoicePrompt, type Choice } from './ChoicePrompt.js';
import { DetailsFrame, DetailsPane, workspaceUrl } from './DetailsPane.js';
import { KeysLine, StatusLine, UrlLine, type Status } from './Footer.js';
import { HelpPane, helpWindow } from './HelpPane.js';
import { TextPrompt } from './TextPrompt.js';
import { rowText, TreePane } from './TreePane.js';

export interface WorkspaceBrowserProps {
  source: WorkspaceSource;
  /** The workspace the tree starts at (the current one). */
  top: WorkspaceNode;
  serverUrl: string;
  /** Enter: the path to switch to. */
  onSelect(path: string): void;
  onQuit(): void;
  /** The top workspace's children, listed while Ink loaded (shown in the first frame). */
  firstLevel?: Listed<Workspace>;
  /** Terminal size; by default the output stream's, followed as it changes. */
  size?: TerminalSize;
}

type Mode =
  | { kind: 'browse' }
  | { kind: 'help'; first: number }
  | { kind: 'filter'; before: string }
  | { kind: 'create-name'; parent: WorkspaceNode }
  | { kind: 'create-type'; parent: WorkspaceNode; name: string; choices: Choice<string | undefined>[] }
  | { kind: 'delete'; node: WorkspaceNode }
  | { kind: 'bind'; node: WorkspaceNode; choices: Choice<{ path: string; name: string }>[]; note: string }
  | { kind: 'busy'; what: string };

const nameRule = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

export function WorkspaceBrowser({ source, top, serverUrl, onSelect, onQuit, firstLevel, size }: WorkspaceBrowserProps) {
  const { rows: screenRows, columns } = useTerminalSize(size);
  const live = useLiveTree(source, top, firstLevel);
  const { tree, update } = live;
  const [mode, setMode] = useState<Mode>({ kind: 'browse' });
  const [status, setStatus] = useState<Status | undefined>();
  const [generation, setGeneration] = useState(0);
  const firstRow = useRef(0);
  // The first frame shows the tree and an empty details pane, filled from the second frame on: the tree is what
  // opening waits for, and the details' lines are a third of what the first frame would otherwise lay out and draw.
  const [detailsDrawn, setDetailsDrawn] = useState(false);
  useEffect(() => setDetailsDrawn(true), []);

  const rows = useMemo(() => flatten(tree), [tree]);
  const texts = useMemo(() => rows.map(rowText), [rows]);
  const at = cursorIndex(tree, rows);
  const current = selected(tree) ?? top;
  const selectedDetails = useSelectedDetails(source, current.path, generation);
  const currentObject = live.objects.get(current.path) ?? selectedDetails.details?.workspace;
  const { leftWidth, rightWidth, paneHeight, urlLines, keyLines } = screenLayout({
    rows: screenRows,
    columns,
    tree: texts,
    url: workspaceUrl(current, currentObject, serverUrl),
  });
  const treeLines = paneHeight - 1;
  const window = visibleWindow(rows.length, at, treeLines, firstRow.current);
  firstRow.current = window.start;

  // Back from an outage: the levels were listed again by their loops; the details are read again too.
  const wasOffline = useRef(false);
  useEffect(() => {
    if (live.offline) wasOffline.current = true;
    else if (wasOffline.current) {
      wasOffline.current = false;
      setGeneration((g) => g + 1);
      setStatus({ tone: 'info', text: 'The server answers again: the open levels were listed anew.' });
    }
  }, [live.offline]);

  const fail = (err: unknown) => setStatus({ tone: 'error', text: describe(err) });
  const say = (text: string) => setStatus({ tone: 'info', text });

  /** Runs an action with a busy line, its result or error in the status line; the browser stays open either way. */
  const act = (what: string, action: () => Promise<string | void>) => {
    setMode({ kind: 'busy', what });
    action().then(
      (message) => {
        if (message) say(message);
        setGeneration((g) => g + 1);
      },
      (err: unknown) => fail(conflictHint(err)),
    ).finally(() => setMode((m) => (m.kind === 'busy' ? { kind: 'browse' } : m)));
  };

  // What the key handler sees: the latest render's, even when a key arrives before Ink re-subscribed the handler
  // (a frame is written at commit, the subscription follows in an effect).
  const view = useRef({ tree, current, mode, columns, paneHeight });
  view.current = { tree, current, mode, columns, paneHeight };

  /** Keys that only move or fold: a burst of them is applied one by one; any other key ends the burst. */
  const navigation = new Set(['j', 'k', 'h', 'l', ' ', 'g', 'G']);
  const promptKeys = useRef<KeySink>({}).current;
  /** One key to whatever has focus; true when it may have moved the focus (a prompt opened or closed). */
  const handle = (input: string, key: Key): boolean | void => {
    const kind = view.current.mode.kind;
    // Ctrl-C leaves from anywhere, a prompt or a pending action included.
    if (key.ctrl && input === 'c') {
      onQuit();
      return true;
    }
    if (kind === 'busy') return true;
    if (kind !== 'browse' && kind !== 'help') return promptKeys.current?.(input, key);
    onKey(input, key);
    return !navigation.has(input);
  };
  // Keys that come after one that moved the focus wait for the next frame, where the new focus (a prompt's handler,
  // the browser's state) is in place: `cteam⏎`, typed fast or pasted, creates `team`.
  const held = useRef<{ input: string; key: Key }[] | undefined>(undefined);
  // The frame the held keys wait for: an earlier frame's effects may still run (React flushes them before it renders
  // the key's update) and must not let them through.
  const heldFor = useRef(0);
  const [frame, setFrame] = useState(0);
  const deliver = (input: string, key: Key) => {
    if (held.current) {
      held.current.push({ input, key });
      return;
    }
    if (handle(input, key) === true) {
      held.current = [];
      heldFor.current += 1;
      setFrame(heldFor.current);
    }
  };
  useEffect(() => {
    const waiting = held.current;
    if (!waiting || frame < heldFor.current) return;
    held.current = undefined;
    for (const { input, key } of waiting) deliver(input, key);
  });
  useInput((chunk, k) => eachKey(chunk, k, deliver));

  function onKey(input: string, key: Key): void {
    const { tree, current, mode, columns, paneHeight } = view.current;
    if (mode.kind === 'help') {
      const step = key.downArrow || input === 'j' ? 1 : key.upArrow || input === 'k' ? -1 : 0;
      if (step === 0) return setMode({ kind: 'browse' });
      return setMode({ kind: 'help', first: helpWindow(mode.first + step, columns, paneHeight).start });
    }
    if (input === 'q' || key.escape || (key.ctrl && input === 'c')) {
      if (key.escape && tree.filter) return update((s) => setFilter(s, ''));
      return onQuit();
    }
    setStatus(undefined);
    if (key.upArrow || input === 'k') return update((s) => move(s, -1));
    if (key.downArrow || input === 'j') return update((s) => move(s, 1));
    if (key.pageUp) return update((s) => move(s, -treeLines));
    if (key.pageDown) return update((s) => move(s, treeLines));
    if (key.home || input === 'g') return update((s) => moveTo(s, 'first'));
    if (key.end || input === 'G') return update((s) => moveTo(s, 'last'));
    if (key.rightArrow || input === 'l' || input === ' ') return update((s) => expand(s).state);
    if (key.leftArrow || input === 'h') return update(collapse);
    if (key.return) return onSelect(current.path);
    if (input === '?') return setMode({ kind: 'help', first: 0 });
    if (input === '/') return setMode({ kind: 'filter', before: tree.filter });
    if (input === 'r') {
      live.refresh();
      setGeneration((g) => g + 1);
      return say('Refreshed.');
    }
    if (input === 'c') {
      if (current.mount) return fail(new Error(`${current.path} is a mount: workspaces cannot be created in it`));
      return setMode({ kind: 'create-name', parent: current });
    }
    if (input === 'd') {
      if (current.path === 'root' || !current.path.includes(':')) return fail(new Error(`${current.path} has no parent to delete it from`));
      return setMode({ kind: 'delete', node: current });
    }
    if (input === 'b') return startBind(current);
  }

  function startCreateType(parent: WorkspaceNode, name: string) {
    if (!nameRule.test(name)) {
      setMode({ kind: 'browse' });
      return fail(new Error(`"${name}" is not a valid workspace name: lower-case letters, digits and dashes, starting and ending with a letter or digit`));
    }
    setMode({ kind: 'busy', what: `Reading the workspace types ${parent.path} allows…` });
    source.allowedChildTypes(parent).then(
      (types) => {
        const choices: Choice<string | undefined>[] = [
          { label: '(default type)', detail: "the parent type's default child type", value: undefined },
          ...types.map((t) => ({ label: t.reference, detail: t.description, value: t.reference })),
        ];
        setMode({ kind: 'create-type', parent, name, choices });
      },
      (err: unknown) => {
        setMode({ kind: 'browse' });
        fail(err);
      },
    );
  }

  function create(parent: WorkspaceNode, name: string, type: string | undefined) {
    act(`Creating ${parent.path}:${name}…`, async () => {
      const ws = await source.createChild(parent.path, name, type);
      // Show the new child: its level is watched from now on, so it appears and turns Ready on its own.
      update((s) => (s.expanded.has(parent.path) ? s : expand({ ...s, cursor: parent.path }).state));
      return `Workspace "${name}" (type ${ws.spec?.type ? `${ws.spec.type.path ? `${ws.spec.type.path}:` : ''}${ws.spec.type.name}` : 'default'}) created in ${parent.path}.`;
    });
  }

  function startBind(node: WorkspaceNode) {
    setMode({ kind: 'busy', what: `Looking for APIExports you may bind into ${node.path}, in every workspace you may enter…` });
    source.bindableExports(node.path).then(
      ({ exports, searched, notAllowed }) => {
        const withheld = notAllowed ? `; ${notAllowed} more you may not bind` : '';
        if (exports.length === 0) {
          setMode({ kind: 'browse' });
          return fail(new Error(`no APIExports you may bind in the ${searched} workspaces you may enter${withheld}`));
        }
        setMode({
          kind: 'bind',
          node,
          note: `${exports.length} APIExports in ${searched} workspaces${withheld}`,
          choices: exports.map((e) => ({ label: `${e.path}:${e.name}`, detail: e.resources.join(', '), value: e })),
        });
      },
      (err: unknown) => {
        setMode({ kind: 'browse' });
        fail(err);
      },
    );
  }

  const right = (() => {
    const box = (child: ReactNode) => (
      <Box flexDirection="column" borderStyle="round" borderColor={accent} width={rightWidth} height={paneHeight + 2} paddingX={1}>
        {child}
      </Box>
    );
    switch (mode.kind) {
      case 'help':
        return null;
      case 'create-name':
        return box(
          <TextPrompt
            keys={promptKeys}
            label={`New workspace in ${mode.parent.path}:`}
            hint="Enter continues to the type, Esc cancels"
            onSubmit={(name) => startCreateType(mode.parent, name.trim())}
            onCancel={() => setMode({ kind: 'browse' })}
          />,
        );
      case 'create-type':
        return box(
          <ChoicePrompt
            keys={promptKeys}
            title={`Type of ${mode.parent.path}:${mode.name}`}
            choices={mode.choices}
            height={paneHeight}
            onPick={(type) => create(mode.parent, mode.name, type)}
            onCancel={() => setMode({ kind: 'browse' })}
          />,
        );
      case 'delete':
        return box(
          <TextPrompt
            keys={promptKeys}
            label={`Type "${mode.node.name}" to delete ${mode.node.path}:`}
            hint="Its children and everything in it go too. Esc cancels."
            onSubmit={(typed) => {
              if (typed.trim() !== mode.node.name) {
                setMode({ kind: 'browse' });
                return fail(new Error(`"${typed}" does not match "${mode.node.name}": nothing deleted`));
              }
              act(`Deleting ${mode.node.path}…`, async () => {
                await source.deleteWorkspace(mode.node.path);
                return `Workspace ${mode.node.path} is being deleted.`;
              });
            }}
            onCancel={() => setMode({ kind: 'browse' })}
          />,
        );
      case 'bind':
        return box(
          <ChoicePrompt
            keys={promptKeys}
            title={`Bind into ${mode.node.path}`}
            note={mode.note}
            filterable
            choices={mode.choices}
            height={paneHeight}
            onPick={(choice) =>
              act(`Binding ${choice.path}:${choice.name}…`, async () => {
                await source.bind(mode.node.path, choice);
                return `apibinding ${choice.name} created in ${mode.node.path}; its phase shows on the right.`;
              })
            }
            onCancel={() => setMode({ kind: 'browse' })}
          />,
        );
      default:
        if (!detailsDrawn) return <DetailsFrame width={rightWidth} height={paneHeight} />;
        return (
          <DetailsPane
            node={current}
            workspace={currentObject}
            details={selectedDetails.details}
            bindings={selectedDetails.bindings}
            bindingsError={selectedDetails.bindingsError}
            width={rightWidth}
            height={paneHeight}
          />
        );
    }
  })();

  // Exactly the terminal's size: Ink then draws every frame whole (a full-screen frame is written over a cleared
  // screen), so nothing of an earlier frame, or of a frame drawn for the size before a resize, stays behind.
  return (
    <Box flexDirection="column" width={columns} height={screenRows} overflow="hidden">
      <Box flexDirection="column" flexShrink={0}>
        <Text wrap="truncate">
          <Text bold color={accent}>
            kcpt
          </Text>
          <Text dimColor>{` ${serverUrl} · `}</Text>
          {top.path}
        </Text>
        <Box flexShrink={0}>
          {mode.kind === 'help' ? (
            <HelpPane first={mode.first} width={columns} height={paneHeight} />
          ) : (
            <>
              <TreePane rows={rows} texts={texts} start={window.start} end={window.end} cursor={at} width={leftWidth} height={paneHeight} filter={tree.filter} />
              {right}
            </>
          )}
        </Box>
        <UrlLine lines={urlLines} />
        {mode.kind === 'filter' ? (
          <TextPrompt
            keys={promptKeys}
            label="/"
            initial={tree.filter}
            onChange={(f) => update((s) => setFilter(s, f))}
            onSubmit={() => setMode({ kind: 'browse' })}
            onCancel={() => {
              update((s) => setFilter(s, mode.before));
              setMode({ kind: 'browse' });
            }}
          />
        ) : mode.kind === 'busy' ? (
          <Text color="yellow" wrap="truncate">
            {mode.what}
          </Text>
        ) : (
          <StatusLine status={status ?? levelError(rows[at])} offline={live.offline} />
        )}
        <KeysLine lines={keyLines} />
      </Box>
    </Box>
  );
}

/** A 409 Conflict on create says "already exists"; say what to do about it. */
function conflictHint(err: unknown): unknown {
  if (err instanceof ApiError && err.status === 409) return new ApiError(409, { ...err.body, message: `${err.message} (pick another name, or press r to refresh)` }, '');
  return err;
}

/** The selected row's children could not be listed (403, 404): say so where errors go. */
function levelError(row: Row | undefined): Status | undefined {
  if (!row?.error) return undefined;
  return { tone: 'error', text: `cannot list the workspaces in ${row.node.path}: ${row.error}` };
}
