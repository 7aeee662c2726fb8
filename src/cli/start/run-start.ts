/** Starts the engine, prints the ready line, and serves until SIGINT/SIGTERM. Shared by oclif and the fast path. */
import { existsSync } from 'node:fs';
import type { ServerOptions } from '../../engine/server.js';

type Engine = typeof import('../../engine/server.js');

/** The bundled engine when built (fast start-up), else the modules themselves (development with tsx). */
async function loadEngine(): Promise<Engine> {
  const bundle = new URL('../../../engine-bundle/server.js', import.meta.url);
  if (existsSync(bundle)) return (await import(bundle.href)) as Engine;
  return import('../../engine/server.js');
}

export interface StartOutput {
  log(line: string): void;
}

export async function runStart(options: ServerOptions, out: StartOutput): Promise<void> {
  const { startServer } = await loadEngine();
  const started = Date.now();
  const server = await startServer(options);
  out.log(`kcpt is ready at ${server.url} (started in ${Date.now() - started} ms). Point kubectl at it with:`);
  out.log(`  export KUBECONFIG=${server.kubeconfigPath}`);
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      process.stderr.write(`received ${signal}, shutting down\n`);
      server.close().then(resolve, resolve);
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
}
