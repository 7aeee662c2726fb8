/**
 * `kcpt ws [ARG]` / `kcpt ws use ARG`: kcp's `kubectl ws` semantics. The argument is normalised first ($HOME → `~`,
 * `/` → `:`, `root…` without the leading colon noted and made absolute, nothing → `~`), then:
 * `-` swaps to the previous workspace, `:` goes to the root of the current tree, `.` prints the current workspace,
 * `~[:sub]` goes to the home workspace, anything else is a path (absolute with a leading `:`, else relative, with
 * `.`/`..` segments). The target is checked (discovery + the Workspace in its parent, in parallel) before the
 * kubeconfig is rewritten.
 */
import { homedir } from 'node:os';
import { ApiError, CliError } from '../common/errors.js';
import type { Io } from '../common/io.js';
import type { KubeClient } from '../common/http-client.js';
import type { OutputFormat } from '../common/output.js';
import type { Session } from '../common/session.js';
import { baseName, clusterUrl, isValidPath, joinPath, parentPath, parseClusterUrl, resolveDots, rootOf, unexpandHome } from '../common/workspace-path.js';
import { checkPermissionClaims } from './claims.js';
import { switchToUrl, swapToPrevious } from './context-rewrite.js';
import { printCurrentWorkspace } from './current-workspace.js';
import { getWorkspace, homePath, typeString } from './workspace-api.js';

export interface UseOptions {
  name: string;
  short: boolean;
  output?: OutputFormat;
  /** The home directory whose shell expansion of `~` maps back to `~`. */
  home?: string;
}

const rootNote = "Note: Using 'root:' to define an absolute path is no longer supported. Instead, use ':root' to specify an absolute path.\n";
const homeNote = "Note: 'kubectl ws' now matches 'cd' semantics: go to home workspace. 'kubectl ws -' to go back. 'kubectl ws .' to print current workspace.\n";

/** Step 1 of kcp's `ws use`: the argument as typed → the argument the cases below understand. */
export function normalizeArgument(arg: string, opts: { home: string; short: boolean }): { name: string; notes: string[] } {
  let name = unexpandHome(arg, opts.home);
  const notes: string[] = [];
  if ((name === 'root' || name.startsWith('root:')) && !opts.short) {
    name = `:${name}`;
    notes.push(rootNote);
  }
  if (name === '') {
    if (!opts.short) notes.push(homeNote);
    name = '~';
  }
  return { name, notes };
}

export async function useWorkspace(session: Session, io: Io, opts: UseOptions): Promise<void> {
  const { config, client } = session;
  const { name: normalized, notes } = normalizeArgument(opts.name, { home: opts.home ?? homedir(), short: opts.short });
  const rootNotes = notes.filter((n) => n === rootNote);
  for (const note of rootNotes) io.err(note);
  const homeNotes = notes.filter((n) => n === homeNote);
  let name = normalized;

  const kubeconfig = config.kubeconfig;
  if (!kubeconfig.contexts.has(config.contextName)) throw new CliError(`current "${config.contextName}" context not found`);
  const print = (url: string, type?: string) => printCurrentWorkspace(io, url, { short: opts.short, output: opts.output, type });

  if (name === '-') {
    const server = swapToPrevious(kubeconfig, config.contextName);
    const claims = checkPermissionClaims(client, server);
    kubeconfig.save();
    await reportClaims(io, claims);
    await print(server);
    return;
  }
  if (name === '.') {
    await print(config.connection.server);
    return;
  }

  const current = parseClusterUrl(config.connection.server);
  if (name === ':') {
    if (!current) throw new CliError(`current URL "${config.connection.server}" does not point to a workspace`);
    const url = clusterUrl(current.base, rootOf(current.path));
    await commit(url);
    return;
  }
  if (name === '~' || name.startsWith('~:')) {
    name = `:${await homePath(client)}${name.slice(1)}`;
  }
  if (!current) throw new CliError(`current URL "${config.connection.server}" does not point to a workspace`);
  const absolute = name.startsWith(':') ? name.slice(1) : joinPath(current.path, name);
  const path = resolveDots(absolute, 'cannot go up from root');
  if (!isValidPath(path)) throw new CliError(`invalid workspace path: ${opts.name}`);

  const url = clusterUrl(current.base, path);
  const claims = checkPermissionClaims(client, url);
  const [denied, parent] = await Promise.all([discoveryDenied(client, path), parentWorkspace(client, path)]);
  if (denied && parent.notFound) throw new CliError(`workspace "${absolute}" not found`);
  if (denied) throw new CliError(`access to workspace "${absolute}" denied`);
  await commit(url, parent.type, claims);

  async function commit(url: string, type?: string, claims = checkPermissionClaims(client, url)): Promise<void> {
    switchToUrl(kubeconfig, config.contextName, url);
    kubeconfig.save();
    await reportClaims(io, claims);
    await print(url, type);
    for (const note of homeNotes) io.err(note);
  }
}

/** kcp's existence check: discovery forbidden (or empty) means the user cannot enter. */
async function discoveryDenied(client: KubeClient, path: string): Promise<boolean> {
  const fetchGroups = async (suffix: string, key: 'versions' | 'groups'): Promise<number> => {
    try {
      const doc = await client.get<Record<string, unknown[] | undefined>>(`/clusters/${path}${suffix}`);
      return doc[key]?.length ?? 0;
    } catch (err) {
      // An unknown path answers 404 on a single shard (403 behind kcp's front-proxy): both mean "cannot enter".
      if (err instanceof ApiError && (err.forbidden || err.notFound)) return -1;
      throw err;
    }
  };
  const [legacy, groups] = await Promise.all([fetchGroups('/api', 'versions'), fetchGroups('/apis', 'groups')]);
  if (legacy < 0 || groups < 0) return true;
  return legacy + groups === 0;
}

/** The target's Workspace in its parent: its type for the message, or that it does not exist (403 is no verdict). */
async function parentWorkspace(client: KubeClient, path: string): Promise<{ type?: string; notFound: boolean }> {
  if (path === 'root') return { type: 'root', notFound: false };
  const parent = parentPath(path);
  if (parent === undefined) return { notFound: false };
  try {
    const ws = await getWorkspace(client, parent, baseName(path));
    return { type: typeString(ws.spec?.type), notFound: false };
  } catch (err) {
    return { notFound: err instanceof ApiError && err.notFound };
  }
}

async function reportClaims(io: Io, claims: Promise<string[]>): Promise<void> {
  for (const line of await claims) io.err(line);
}
