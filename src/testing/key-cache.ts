/**
 * Key material for throwaway test servers, generated once per user and machine and copied into each new root
 * directory. A fresh root directory otherwise costs an RSA-2048 service-account key (0.3–0.6 s of CPU) and a CA
 * plus serving certificate (loading @peculiar/x509 alone is ~200 ms): far more than the rest of a start.
 *
 * Sharing is safe only because of what the keys protect and where they live: servers started by this library,
 * listening on 127.0.0.1, with admin tokens generated per root directory (tokens are never shared). The cache is a
 * directory under os.tmpdir() named after the user id, and it is used only when it is a real directory (not a
 * symlink) owned by this user with no group or other access; otherwise every start generates its own keys.
 * Whatever is copied, the server checks as usual (a serving certificate close to expiry is re-issued), and a
 * cache whose serving certificate has less than 60 days left is replaced.
 */
import { X509Certificate } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CA_CERT_FILE, CA_KEY_FILE, ensureServingCertificates, SERVING_CERT_FILE, SERVING_KEY_FILE } from '../engine/auth/certificates.js';
import { loadOrCreateServiceAccountKey, SERVICE_ACCOUNT_KEY_FILE } from '../engine/auth/service-account-key.js';

const cachedFiles = [CA_CERT_FILE, CA_KEY_FILE, SERVING_CERT_FILE, SERVING_KEY_FILE, SERVICE_ACCOUNT_KEY_FILE];
const minRemainingMs = 60 * 24 * 60 * 60 * 1000;
/** The address test servers bind; the cached serving certificate carries it (and localhost, ::1). */
export const testBindAddress = '127.0.0.1';

export function keyCacheDirectory(): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  return path.join(os.tmpdir(), `kcpt-testing-keys-${uid}`);
}

/**
 * Copies the cached keys into `root` (creating the cache first when there is none). Returns false, leaving `root`
 * alone, when the cache cannot be used safely; the server then generates keys itself.
 */
export async function seedRootDirectory(root: string, cacheDir = keyCacheDirectory()): Promise<boolean> {
  if (!(await usableCache(cacheDir))) {
    if (!(await createCache(cacheDir))) return false;
  }
  await Promise.all(cachedFiles.map((file) => fs.copyFile(path.join(cacheDir, file), path.join(root, file))));
  return true;
}

/** Whether `dir` is ours alone, complete and not close to expiry. A missing directory is simply not usable. */
async function usableCache(dir: string): Promise<boolean> {
  let stat;
  try {
    stat = await fs.lstat(dir);
  } catch {
    return false;
  }
  if (!isPrivateDirectory(stat)) return false;
  try {
    const cert = new X509Certificate(await fs.readFile(path.join(dir, SERVING_CERT_FILE)));
    if (Date.parse(cert.validTo) - Date.now() < minRemainingMs) return false;
    await Promise.all(cachedFiles.map((file) => fs.access(path.join(dir, file))));
    return true;
  } catch {
    return false;
  }
}

function isPrivateDirectory(stat: import('node:fs').Stats): boolean {
  const ownUid = typeof process.getuid === 'function' ? process.getuid() : stat.uid;
  return stat.isDirectory() && !stat.isSymbolicLink() && stat.uid === ownUid && (stat.mode & 0o077) === 0;
}

/**
 * Generates the keys in a private staging directory and renames it into place, so a reader never sees half a
 * cache. Several test workers may race here: one rename wins, the others find the winner's cache.
 */
async function createCache(dir: string): Promise<boolean> {
  const existing = await fs.lstat(dir).catch(() => undefined);
  // Someone else's (or a world-readable) directory under that name: never touch it, never trust it.
  if (existing && !isPrivateDirectory(existing)) return false;
  const staging = await fs.mkdtemp(`${dir}.staging-`);
  try {
    await fs.chmod(staging, 0o700);
    await Promise.all([ensureServingCertificates(staging, { hosts: [testBindAddress] }), loadOrCreateServiceAccountKey(staging)]);
    // An expired or incomplete cache of ours is replaced.
    if (existing) await fs.rm(dir, { recursive: true, force: true });
    try {
      await fs.rename(staging, dir);
    } catch {
      // Another worker won the race; its cache is as good as ours.
    }
    return usableCache(dir);
  } finally {
    await fs.rm(staging, { recursive: true, force: true });
  }
}
