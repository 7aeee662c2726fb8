/**
 * Where a snapshot command works: a running server (through the kubeconfig flags, or the admin.kubeconfig of
 * --root-directory as its shard admin, the system:masters identity snapshots need), or the files of a stopped one.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FlagValues } from '../common/command-spec.js';
import { findRunningServer } from '../server/server-record.js';
import { kcptPackageRoot } from '../server/package-root.js';
import { importExternal } from '../../client/external-import.js';

/** The context of admin.kubeconfig whose user (shard-admin) is in system:masters. */
export const SHARD_ADMIN_CONTEXT = 'system:admin';
const ADMIN_KUBECONFIG = 'admin.kubeconfig';

export type SnapshotTarget = { kind: 'server'; flags: FlagValues } | { kind: 'stopped'; rootDirectory: string };

export function snapshotTarget(flags: FlagValues, rootDirectory: string | undefined): SnapshotTarget {
  if (rootDirectory === undefined) return { kind: 'server', flags };
  if (!findRunningServer(rootDirectory)) return { kind: 'stopped', rootDirectory };
  return {
    kind: 'server',
    flags: { ...flags, kubeconfig: join(rootDirectory, ADMIN_KUBECONFIG), context: (flags.context as string | undefined) ?? SHARD_ADMIN_CONTEXT },
  };
}

type Offline = typeof import('../../engine/snapshot/offline.js');

/**
 * The engine's offline snapshot module, loaded from the compiled package (not bundled into the fast path: it pulls in
 * better-sqlite3), or from the sources when running under tsx.
 */
export async function loadOffline(): Promise<Offline> {
  const root = kcptPackageRoot();
  const compiled = join(root, 'dist', 'src', 'engine', 'snapshot', 'offline.js');
  const file = existsSync(compiled) ? compiled : join(root, 'src', 'engine', 'snapshot', 'offline.ts');
  // Through the lent import(): this code may run from the code-cached CLI bundle, where a plain import() has no loader.
  return importExternal<Offline>(pathToFileURL(file).href);
}
