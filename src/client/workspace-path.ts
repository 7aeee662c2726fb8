/**
 * kcp's workspace path grammar (logicalcluster.Path) and the URL arithmetic kcp's plugins do with it:
 * segments `[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?` joined by `:` (a first segment may also be a `system:` name),
 * a server URL `<base>/clusters/<path>`, `.` and `..` resolved segment by segment.
 */
import { ClientError } from './errors.js';

const segment = '[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?';
const pathRe = new RegExp(`^(system:${segment}|${segment})(:${segment})*$`);

export function isValidPath(path: string): boolean {
  return pathRe.test(path);
}

/** `root:a:b` → `root:a`; undefined for a single segment. */
export function parentPath(path: string): string | undefined {
  const at = path.lastIndexOf(':');
  if (at < 0 || path.startsWith('system:') && path.indexOf(':') === at) return undefined;
  return path.slice(0, at);
}

/** The last segment: `root:a:b` → `b`. */
export function baseName(path: string): string {
  return path.slice(path.lastIndexOf(':') + 1);
}

/** The first segment: the root of the tree a path lives in. */
export function rootOf(path: string): string {
  let current = path;
  for (let parent = parentPath(current); parent !== undefined; parent = parentPath(current)) current = parent;
  return current;
}

export function joinPath(path: string, child: string): string {
  if (!path) return child;
  if (!child) return path;
  return `${path}:${child}`;
}

/**
 * kcp's reading of a workspace argument the shell may have touched: an unquoted `~` arrives as `$HOME` (or
 * `$HOME/sub`), which means `~` (`~:sub`) again, and `/` separates segments like `:` (`../team` is `..:team`).
 */
export function unexpandHome(arg: string, home: string): string {
  const name = home && arg.startsWith(home) ? `~${arg.slice(home.length)}` : arg;
  return name.replaceAll('/', ':');
}

/** Drops `.` segments and pops one segment for each `..`; `tooHigh` is the error text for going above the first segment. */
export function resolveDots(path: string, tooHigh: string): string {
  const out: string[] = [];
  for (const part of path.split(':')) {
    if (part === '.') continue;
    if (part === '..') {
      if (out.length === 0) throw new ClientError(tooHigh);
      out.pop();
      continue;
    }
    out.push(part);
  }
  return out.join(':');
}

/** Splits a server URL into the base (everything before `/clusters/`) and the workspace path; undefined when it has none. */
export function parseClusterUrl(server: string): { base: URL; path: string } | undefined {
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    return undefined;
  }
  const at = url.pathname.indexOf('/clusters/');
  if (at < 0) return undefined;
  const path = url.pathname.slice(at + '/clusters/'.length).split('/')[0]!;
  if (!isValidPath(path)) return undefined;
  const base = new URL(url.href);
  base.pathname = url.pathname.slice(0, at);
  base.search = '';
  base.hash = '';
  return { base, path };
}

/** `<base>/clusters/<path>`, keeping a path prefix of the base. */
export function clusterUrl(base: URL, path: string): string {
  const u = new URL(base.href);
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/clusters/${path}`;
  return u.href;
}
