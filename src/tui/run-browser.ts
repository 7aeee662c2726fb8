/** Draws the browser with Ink on the process's terminal until Enter (the chosen path) or quit (undefined). */
import { render } from 'ink';
import { createElement } from 'react';
import type { Workspace } from '../client/workspace-api.js';
import { WorkspaceBrowser } from './components/WorkspaceBrowser.js';
import type { Listed, WorkspaceSource } from './data/workspace-source.js';
import { layoutEngineLoaded } from './layout-engine.js';
import type { WorkspaceNode } from './model/tree.js';

const enterAlternateScreen = '\u001B[?1049h\u001B[H';
const leaveAlternateScreen = '\u001B[?1049l';

export async function runBrowser(opts: {
  source: WorkspaceSource;
  top: WorkspaceNode;
  firstLevel?: Listed<Workspace>;
  serverUrl: string;
}): Promise<string | undefined> {
  let chosen: string | undefined;
  await layoutEngineLoaded();
  process.stdout.write(enterAlternateScreen);
  try {
    const app = render(
      createElement(WorkspaceBrowser, {
        ...opts,
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
