/**
 * `kcpt ws [ARG]` / `kcpt ws use ARG`: kcp's `kubectl ws` semantics, with workspace arguments read by the one grammar
 * every command shares (src/cli/common/workspace-target.ts: `~`, `user:NAME`, `root…`, `..`). No argument goes home.
 * `-` swaps to the previous workspace, `:` goes to the root of the current tree, `.` prints the current workspace;
 * anything else is a workspace, checked (discovery + the Workspace in its parent, in parallel) before the kubeconfig
 * is rewritten. Every form prints the workspace with its type, as kcp prints it after a switch.
 */
import { ApiError } from '../../client/errors.js';
import { CliError } from '../common/errors.js';
import type { Io } from '../common/io.js';
import type { KubeClient } from '../../client/http-client.js';
import type { OutputFormat } from '../common/output.js';
import type { Session } from '../common/session.js';
import { baseName, clusterUrl, parentPath, parseClusterUrl, rootOf } from '../../client/workspace-path.js';
import { resolveWorkspace } from '../common/workspace-target.js';
import { checkPermissionClaims } from './claims.js';
import { switchToUrl, swapToPrevious } from './context-rewrite.js';
import { printCurrentWorkspace } from './current-workspace.js';
import { getWorkspace, typeString, workspaceType } from '../../client/workspace-api.js';

export interface UseOptions {
  name: string;
  short: boolean;
  output?: OutputFormat;
  /** The home directory whose shell expansion of `~` maps back to `~`. */
  home?: string;
}

export async function useWorkspace(session: Session, io: Io, opts: UseOptions): Promise<void> {
  const { config, client } = session;
  const name = opts.name === '' ? '~' : opts.name;
  const kubeconfig = config.kubeconfig;
  if (!kubeconfig.contexts.has(config.contextName)) throw new CliError(`current "${config.contextName}" context not found`);
  const print = async (url: string, type?: string) => {
    // --short feeds shell prompts: it never waits for the server.
    const shown = type ?? (opts.short ? undefined : await typeOfUrl(client, url));
    await printCurrentWorkspace(io, url, { short: opts.short, output: opts.output, type: shown });
  };

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
  if (!current) throw new CliError(`current URL "${config.connection.server}" does not point to a workspace`);
  if (name === ':') {
    await commit(clusterUrl(current.base, rootOf(current.path)));
    return;
  }
  const path = await resolveWorkspace(client, config.connection.server, name, { tooHigh: 'cannot go up from root', home: opts.home });
  const url = clusterUrl(current.base, path);
  const claims = checkPermissionClaims(client, url);
  const [denied, parent] = await Promise.all([discoveryDenied(client, path), parentWorkspace(client, path)]);
  if (denied && parent.notFound) throw new CliError(`workspace "${path}" not found`);
  if (denied) throw new CliError(`access to workspace "${path}" denied`);
  await commit(url, parent.type, claims);

  async function commit(url: string, type?: string, claims = checkPermissionClaims(client, url)): Promise<void> {
    switchToUrl(kubeconfig, config.contextName, url);
    kubeconfig.save();
    await reportClaims(io, claims);
    await print(url, type);
  }
}

/** The type of the workspace a URL points at, or undefined where it cannot be told (not a workspace URL, no access). */
async function typeOfUrl(client: KubeClient, url: string): Promise<string | undefined> {
  const path = parseClusterUrl(url)?.path;
  return path === undefined ? undefined : workspaceType(client, path).catch(() => undefined);
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
