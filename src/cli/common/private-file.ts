/**
 * Writing a file only its owner may read (a kubeconfig with a token in it): a temporary sibling created with mode
 * 0600 is renamed over the target, so a reader never sees half a file and the secret is never readable by others.
 * Synchronous and without fsync, unlike the server's writes to its root directory: a command writes one small file
 * and exits, and the rename is what makes the write all-or-nothing (kubectl does not fsync its kubeconfig either).
 */
import { chmodSync, renameSync, rmSync, writeFileSync } from 'node:fs';
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
