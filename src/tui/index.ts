/**
 * The TUI's façade: commands reach it only through `await import()` (src/cli/ws/browse.ts), so no other command pays
 * for loading Ink and React. browseWorkspaces() draws the browser full-screen (the terminal's alternate screen, so
 * the shell comes back as it was) and resolves with the workspace path chosen with Enter, or undefined on quit.
 */
import { render } from 'ink';
import { createElement } from 'react';
import type { KubeClient } from '../cli/common/http-client.js';
import { WorkspaceBrowser } from './components/WorkspaceBrowser.js';
import { WorkspaceSource } from './data/workspace-source.js';

export interface BrowseOptions {
  client: KubeClient;
  /** The server URL without `/clusters/…` (shown in the header, and the base of workspace URLs). */
  serverUrl: string;
  /** The workspace the tree starts at. */
  startPath: string;
}

const enterAlternateScreen = '\u001B[?1049h\u001B[H';
const leaveAlternateScreen = '\u001B[?1049l';

export async function browseWorkspaces(opts: BrowseOptions): Promise<string | undefined> {
  const source = new WorkspaceSource(opts.client);
  const top = await source.topNode(opts.startPath);
  let chosen: string | undefined;
  process.stdout.write(enterAlternateScreen);
  try {
    const app = render(
      createElement(WorkspaceBrowser, {
        source,
        top,
        serverUrl: opts.serverUrl,
        onSelect: (path: string) => {
          chosen = path;
          app.unmount();
        },
        onQuit: () => app.unmount(),
      }),
      { exitOnCtrlC: false },
    );
    await app.waitUntilExit();
  } finally {
    process.stdout.write(leaveAlternateScreen);
  }
  return chosen;
}
