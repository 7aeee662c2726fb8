/**
 * The root directory (`--root-directory`, default `.kcp`) holds the CA key, admin tokens and the database, so it is
 * created private (0700), and only one server may use it at a time: two servers on one SQLite file and one token
 * store would corrupt each other's view of the world.
 */

import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { isErrno } from './files.js';

export const ROOT_LOCK_FILE = 'kcpt.lock';

export interface PrepareRootOptions {
  /** Receives advice about an existing directory others can read; default prints to stderr. */
  onWarning?: (message: string) => void;
}

/** Resolves `dir` to an absolute path and makes sure it exists; a directory we create gets mode 0700. */
export async function prepareRootDirectory(dir: string, options: PrepareRootOptions = {}): Promise<string> {
  const warn = options.onWarning ?? ((m: string) => process.stderr.write(`warning: ${m}\n`));
  const absolute = path.resolve(dir);
  const created = await fs.mkdir(absolute, { recursive: true, mode: 0o700 });
  if (created !== undefined) {
    // mkdir's mode passes through the umask, which only removes bits; chmod pins the leaf to exactly 0700.
    await fs.chmod(absolute, 0o700);
    return absolute;
  }
  const stat = await fs.stat(absolute);
  if (!stat.isDirectory()) throw new Error(`root directory "${absolute}" exists but is not a directory`);
  // An existing directory may be shared on purpose, so we do not chmod it behind the user's back.
  if ((stat.mode & 0o077) !== 0) {
    warn(
      `root directory "${absolute}" is accessible by group or others (mode ${(stat.mode & 0o777).toString(8)}); ` +
        `it holds private keys and tokens, consider "chmod 700 ${absolute}"`,
    );
  }
  return absolute;
}

/** Lock files this process holds, so a second acquire from the same process is a conflict, not a stale lock. */
const heldLocks = new Set<string>();

/**
 * Takes `<root>/kcpt.lock` (containing our pid) or fails with the pid of the server holding it. A lock whose pid
 * is no longer running is stale (the previous server was killed) and is taken over. Returns the release
 * function, which is also run when the process exits.
 */
export function acquireRootLock(rootDir: string): () => void {
  const lockPath = path.join(path.resolve(rootDir), ROOT_LOCK_FILE);
  const dirForMessage = path.resolve(rootDir);

  // The pid is written to a private temp file which is then hard-linked into place: link() fails atomically
  // when the lock exists, and a lock file never exists without its pid (a racing start could otherwise read an
  // empty file between create and write and take it for stale).
  const tmp = `${lockPath}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(tmp, `${process.pid}\n`, { mode: 0o600, flag: 'wx' });
  try {
    // A few rounds only matter when several starts race for a stale lock. Two starts that both find the same
    // stale lock within microseconds could still both win; that window is accepted as negligible.
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        linkSync(tmp, lockPath);
      } catch (err) {
        if (!isErrno(err, 'EEXIST')) throw err;
        const holder = readLockPid(lockPath);
        if (holder !== undefined && isLockHolderAlive(holder, lockPath)) {
          throw new Error(`another kcpt server (pid ${holder}) is already using root directory "${dirForMessage}"`);
        }
        // Stale (dead pid, or an unreadable file): remove it, unless it vanished meanwhile, and retry.
        try {
          unlinkSync(lockPath);
        } catch (unlinkErr) {
          if (!isErrno(unlinkErr, 'ENOENT')) throw unlinkErr;
        }
        continue;
      }
      heldLocks.add(lockPath);
      return makeRelease(lockPath);
    }
  } finally {
    unlinkSync(tmp);
  }
  throw new Error(`could not acquire lock "${lockPath}": it keeps changing; is another kcpt server starting?`);
}

function makeRelease(lockPath: string): () => void {
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.removeListener('exit', release);
    heldLocks.delete(lockPath);
    // Only remove the file if it is still ours: after a stale takeover race it might belong to someone else.
    if (readLockPid(lockPath) === process.pid) {
      try {
        unlinkSync(lockPath);
      } catch {
        // Already gone: nothing to release.
      }
    }
  };
  // 'exit' handlers must be synchronous, which is why the whole lock uses the sync fs API.
  process.on('exit', release);
  return release;
}

/** The pid written in a lock file, or undefined when there is none (or it is unreadable). */
export function readLockPid(lockPath: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(lockPath, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isLockHolderAlive(pid: number, lockPath: string): boolean {
  // Our own pid in a lock we do not hold means a previous incarnation reused the pid (typical in containers,
  // where the server is often pid 1 on every start).
  if (pid === process.pid) return heldLocks.has(lockPath);
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to another user, so it is alive.
    return !isErrno(err, 'ESRCH');
  }
}
