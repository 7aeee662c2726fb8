/**
 * The workspace `kcpt kubeconfig` writes a kubeconfig for: absolute (`root:org:team`, `:root:org`) or relative to
 * the workspace the server URL points at (`team`, `..`); and, as with `kcpt ws`, `~` or `~:sub` (also the `$HOME`
 * a shell makes of an unquoted `~`) for the home workspace of the user whose credentials are used, and kcp's alias
 * `user:<name>[:sub]` for that user's home. Aliases are resolved with the server to the workspace's canonical path,
 * which is what the kubeconfig then names.
 */
import { homedir } from 'node:os';
import type { Connection } from '../common/connection.js';
import { ApiError, CliError, UsageError } from '../common/errors.js';
import { KubeClient } from '../common/http-client.js';
import { isValidPath, joinPath, parseClusterUrl, resolveDots, unexpandHome } from '../common/workspace-path.js';
import { canonicalPath, homePath } from '../ws/workspace-api.js';

const tooHigh = 'cannot go above the root workspace';

/** `root:a` / `:root:a` absolute; anything else relative to the workspace the server URL points at. */
export function targetWorkspace(server: string, arg: string | undefined): string {
  const current = parseClusterUrl(server)?.path;
  let name = arg ?? '.';
  if (name === 'root' || name.startsWith('root:')) name = `:${name}`;
  let joined: string;
  if (name.startsWith(':')) joined = name.slice(1);
  else if (current !== undefined) joined = joinPath(current, name);
  else if (arg === undefined) throw new UsageError(`the server URL ${server} points at no workspace: name one, e.g. kcpt kubeconfig root:org`);
  else throw new UsageError(`"${arg}" is relative, but the server URL ${server} points at no workspace: give an absolute path like root:org`);
  return checkedPath(joined, arg);
}

/** A home reached through an alias: `~` (the caller's) or `user:<name>`, and the segments below it. */
export interface HomeAlias {
  user?: string;
  rest: string;
}

/** `~`, `~:a`, `user:bob`, `:user:bob:a` → the alias and what follows it; undefined for any other argument. */
export function homeAlias(name: string): HomeAlias | undefined {
  if (name === '~') return { rest: '' };
  if (name.startsWith('~:')) return { rest: name.slice(2) };
  const segments = (name.startsWith(':') ? name.slice(1) : name).split(':');
  if (segments[0] !== 'user' || !segments[1]) return undefined;
  return { user: segments[1], rest: segments.slice(2).join(':') };
}

/** targetWorkspace, after resolving a home alias with the server (as the user of `connection`). */
export async function resolveTargetWorkspace(connection: Connection, arg: string | undefined, home = homedir()): Promise<string> {
  if (arg === undefined) return targetWorkspace(connection.server, undefined);
  const name = unexpandHome(arg, home);
  const alias = homeAlias(name);
  if (!alias) return targetWorkspace(connection.server, name);
  const client = new KubeClient(connection);
  try {
    const base = alias.user === undefined ? await homePath(client) : await userHome(client, alias.user);
    return checkedPath(joinPath(base, alias.rest), arg);
  } finally {
    client.close();
  }
}

async function userHome(client: KubeClient, user: string): Promise<string> {
  try {
    const path = await canonicalPath(client, `user:${user}`);
    if (path) return path;
  } catch (err) {
    if (!(err instanceof ApiError && (err.forbidden || err.notFound))) throw err;
  }
  throw new CliError(`no home workspace of user "${user}" that these credentials may use (user:${user}); a home exists once its user has entered it with "kcpt ws ~"`);
}

function checkedPath(joined: string, arg: string | undefined): string {
  const workspace = resolveDots(joined, tooHigh);
  if (workspace === '') throw new CliError(tooHigh);
  if (!isValidPath(workspace)) throw new UsageError(`invalid workspace path: ${arg}`);
  return workspace;
}
