/** `kcpt snapshot save FILE [--workspace PATH]`: from the running server, or from a stopped root directory. */
import { existsSync, statSync } from 'node:fs';
import { ClientError } from '../../client/errors.js';
import type { FlagValues } from '../common/command-spec.js';
import { CliError } from '../common/errors.js';
import type { Io } from '../common/io.js';
import { printData, type OutputFormat } from '../common/output.js';
import { withSession } from '../common/session.js';
import { loadOffline, snapshotTarget } from './target.js';

export interface SaveOptions {
  file: string;
  workspace?: string;
  rootDirectory?: string;
  force: boolean;
  output?: OutputFormat;
}

export interface SaveReport {
  file: string;
  scope: 'store' | 'workspace';
  workspace?: string;
  format: 'sqlite' | 'jsonl';
  bytes: number;
  /** The store revision the snapshot was read at (unknown for a backup of a running server). */
  revision?: number;
  from: 'server' | 'root-directory';
}

export async function runSave(io: Io, flags: FlagValues, opts: SaveOptions): Promise<void> {
  if (existsSync(opts.file) && !opts.force) throw new CliError(`${opts.file} already exists; pass --force to overwrite it`);
  const target = snapshotTarget(flags, opts.rootDirectory);
  let report: Omit<SaveReport, 'bytes'>;
  const scope = opts.workspace ? 'workspace' : 'store';
  if (target.kind === 'stopped') {
    const { saveStopped } = await loadOffline();
    const saved = await offline(() => saveStopped(target.rootDirectory, opts.file, opts.workspace));
    report = { file: opts.file, scope, workspace: opts.workspace, format: saved.format, revision: saved.revision, from: 'root-directory' };
  } else {
    // Flags without --workspace: the session must not re-point the server URL at a workspace.
    const { workspace: _ignored, ...connection } = target.flags;
    const headers = await withSession(connection, ({ client }) => client.download('/kcpt/snapshot', opts.file, { query: { workspace: opts.workspace } }));
    const revision = Number(headers['x-kcpt-snapshot-revision']);
    const format = String(headers['content-type']).includes('sqlite') ? 'sqlite' : 'jsonl';
    report = { file: opts.file, scope, workspace: opts.workspace, format, revision: Number.isFinite(revision) && revision > 0 ? revision : undefined, from: 'server' };
  }
  const done: SaveReport = { ...report, bytes: statSync(opts.file).size };
  if (opts.output) return printData(io, opts.output, done);
  const what = done.workspace ? `workspace ${done.workspace}` : 'the whole store';
  const at = done.revision ? ` at revision ${done.revision}` : '';
  io.out(`Saved ${what}${at} to ${done.file} (${done.format === 'sqlite' ? 'SQLite database' : 'JSON lines'}, ${done.bytes} bytes).\n`);
}

/** Engine errors about files and locks become one-line CLI failures. */
export async function offline<T>(body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof ClientError) throw error;
    throw new CliError((error as Error).message);
  }
}
