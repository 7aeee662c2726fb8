/**
 * `kcpt tui` in a real terminal: tmux runs it in a 160×40 pane against `kcpt start`, keys go in with send-keys and
 * the screen comes back with capture-pane. Open, expand, select, Enter; then `kcpt ws .` must report the chosen
 * workspace (the kubeconfig was switched as `kcpt ws use` does). The last screen is printed in the test output;
 * with KCPT_TUI_CAPTURE=<file> it is also saved there (docs/tui-capture.txt was made that way). Needs tmux on PATH
 * (present on the CI image; the suite is skipped, saying so, where it is not).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, startServer, type TestServer } from '../helpers/server.js';

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
const screen = () => tmux('capture-pane', '-p', '-t', 'tui');
const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

async function waitForScreen(what: string | RegExp, timeoutMs = 20_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = screen();
    if (typeof what === 'string' ? text.includes(what) : what.test(text)) return text;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${String(what)}; the pane:\n${text}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(!hasTmux)('kcpt tui in a real terminal (tmux)', () => {
  let server: TestServer;
  const kcpt = (args: string[]) => execa('node', ['bin/run.js', ...args], { cwd: repoRoot, env: server.env, stdin: 'ignore' });

  beforeAll(async () => {
    server = await startServer();
    await kcpt(['ws', 'create', 'org-a']);
    await kcpt(['ws', 'create', 'org-b']);
    await kcpt(['ws', 'create', 'team', '-w', ':root:org-a']);
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
    const env = Object.entries({ ...server.env, TERM: 'xterm-256color' })
      .map(([k, v]) => `${k}=${shellQuote(v)}`)
      .join(' ');
    const command = `cd ${shellQuote(repoRoot)} && env -u CI ${env} node bin/run.js tui; echo "tui exited $?"; sleep 60`;
    tmux('new-session', '-d', '-s', 'tui', '-x', '160', '-y', '40', command);

    const opened = await waitForScreen(/▸ org-b/);
    expect(opened).toMatch(/▾ root\s+root\s+Ready/);
    expect(opened).toMatch(/▸ org-a\s+organization\s+Ready/);
    expect(opened).toContain('? help');

    tmux('send-keys', '-t', 'tui', 'j');
    await waitForScreen('Path         root:org-a');
    tmux('send-keys', '-t', 'tui', 'Right');
    await waitForScreen(/▸ team\s+universal\s+Ready/);
    tmux('send-keys', '-t', 'tui', 'Down');
    await waitForScreen('Path         root:org-a:team');
    // The details of the new selection load once the cursor rests ('…' until then).
    await waitForScreen(/Objects\s+namespaces \d+/);
    const capture = await waitForScreen(/APIBindings \(\d+\)/);
    console.log(`--- kcpt tui, 160x40 tmux pane ---\n${capture}\n---`);
    if (process.env.KCPT_TUI_CAPTURE) writeFileSync(process.env.KCPT_TUI_CAPTURE, capture);
    expect(capture).toMatch(/APIBindings \(0\)/);

    tmux('send-keys', '-t', 'tui', 'Enter');
    const after = await waitForScreen('tui exited');
    expect(after).toContain("Current workspace is 'root:org-a:team' (type root:universal).");
    expect(after).toContain('tui exited 0');

    const current = await kcpt(['ws', '.']);
    expect(current.stdout).toBe("Current workspace is 'root:org-a:team' (type root:universal).");
  });

  it('without a terminal prints the static tree and a note, and exits 0', async () => {
    const r = await kcpt(['tui', '-w', ':root']);
    expect(r.stdout).toBe(['.', '└── root', '    ├── org-a', '    │   └── team', '    └── org-b', ''].join('\n'));
    expect(r.stderr).toContain('Note: not an interactive terminal');
    expect(r.exitCode).toBe(0);
  });
});
