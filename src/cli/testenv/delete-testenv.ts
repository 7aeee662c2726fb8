/**
 * `kcpt testenv delete [FILE] [--all]`: undoes `kcpt testenv`. The kubeconfig it wrote says which workspace (its one
 * server URL) and holds the credentials that created it; the workspace is deleted in its parent with them, then the
 * file (it carries a token) is removed. A workspace already gone still gets its file removed. Only workspaces with
 * testenv's generated names are deleted, so a kubeconfig of anything else is refused rather than emptied.
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { connectionFlagValues } from '../common/connection-flags.js';
import { resolveConfig } from '../common/connection.js';
import { ApiError } from '../../client/errors.js';
import { CliError, UsageError } from '../common/errors.js';
import { KubeClient } from '../../client/http-client.js';
import type { Io } from '../common/io.js';
import { printData, type OutputFormat } from '../common/output.js';
import { baseName, parentPath, parseClusterUrl } from '../../client/workspace-path.js';
import { deleteWorkspace } from '../../client/workspace-api.js';
import { testenvDirectory, testenvNamePrefix } from './run-testenv.js';

export interface Deleted {
  kubeconfig: string;
  workspace: string;
  /** False when the workspace was already gone. */
  deleted: boolean;
}

export async function runTestenvDelete(io: Io, opts: { file?: string; all: boolean; output?: OutputFormat }): Promise<void> {
  if (opts.all && opts.file) throw new UsageError('give a FILE or --all, not both');
  let files: string[];
  if (opts.all) {
    const dir = testenvDirectory();
    files = readdirSync(dir).filter((f) => f.endsWith('.kubeconfig')).map((f) => path.join(dir, f));
  } else {
    const file = opts.file ?? io.env.KUBECONFIG;
    if (!file) throw new UsageError('which test environment? Give the kubeconfig kcpt testenv wrote, or set KUBECONFIG to it');
    if (file.includes(path.delimiter)) throw new UsageError(`KUBECONFIG lists several files (${file}): give the one kcpt testenv wrote`);
    files = [file];
  }
  const done: Deleted[] = [];
  const failed: string[] = [];
  for (const file of files) {
    try {
      done.push(await deleteOne(path.resolve(file)));
    } catch (err) {
      if (!opts.all) throw err;
      failed.push(`${file}: ${(err as Error).message}`);
    }
  }
  if (opts.output) await printData(io, opts.output, done);
  else {
    for (const d of done) io.out(`Deleted workspace ${d.workspace}${d.deleted ? '' : ' (already gone)'} and ${d.kubeconfig}.\n`);
    if (opts.all && files.length === 0) io.out('No test environments to delete.\n');
  }
  if (failed.length > 0) throw new CliError(`could not delete ${failed.length} of ${files.length}:\n  ${failed.join('\n  ')}`);
}

async function deleteOne(file: string): Promise<Deleted> {
  if (!existsSync(file)) throw new CliError(`${file} does not exist`);
  const config = resolveConfig(connectionFlagValues({ kubeconfig: file }));
  const workspace = parseClusterUrl(config.connection.server)?.path;
  const parent = workspace && parentPath(workspace);
  if (!workspace || !parent || !baseName(workspace).startsWith(testenvNamePrefix)) {
    throw new CliError(`${file} is not a kubeconfig written by kcpt testenv (its server ${config.connection.server} is no testenv-… workspace)`);
  }
  const client = new KubeClient(config.connection);
  let deleted = true;
  try {
    await deleteWorkspace(client, parent, baseName(workspace));
  } catch (err) {
    if (!(err instanceof ApiError && err.notFound)) throw err;
    deleted = false;
  } finally {
    client.close();
  }
  rmSync(file, { force: true });
  return { kubeconfig: file, workspace, deleted };
}
