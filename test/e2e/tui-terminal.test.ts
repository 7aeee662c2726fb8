/**
 * `kcpt tui` in a real terminal: tmux runs it against `kcpt start`, keys go in with send-keys and the screen comes back
 * with capture-pane. One server for the file; each test opens its own tmux window in a fresh workspace. Open, expand,
 * select, Enter (then `kcpt ws .` must report the chosen workspace: the kubeconfig was switched as `kcpt ws use` does);
 * a server restart under the open browser (it reconnects and relists without a key press); a resize (a clean redraw at
 * the new size, without a key press). The first test's last screen is printed in the test output; with
 * KCPT_TUI_CAPTURE=<file> it is also saved there. Needs tmux on PATH (present
 * on the CI image; the suite is skipped, saying so, where it is not).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, startServer, type TestServer } from '../helpers/server.js';
import { runKcpt } from '../helpers/cli.js';

const hasTmux = (() => {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (!hasTmux) console.log('tui-terminal: tmux is not installed, skipping the real-terminal e2e');

const socket = `kcpt-tui-${randomBytes(4).toString('hex')}`;
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** A tmux session named `name` running `kcpt tui <args>` in a width×height pane. */
function openTui(server: TestServer, name: string, args: string[], width: number, height: number) {
  const env = Object.entries({ ...server.env, TERM: 'xterm-256color' })
    .map(([k, v]) => `${k}=${shellQuote(v)}`)
    .join(' ');
  const command = `cd ${shellQuote(repoRoot)} && env -u CI ${env} node bin/run.js tui ${args.map(shellQuote).join(' ')}; echo "tui exited $?"; sleep 60`;
  tmux('new-session', '-d', '-s', name, '-x', String(width), '-y', String(height), command);
  const screen = () => tmux('capture-pane', '-p', '-t', name);
  const waitForScreen = async (what: string | RegExp | ((text: string) => boolean), timeoutMs = 20_000): Promise<string> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const text = screen();
      if (typeof what === 'string' ? text.includes(what) : what instanceof RegExp ? what.test(text) : what(text)) return text;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${String(what)}; the pane:\n${text}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  return { screen, waitForScreen, keys: (...keys: string[]) => tmux('send-keys', '-t', name, ...keys) };
}

/**
 * Whether the pane shows the browser drawn whole at `width`×`height` and nothing else: the header first, the two
 * panes' borders closed at the right edge, every line within the width, the keys at the bottom.
 */
function drawnCleanly(text: string, width: number, height: number): boolean {
  const lines = text.replace(/\n$/, '').split('\n');
  if (lines.length !== height || !lines[0].startsWith('kcpt ')) return false;
  if (lines.some((l) => [...l].length > width)) return false;
  const top = lines[1].trimEnd();
  if (!top.startsWith('╭') || !top.endsWith('╮') || [...top].length !== width) return false;
  const bottom = lines.findIndex((l, i) => i > 1 && l.startsWith('╰'));
  if (bottom < 0 || [...lines[bottom].trimEnd()].length !== width) return false;
  for (const l of lines.slice(2, bottom)) if (!l.startsWith('│') || !l.trimEnd().endsWith('│') || [...l.trimEnd()].length !== width) return false;
  return /q quit/.test(lines.slice(bottom + 1).join('\n'));
}

