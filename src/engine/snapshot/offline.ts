/**
 * Snapshots of a root directory no server is using: saving its SQLite store (a file copy through the backup API, or
 * one subtree exported as JSON lines), and restoring a whole-store snapshot into it. Both hold the root directory's
 * lock while they work, so a `kcpt start` cannot open the store halfway through, and a running server makes them
 * fail with the pid that holds it.
 */
import { existsSync } from 'node:fs';
import { open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { acquireRootLock, prepareRootDirectory } from '../auth/root-directory.js';
import { DEFAULT_DATABASE_FILE } from '../storage/open-store.js';
import { checkStoreFile, copyStoreFile, writeStoreFile } from '../storage/sqlite-files.js';
import { openSqliteStore } from '../storage/sqlite-store.js';
import { ClusterPaths } from '../tenancy/cluster-paths.js';
import { exportSubtree } from './export.js';
import { entryLine, headerLine, parseSnapshot, SQLITE_MAGIC, type Snapshot } from './format.js';

export interface OfflineResult {
  format: 'sqlite' | 'jsonl';
  revision: number;
  objects: number;
}

function storeFile(rootDirectory: string): string {
  const file = join(rootDirectory, DEFAULT_DATABASE_FILE);
  if (!existsSync(file)) {
    throw new Error(`${rootDirectory} holds no kcpt store (no ${DEFAULT_DATABASE_FILE}); was its server started with --storage elsewhere?`);
  }
  return file;
}

async function withRootLock<T>(rootDirectory: string, body: () => Promise<T>): Promise<T> {
  let release: () => void;
  try {
    release = acquireRootLock(rootDirectory);
  } catch (error) {
    throw new Error(`${(error as Error).message}: stop it first (kcpt stop --root-directory ${rootDirectory})`);
  }
  try {
    return await body();
  } finally {
    release();
  }
}

/** Saves the stopped server's whole store (a SQLite file) or one workspace subtree (JSON lines) to `file`. */
export async function saveStopped(rootDirectory: string, file: string, workspace?: string): Promise<OfflineResult> {
  const database = storeFile(rootDirectory);
  return withRootLock(rootDirectory, async () => {
    if (!workspace) return { format: 'sqlite', ...(await copyStoreFile(database, file)) };
    const store = openSqliteStore(database);
    try {
      const paths = new ClusterPaths(store);
      const snapshot = exportSubtree({ store, resolvePath: (path) => paths.resolve(path) }, workspace);
      await writeFile(file, snapshotText(snapshot), { mode: 0o600 });
      return { format: 'jsonl', revision: snapshot.header.revision, objects: snapshot.entries.length };
    } finally {
      store.close();
    }
  });
}

export function snapshotText(snapshot: Snapshot): string {
  return headerLine(snapshot.header) + snapshot.entries.map(entryLine).join('');
}

/**
 * Makes a whole-store snapshot (SQLite file or JSON lines) the store of `rootDirectory`. Refuses a directory that
 * already has one unless `force`; the new store is complete before it replaces the old one.
 */
export async function restoreStopped(rootDirectory: string, file: string, force: boolean): Promise<OfflineResult> {
  if (!existsSync(file)) throw new Error(`${file} does not exist`);
  const root = await prepareRootDirectory(rootDirectory);
  return withRootLock(root, async () => {
    const database = join(root, DEFAULT_DATABASE_FILE);
    const companions = [database, `${database}-wal`, `${database}-shm`];
    if (!force && companions.some((f) => existsSync(f))) {
      throw new Error(`${root} already holds a store (${DEFAULT_DATABASE_FILE}): restore into an empty root directory, or pass --force to replace it`);
    }
    const staging = `${database}.restoring`;
    await rm(staging, { force: true });
    let result: OfflineResult;
    try {
      if (await isSqliteFile(file)) {
        checkStoreFile(file);
        result = { format: 'sqlite', ...(await copyStoreFile(file, staging)) };
      } else {
        const snapshot = parseSnapshot(await readFile(file, 'utf8'));
        if (snapshot.header.scope !== 'store') {
          throw new Error(`${file} is a workspace snapshot (${snapshot.header.workspace?.path}): restore it into a running server with --as <new workspace path>`);
        }
        result = { format: 'jsonl', ...writeStoreFile(staging, snapshot.entries, snapshot.header.revision) };
      }
    } catch (error) {
      await rm(staging, { force: true });
      throw error;
    }
    for (const f of companions) await rm(f, { force: true });
    await rename(staging, database);
    return result;
  });
}

export async function isSqliteFile(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(SQLITE_MAGIC.length);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return bytesRead === head.length && head.toString('latin1') === SQLITE_MAGIC;
  } finally {
    await handle.close();
  }
}
