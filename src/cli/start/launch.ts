/** What `kcpt start` does with its parsed flags: serve in the foreground, or start a detached server and report it. */
import path from 'node:path';
import type { ServerOptions } from '../../engine/server.js';
import type { StartFlagValues } from './flags.js';
import { runStart, type StartOutput } from './run-start.js';

export async function launchStart(values: StartFlagValues, options: ServerOptions, out: StartOutput): Promise<void> {
  const { rememberServer } = await import('../server/known-servers.js');
  rememberServer(path.resolve(String(values['root-directory'])));
  if (values.shards !== undefined && !values.detach) {
    const { runDevCluster } = await import('./dev-cluster.js');
    return runDevCluster(values, options, out);
  }
  if (!values.detach) return runStart(options, out);
  const [{ startDetached, describeDetached }, { printData, parseOutput, dataOutputs }, { processIo }] = await Promise.all([
    import('../server/detached-start.js'),
    import('../common/output.js'),
    import('../common/io.js'),
  ]);
  const server = await startDetached(values);
  if (values.output) await printData(processIo(), parseOutput(String(values.output), dataOutputs), server);
  else for (const line of describeDetached(server)) out.log(line);
}
