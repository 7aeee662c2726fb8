/**
 * The root directories this user has started kcpt in, so `kcpt status --all` can list their servers without being
 * told where they are (kind's `get clusters`). One small file per root directory under the user's state directory
 * (`$XDG_STATE_HOME/kcpt/servers`, else `~/.local/state/kcpt/servers`), written by `kcpt start`; an entry whose
 * directory is gone is dropped when the list is read. Shards that `kcpt start --shards` runs are members of its
 * root directory, not servers of their own: they are not written.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

/** Set by `kcpt start --shards` for its member processes. */
export const CLUSTER_MEMBER_ENV = 'KCPT_CLUSTER_MEMBER';

function registryDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const state = env.XDG_STATE_HOME || path.join(env.HOME || homedir(), '.local', 'state');
  return path.join(state, 'kcpt', 'servers');
}

function entryFile(rootDirectory: string, env?: NodeJS.ProcessEnv): string {
  return path.join(registryDirectory(env), `${createHash('sha256').update(rootDirectory).digest('hex').slice(0, 16)}.json`);
}

/** Records `rootDirectory` (absolute). Never fails a start: without the entry only the listing misses it. */
export function rememberServer(rootDirectory: string, env: NodeJS.ProcessEnv = process.env): void {
  if (env[CLUSTER_MEMBER_ENV]) return;
  try {
    mkdirSync(registryDirectory(env), { recursive: true, mode: 0o700 });
    writeFileSync(entryFile(rootDirectory, env), `${JSON.stringify({ rootDirectory })}\n`, { mode: 0o600 });
  } catch {
    // A read-only HOME, say.
  }
}

/** The root directories recorded, sorted; those that no longer exist are forgotten. */
export function knownRootDirectories(env: NodeJS.ProcessEnv = process.env): string[] {
  const dir = registryDirectory(env);
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const name of names) {
    const file = path.join(dir, name);
    try {
      const { rootDirectory } = JSON.parse(readFileSync(file, 'utf8')) as { rootDirectory?: unknown };
      if (typeof rootDirectory === 'string' && existsSync(rootDirectory)) found.push(rootDirectory);
      else rmSync(file, { force: true });
    } catch {
      rmSync(file, { force: true });
    }
  }
  return found.sort();
}
