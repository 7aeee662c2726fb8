/**
 * The TUI's façade: commands reach it only through `await import()` (src/cli/ws/browse.ts), so no other command pays
 * for loading Ink and React. browseWorkspaces() lists the top level while Ink loads, draws the browser full-screen
 * (the terminal's alternate screen, so the shell comes back as it was) and resolves with the workspace path chosen
 * with Enter, or undefined on quit.
 */
import type { Connection } from '../client/connection.js';
import { KubeClient } from '../client/http-client.js';
import { WorkspaceSource } from './data/workspace-source.js';

export interface BrowseOptions {
  /**
   * Where the server is and how to authenticate. The browser opens its own client: bundled (scripts/bundle-tui.mjs),
   * the TUI carries its own copy of src/cli's modules, and only errors thrown by that copy's client are instances of
   * the classes it tells apart (a lost connection, retried, from a 403 or 404, shown).
   */
  connection: Connection;
  /** The workspace the tree starts at. */
  startPath: string;
}

export async function browseWorkspaces(opts: BrowseOptions): Promise<string | undefined> {
  const client = new KubeClient(opts.connection);
  try {
    const source = new WorkspaceSource(client);
    const [top, firstLevel, { runBrowser }] = await Promise.all([
      source.topNode(opts.startPath),
      // A failure here is the browser's to show (its level loop lists again and reports it).
      source.listLevel(opts.startPath).catch(() => undefined),
      // Ink's modules take tens of milliseconds to initialise, all synchronous, and the requests above reach their
      // sockets only after a few promise hops (the transport loads on first use): they go first, and the server
      // answers them while Ink loads.
      nextTurn().then(() => import('./run-browser.js')),
    ]);
    return await runBrowser({ source, top, firstLevel, serverUrl: client.baseUrl });
  } finally {
    client.close();
  }
}

/** Resolves after the promise jobs queued so far (and the ones they queue) have run. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
