/**
 * The TUI's façade: commands reach it only through `await import()` (src/cli/ws/browse.ts), so no other command pays
 * for loading Ink and React. browseWorkspaces() lists the top level while Ink loads, draws the browser full-screen
 * (the terminal's alternate screen, so the shell comes back as it was) and resolves with the workspace path chosen
 * with Enter, or undefined on quit.
 */
import type { KubeClient } from '../cli/common/http-client.js';
import { WorkspaceSource } from './data/workspace-source.js';

export interface BrowseOptions {
  client: KubeClient;
  /** The server URL without `/clusters/…` (shown in the header, and the base of workspace URLs). */
  serverUrl: string;
  /** The workspace the tree starts at. */
  startPath: string;
}

export async function browseWorkspaces(opts: BrowseOptions): Promise<string | undefined> {
  const source = new WorkspaceSource(opts.client);
  const [{ runBrowser }, top, firstLevel] = await Promise.all([
    import('./run-browser.js'),
    source.topNode(opts.startPath),
    // A failure here is the browser's to show (its level loop lists again and reports it).
    source.listLevel(opts.startPath).catch(() => undefined),
  ]);
  return runBrowser({ source, top, firstLevel, serverUrl: opts.serverUrl });
}
