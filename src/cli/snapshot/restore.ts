/**
 * `kcpt snapshot restore FILE`: a whole-store snapshot into a stopped root directory, or (`--as PATH`) a workspace
 * subtree into the running server.
 */
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { SQLITE_MAGIC } from '../../engine/snapshot/format.js';
import type { FlagValues } from '../common/command-spec.js';
import { CliError, UsageError } from '../common/errors.js';
import type { Io } from '../common/io.js';
import { printData, type OutputFormat } from '../common/output.js';
import { withSession } from '../common/session.js';
import { offline } from './save.js';
import { loadOffline, snapshotTarget } from './target.js';

export interface RestoreOptions {
  file: string;
  as?: string;
  rootDirectory?: string;
  force: boolean;
  output?: OutputFormat;
}

interface SubtreeRestored {
  path: string;
  clusters: Record<string, string>;
  objects: number;
  revision: number;
}

export async function runRestore(io: Io, flags: FlagValues, opts: RestoreOptions): Promise<void> {
  if (!existsSync(opts.file)) throw new CliError(`${opts.file} does not exist`);
  if (opts.as !== undefined) return restoreSubtree(io, flags, opts);
  if (opts.rootDirectory === undefined) {
    throw new UsageError('say where to restore: --root-directory DIR (a stopped server\'s directory) for a whole-store snapshot, or --as PATH for a workspace snapshot');
  }
  const target = snapshotTarget(flags, opts.rootDirectory);
  if (target.kind === 'server') {
    throw new CliError(`a kcpt server is running in ${opts.rootDirectory}: stop it first (kcpt stop --root-directory ${opts.rootDirectory}), or restore a workspace snapshot into it with --as PATH`);
  }
  const { restoreStopped } = await loadOffline();
  const restored = await offline(() => restoreStopped(opts.rootDirectory!, opts.file, opts.force));
  const report = { rootDirectory: opts.rootDirectory, ...restored };
  if (opts.output) return printData(io, opts.output, report);
  io.out(`Restored ${restored.objects} keys at revision ${restored.revision} into ${opts.rootDirectory}; start it with: kcpt start --root-directory ${opts.rootDirectory}\n`);
}

async function restoreSubtree(io: Io, flags: FlagValues, opts: RestoreOptions): Promise<void> {
  const target = snapshotTarget(flags, opts.rootDirectory);
  if (target.kind === 'stopped') {
    throw new CliError(`no kcpt server is running in ${opts.rootDirectory}: a workspace snapshot is restored into a running server (kcpt start --root-directory ${opts.rootDirectory} --detach)`);
  }
  const body = await readFile(opts.file);
  if (body.subarray(0, SQLITE_MAGIC.length).toString('latin1') === SQLITE_MAGIC) {
    throw new CliError(`${opts.file} is a whole-store SQLite snapshot: restore it into a stopped root directory (kcpt snapshot restore ${opts.file} --root-directory DIR)`);
  }
  const restored = await withSession(target.flags, ({ client }) =>
    client.post<SubtreeRestored>('/kcpt/snapshot/restore', body.toString('utf8'), { query: { as: opts.as }, contentType: 'application/jsonl' }),
  );
  if (opts.output) return printData(io, opts.output, restored);
  // Which logical cluster became which is for scripts (-o json); a person needs how many and whether they were renamed.
  const mappings = Object.entries(restored.clusters);
  const renamed = mappings.filter(([from, to]) => from !== to).length;
  const clusters = `${mappings.length} logical cluster${mappings.length === 1 ? '' : 's'}`;
  const names = renamed === 0 ? 'names kept' : renamed === mappings.length ? 'new names' : `${renamed} renamed`;
  io.out(`Restored ${restored.objects} objects as workspace ${restored.path} (${clusters}, ${names}; -o json lists them).\n`);
}
