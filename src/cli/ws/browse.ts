/**
 * `kcpt tui`, `kcpt ws tree -i`, `kcpt ws -i`: the interactive workspace browser where a person sits at a terminal;
 * elsewhere (a pipe, CI) the static `ws tree` and a one-line note, without loading Ink. Enter in the browser switches
 * the kubeconfig exactly as `kcpt ws use :<path>` does, with its message.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { requireWithCodeCache } from '../code-cache.js';
import { importExternal } from '../../client/external-import.js';
import { canPrompt, type Io } from '../common/io.js';
import { kcptPackageRoot } from '../server/package-root.js';
import type { Session } from '../common/session.js';
import { parseClusterUrl } from '../../client/workspace-path.js';
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
  const { browseWorkspaces } = await loadTui();
  const chosen = await browseWorkspaces({ connection: session.config.connection, startPath });
  if (chosen) await useWorkspace(session, io, { name: `:${chosen}`, short: false });
}

type Tui = typeof import('../../tui/index.js');

/**
 * The TUI's own bundle (scripts/bundle-tui.mjs: Ink, React and yoga as one CommonJS file) compiled with the V8 code
 * cache an earlier opening left (code-cache.ts: the bundle's bytecode, and that of every function it ran), or its
 * sources when running under tsx, by absolute path through the lent import(): this code may run from the code-cached
 * CLI bundle, where a plain import() has no loader.
 */
async function loadTui(): Promise<Tui> {
  const root = kcptPackageRoot();
  const bundled = join(root, 'dist', 'tui-bundle', 'index.cjs');
  // One cache whichever command opened the browser: they all run the same code.
  if (existsSync(bundled)) return requireWithCodeCache(bundled, ['tui']) as Tui;
  return importExternal<Tui>(pathToFileURL(join(root, 'src', 'tui', 'index.ts')).href);
}
