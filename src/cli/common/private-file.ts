/**
 * Files only their owner may read (a kubeconfig with a token in it, bytecode this user will run):
 * - writePrivateFile: a temporary sibling created with mode 0600 is renamed over the target, so a reader never sees
 *   half a file and the secret is never readable by others. Synchronous and without fsync, unlike the server's writes
 *   to its root directory: a command writes one small file and exits, and the rename is what makes the write
 *   all-or-nothing (kubectl does not fsync its kubeconfig either).
 * - privateTempDirectory: `<tmpdir>/<prefix>-<uid>`, created 0700, and used only when it is a real directory owned by
 *   this user with no group or other access: in a shared /tmp another user could have made it first.
 */
import { chmodSync, lstatSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';

export function writePrivateFile(file: string, data: string): void {
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.tmp`);
  try {
    writeFileSync(tmp, data, { mode: 0o600, flag: 'wx' });
    // The umask applies on top of the mode given to open(); chmod makes it exactly 0600.
    chmodSync(tmp, 0o600);
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/** The user's private directory `<tmpdir>/<prefix>-<uid>` (created if missing), or undefined when it is not private. */
export function privateTempDirectory(prefix: string): string | undefined {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  const dir = join(tmpdir(), `${prefix}-${uid}`);
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return undefined;
  }
  try {
    const st = lstatSync(dir);
    return st.isDirectory() && st.uid === uid && (st.mode & 0o077) === 0 ? dir : undefined;
  } catch {
    return undefined;
  }
}