describe.skipIf(!hasTmux)('kcpt tui in a real terminal (tmux)', () => {
  let server: TestServer;
  const kcpt = async (args: string[]) => {
    const r = await runKcpt(args, server.env);
    expect(r.exitCode, `kcpt ${args.join(' ')}\n${r.stderr}`).toBe(0);
    return r;
  };
  /** A fresh organization under root for one test. */
  const freshWorkspace = async (prefix: string) => {
    const name = `${prefix}-${randomBytes(3).toString('hex')}`;
    await kcpt(['ws', 'create', name, '-w', ':root']);
    return name;
  };

  beforeAll(async () => {
    server = await startServer();
  }, 90_000);

  afterAll(async () => {
    try {
      tmux('kill-server');
    } catch {
      // Already gone.
    }
    await server?.stop();
  });

  it('opens, expands, selects with Enter, and kcpt ws . then reports the chosen workspace', async () => {
    const top = await freshWorkspace('browse');
    await kcpt(['ws', 'create', 'org-a', '-w', `:root:${top}`]);
    await kcpt(['ws', 'create', 'org-b', '-w', `:root:${top}`]);
    await kcpt(['ws', 'create', 'team', '-w', `:root:${top}:org-a`]);
    const tui = openTui(server, 'browse', ['-w', `:root:${top}`], 160, 40);

    // The whole frame, keys line included: a capture can land while Ink is still writing the frame's lines.
    const opened = await tui.waitForScreen((text) => /▸ org-b/.test(text) && text.includes('? help'));
    expect(opened).toMatch(new RegExp(`▾ ${top}\\s+organization\\s+Ready`));
    expect(opened).toMatch(/▸ org-a\s+universal\s+Ready/);
    expect(opened).toContain('? help');

    tui.keys('j');
    await tui.waitForScreen(`Path         root:${top}:org-a`);
    tui.keys('Right');
    await tui.waitForScreen(/▸ team\s+universal\s+Ready/);
    tui.keys('Down');
    await tui.waitForScreen(`Path         root:${top}:org-a:team`);
    // The details of the new selection load once the cursor rests ('…' until then).
    await tui.waitForScreen(/Objects\s+namespaces \d+/);
    const capture = await tui.waitForScreen(/APIBindings \(\d+\)/);
    console.log(`--- kcpt tui, 160x40 tmux pane ---\n${capture}\n---`);
    if (process.env.KCPT_TUI_CAPTURE) writeFileSync(process.env.KCPT_TUI_CAPTURE, capture);
    expect(capture).toMatch(/APIBindings \(0\)/);
    // The URL, the field one copies, stands whole on a line of its own.
    expect(capture).toMatch(new RegExp(`^URL +${server.url.replace(/[.]/g, '\\.')}/clusters/root:${top}:org-a:team *$`, 'm'));

    tui.keys('Enter');
    const after = await tui.waitForScreen('tui exited');
    expect(after).toContain(`Current workspace is 'root:${top}:org-a:team' (type root:universal).`);
    expect(after).toContain('tui exited 0');

    const current = await kcpt(['ws', '.']);
    expect(current.stdout).toBe(`Current workspace is 'root:${top}:org-a:team' (type root:universal).`);
  });

  it('reconnects after the server restarts and shows a workspace created since, without a key press', async () => {
    const top = await freshWorkspace('restart');
    await kcpt(['ws', 'create', 'before', '-w', `:root:${top}`]);
    const tui = openTui(server, 'restart', ['-w', `:root:${top}`], 120, 30);
    await tui.waitForScreen(/[▸·] before\s+universal\s+Ready/);

    // kcpt stop, then kcpt start on the same root directory and port.
    await server.restart();
    await kcpt(['ws', 'create', 'after', '-w', `:root:${top}`]);
    // The new workspace may be drawn (from the relist) a moment before the status line clears (the watch resumed).
    const back = await tui.waitForScreen((t) => /[▸·] after\s+universal\s+Ready/.test(t) && !/unreachable|reconnecting|error/i.test(t), 30_000);
    expect(back).toMatch(/[▸·] before\s+universal\s+Ready/);
    expect(back).not.toMatch(/unreachable|reconnecting|error/i);
  });

  it('redraws cleanly at the new size when the terminal is resized, without a key press', async () => {
    const top = await freshWorkspace('resize');
    await kcpt(['ws', 'create', 'development-environment', '-w', `:root:${top}`]);
    const tui = openTui(server, 'resize', ['-w', `:root:${top}`], 200, 40);
    await tui.waitForScreen(/development-environment\s+universal\s+Ready/);
    await tui.waitForScreen((t) => drawnCleanly(t, 200, 40));

    for (const [width, height] of [
      [80, 24],
      [60, 16],
      [120, 30],
    ] as const) {
      tmux('resize-window', '-t', 'resize', '-x', String(width), '-y', String(height));
      // The name whole and the phase beside it; the type too where there is room for it (80 columns and up).
      const row = width >= 80 ? /development-environment\s+universal\s+Ready/ : /development-environment\s+Ready/;
      const redrawn = await tui.waitForScreen((t) => drawnCleanly(t, width, height) && row.test(t));
      expect(redrawn).toContain(`${top}`);
    }
  });

  it('without a terminal prints the static tree and a note, and exits 0', async () => {
    const top = await freshWorkspace('static');
    await kcpt(['ws', 'create', 'org-a', '-w', `:root:${top}`]);
    await kcpt(['ws', 'create', 'team', '-w', `:root:${top}:org-a`]);
    await kcpt(['ws', 'create', 'org-b', '-w', `:root:${top}`]);
    const r = await kcpt(['tui', '-w', `:root:${top}`]);
    expect(r.stdout).toBe(['.', `└── ${top}`, '    ├── org-a', '    │   └── team', '    └── org-b', ''].join('\n'));
    expect(r.stderr).toContain('Note: not an interactive terminal');
    expect(r.exitCode).toBe(0);
  });
});
