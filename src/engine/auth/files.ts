/**
 * Small file helpers shared by the auth modules. Everything kcpt keeps in its root directory is written through
 * `writeFileAtomic` so that a crash mid-write never leaves a half-written key, token store or kubeconfig behind.
 */

import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';

/** Reads a UTF-8 file, or `undefined` when it does not exist (other errors propagate). */
export async function readFileIfExists(file: string): Promise<string | undefined> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return undefined;
    throw err;
  }
}

/**
 * Writes `data` to a temporary sibling created with `mode` and renames it over `file`. The temp file gets the
 * final mode from the start, so secrets are never readable by others even for a moment, and the rename replaces
 * whatever permissions an older file had.
 */
export async function writeFileAtomic(file: string, data: string, mode: number): Promise<void> {
  const dir = path.dirname(file);
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const handle = await fs.open(tmp, 'wx', mode);
    try {
      await handle.writeFile(data, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    // open() applies the umask on top of `mode`; chmod makes the result exactly what was asked for.
    await fs.chmod(tmp, mode);
    await fs.rename(tmp, file);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
}

export function isErrno(err: unknown, code: string): boolean {
  return typeof err === 'object' && err !== null && (err as NodeJS.ErrnoException).code === code;
}
