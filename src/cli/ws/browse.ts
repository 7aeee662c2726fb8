/**
 * `kcpt tui`, `kcpt ws tree -i`, `kcpt ws -i`: the interactive workspace browser where a person sits at a terminal;
 * elsewhere (a pipe, CI) the static `ws tree` and a one-line note, without loading Ink. Enter in the browser switches
 * the kubeconfig exactly as `kcpt ws use :<path>` does, with its message.
 */
import { canPrompt, type Io } from '../common/io.js';
import type { Session } from '../common/session.js';
import { parseClusterUrl } from '../common/workspace-path.js';
import { showTree } from './tree.js';
import { useWorkspace } from './use.js';

export const notInteractiveNote =
  "Note: not an interactive terminal (stdin or stdout is not a TTY, or CI is set): printed the workspace tree instead of opening the browser.\n";

export async function browseOrPrintTree(session: Session, io: Io): Promise<void> {
  if (!canPrompt(io)) {
    await showTree(session, io, { full: false, wide: false });
    io.err(notInteractiveNote);
    return;
  }
  const startPath = parseClusterUrl(session.config.connection.server)?.path ?? 'root';
  // React's development build checks every render (several times slower); a user's terminal gets the production one.
  process.env.NODE_ENV ??= 'production';
  const { browseWorkspaces } = await import('../../tui/index.js');
  const chosen = await browseWorkspaces({ client: session.client, serverUrl: session.client.baseUrl, startPath });
  if (chosen) await useWorkspace(session, io, { name: `:${chosen}`, short: false });
}
