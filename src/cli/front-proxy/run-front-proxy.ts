/** Runs `kcpt front-proxy` in the foreground: start, print where it listens, serve until SIGINT/SIGTERM. */
import type { FrontProxyOptions } from '../../engine/front-proxy/server.js';

export interface FrontProxyOutput {
  log(line: string): void;
}

export async function runFrontProxy(options: FrontProxyOptions, out: FrontProxyOutput): Promise<void> {
  const { startFrontProxy } = await import('../../engine/front-proxy/server.js');
  const started = Date.now();
  const proxy = await startFrontProxy(options);
  out.log(`kcpt front-proxy is listening at ${proxy.url} (started in ${Date.now() - started} ms). Point kubectl at it with:`);
  out.log(`  export KUBECONFIG=${proxy.kubeconfigPath}`);
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      process.stderr.write(`received ${signal}, shutting down\n`);
      proxy.close().then(resolve, resolve);
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
}
