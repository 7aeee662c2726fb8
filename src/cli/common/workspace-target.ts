/**
 * The one grammar of a workspace argument, for every command that takes one (`kcpt ws`, `-w/--workspace`,
 * `kcpt kubeconfig`, `testenv --parent`, `snapshot --workspace/--as`):
 * - `:root:a` or `root:a` (a path starting at root): absolute; any other path is relative to the current workspace;
 * - `.` and `..` segments anywhere, `/` as well as `:` between segments (`../team`);
 * - `~` or `~:sub`: the home workspace of the user whose credentials are used (a shell's expansion of an unquoted
 *   `~` to `$HOME` counts as `~`);
 * - `user:NAME` or `:user:NAME[:sub]`: NAME's home (kcp's alias), resolved with the server to its canonical path, so
 *   `..` from there goes where it should. A child literally named `user` is reached as `./user`.
 * Aliases need the server; everything else is resolved locally.
 */
import { homedir } from 'node:os';
import { ApiError } from '../../client/errors.js';
import { CliError, UsageError } from './errors.js';
import type { KubeClient } from '../../client/http-client.js';
import { isValidPath, joinPath, parseClusterUrl, resolveDots, unexpandHome } from '../../client/workspace-path.js';
import { canonicalPath, homePath } from '../../client/workspace-api.js';

/** How a command words "went above root" (kcp's `ws` and its `-w` differ). */
export interface TargetOptions {
  tooHigh?: string;
  /** The home directory whose shell expansion stands for `~`. */
  home?: string;
}

const defaultTooHigh = 'cannot go above the root workspace';

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

/**
 * The absolute path an argument without a home alias names: `root…` and `:…` absolute, anything else relative to
 * the workspace the server URL points at.
 */
export function targetWorkspace(server: string, arg: string | undefined, opts: TargetOptions = {}): string {
  const current = parseClusterUrl(server)?.path;
  let name = arg === undefined ? '.' : unexpandHome(arg, opts.home ?? homedir());
  if (name === 'root' || name.startsWith('root:')) name = `:${name}`;
  let joined: string;
  if (name.startsWith(':')) joined = name.slice(1);
  else if (current !== undefined) joined = joinPath(current, name);
  else if (arg === undefined) throw new UsageError(`the server URL ${server} points at no workspace: name one, e.g. root:org`);
  else throw new UsageError(`"${arg}" is relative, but the server URL ${server} points at no workspace: give an absolute path like root:org`);
  return checkedPath(joined, arg, opts);
}

/** Any workspace argument → its absolute path, asking the server (as `client`'s user) for what an alias stands for. */
export async function resolveWorkspace(client: KubeClient, server: string, arg: string | undefined, opts: TargetOptions = {}): Promise<string> {
  if (arg === undefined) return targetWorkspace(server, undefined, opts);
  const name = unexpandHome(arg, opts.home ?? homedir());
  const alias = homeAlias(name);
  if (alias) {
    const base = alias.user === undefined ? await homePath(client) : await userHome(client, alias.user);
    return checkedPath(joinPath(base, alias.rest), arg, opts);
  }
  // From a workspace reached by an alias or a cluster name (`user:bob`, `2x9…`), `..` needs the canonical path.
  const current = parseClusterUrl(server);
  const relative = !(name.startsWith(':') || name === 'root' || name.startsWith('root:'));
  if (current && relative && name.split(':').includes('..') && !current.path.startsWith('root')) {
    const canonical = await canonicalPath(client, current.path).catch(() => undefined);
    if (canonical) return checkedPath(joinPath(canonical, name), arg, opts);
  }
  return targetWorkspace(server, name, { ...opts, home: '' });
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

function checkedPath(joined: string, arg: string | undefined, opts: TargetOptions): string {
  const tooHigh = opts.tooHigh ?? defaultTooHigh;
  const workspace = resolveDots(joined, tooHigh);
  if (workspace === '') throw new CliError(tooHigh);
  if (!isValidPath(workspace)) throw new UsageError(`invalid workspace path: ${arg}`);
  return workspace;
}
