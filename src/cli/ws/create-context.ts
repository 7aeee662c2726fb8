/** `kcpt ws create-context [NAME] [--overwrite]`, and the same step for `ws create --create-context`. */
import { CliError } from '../common/errors.js';
import type { Io } from '../common/io.js';
import { printData, type OutputFormat } from '../common/output.js';
import type { ResolvedConfig } from '../common/connection.js';
import { parseClusterUrl } from '../../client/workspace-path.js';
import { createContext } from './context-rewrite.js';

export interface CreateContextOptions {
  name?: string;
  overwrite: boolean;
  /** Server URL for the new context; the current one's by default. */
  url?: string;
  keepCurrent?: boolean;
  output?: OutputFormat;
}

export async function runCreateContext(config: ResolvedConfig, io: Io, opts: CreateContextOptions): Promise<void> {
  const kubeconfig = config.kubeconfig;
  const current = kubeconfig.contexts.get(config.contextName)?.value;
  if (!current) throw new CliError(`current context "${config.contextName}" is not found in kubeconfig`);
  const cluster = kubeconfig.clusters.get(current.cluster ?? '')?.value;
  if (!cluster) throw new CliError(`current cluster "${current.cluster}" is not found in kubeconfig`);
  const server = cluster.server ?? '';
  const parsed = parseClusterUrl(server);
  if (!parsed) throw new CliError(`current URL "${server}" does not point to a workspace`);
  const name = opts.name || parsed.path;
  const result = createContext(kubeconfig, config.contextName, { name, overwrite: opts.overwrite, url: opts.url, keepCurrent: Boolean(opts.keepCurrent) });
  kubeconfig.save();
  if (opts.output) {
    await printData(io, opts.output, { context: result.name, created: !result.updated, switched: result.switched });
    return;
  }
  const verb = result.updated ? 'Updated' : 'Created';
  io.out(result.switched ? `${verb} context "${name}" and switched to it.\n` : `${verb} context "${name}".\n`);
}
