/** Starts the engine, prints the ready line, and serves until SIGINT/SIGTERM. Shared by oclif and the fast path. */
import { existsSync } from 'node:fs';
import type { ServerOptions } from '../../engine/server/index.js';
import { CLUSTER_MEMBER_ENV } from '../server/known-servers.js';
import { removeServerRecord, writeServerRecord } from '../server/server-record.js';

/** Set by `kcpt start --detach` for its background child: the log file its output goes to. */
export const DETACHED_LOG_ENV = 'KCPT_DETACHED_LOG';

type Engine = typeof import('../../engine/server/index.js');

/** The bundled engine when built (fast start-up), else the modules themselves (development with tsx). */
async function loadEngine(): Promise<Engine> {
  const bundle = new URL('../../../engine-bundle/server.js', import.meta.url);
  if (existsSync(bundle)) return (await import(bundle.href)) as Engine;
  return import('../../engine/server/index.js');
}

export interface StartOutput {
  log(line: string): void;
}

export async function runStart(options: ServerOptions, out: StartOutput): Promise<void> {
  const { startServer } = await loadEngine();
  const started = Date.now();
  const server = await startServer(options);
  const logFile = process.env[DETACHED_LOG_ENV];
  const record = writeServerRecord({
    pid: process.pid,
    url: server.url,
    port: server.port,
    rootDirectory: server.rootDirectory,
    kubeconfig: server.kubeconfigPath,
    startedAt: new Date().toISOString(),
    detached: logFile !== undefined,
    ...(logFile !== undefined ? { logFile } : {}),
  });
  // Without its record a server is invisible to `kcpt status` and `kcpt stop`: better not to run at all.
  await record.catch(async (err: Error) => {
    await server.close();
    throw new Error(`could not write the server record in ${server.rootDirectory}: ${err.message}`);
  });
  out.log(`kcpt is ready at ${server.url} (started in ${Date.now() - started} ms). Point kubectl at it with:`);
  out.log(`  export KUBECONFIG=${server.kubeconfigPath}`);
  await new Promise<void>((resolve) => {
    let stopping = false;
    const stop = (reason: string) => {
      if (stopping) return;
      stopping = true;
      process.stderr.write(`${reason}, shutting down\n`);
      removeServerRecord(server.rootDirectory, process.pid);
      server.close().then(resolve, resolve);
    };
    process.once('SIGINT', () => stop('received SIGINT'));
    process.once('SIGTERM', () => stop('received SIGTERM'));
    // A shard of `kcpt start --shards` has its parent's pipe on stdin: its end means the parent is gone, even killed
    // with no chance to stop its shards, and the shard stops as on SIGTERM instead of running on unreachable.
    if (process.env[CLUSTER_MEMBER_ENV]) {
      process.stdin.once('end', () => stop('the cluster process that started this shard is gone'));
      process.stdin.once('error', () => stop('the cluster process that started this shard is gone'));
      process.stdin.resume();
    }
  });
}
