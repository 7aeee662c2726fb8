import { existsSync } from 'node:fs';
import { Command, Flags } from '@oclif/core';

type Engine = typeof import('../src/engine/server.js');

/** The bundled engine when built (fast start-up), else the modules themselves (development with tsx). */
async function loadEngine(): Promise<Engine> {
  const bundle = new URL('../engine-bundle/server.js', import.meta.url);
  if (existsSync(bundle)) return (await import(bundle.href)) as Engine;
  return import('../src/engine/server.js');
}

export default class Start extends Command {
  static override summary = 'Start a kcpt control plane: a Kubernetes API server with workspaces, on embedded SQLite.';

  static override examples = [
    '<%= config.bin %> start',
    '<%= config.bin %> start --root-directory /tmp/kcpt --secure-port 7443',
    '<%= config.bin %> start --storage memory://',
  ];

  static override flags = {
    'root-directory': Flags.string({ description: 'Directory for the database, certificates and admin.kubeconfig.', default: '.kcp' }),
    'secure-port': Flags.integer({ description: 'HTTPS port to serve on (0 picks a free port).', default: 6443, min: 0, max: 65535 }),
    'bind-address': Flags.string({ description: 'Address to listen on; admin.kubeconfig points at it.', default: '127.0.0.1' }),
    storage: Flags.string({
      description: 'Where objects are stored: a SQLite file in the root directory by default, `memory://` for a throwaway run, or `sqlite:///path/to/file.db`.',
      default: '',
    }),
    'token-auth-file': Flags.string({ description: 'Static bearer tokens in kube-apiserver CSV format: token,user,uid,"group1,group2".' }),
    'batteries-included': Flags.string({ description: 'Optional pieces to install: admin, workspace-types, user.', default: 'admin,workspace-types' }),
    v: Flags.integer({ char: 'v', description: 'Log verbosity (0 quiet, 1 logs every request).', default: 0 }),
    // Test knobs: shrink watch history so clients can be shown a 410 Gone on demand.
    'watch-history-retention': Flags.string({ description: 'Keep watch history at least this long (e.g. 5m, 0s).', default: '5m', hidden: true }),
    'watch-history-compaction-interval': Flags.string({ description: 'How often to compact watch history (e.g. 60s, 100ms).', default: '60s', hidden: true }),
    'watch-history-min-revisions': Flags.integer({ description: 'Never compact the newest N revisions.', default: 1000, min: 0, hidden: true }),
  };

  /** `100ms`, `30s`, `5m`, `1h` → milliseconds. */
  private duration(text: string, flag: string): number {
    const match = /^(\d+)(ms|s|m|h)$/.exec(text.trim());
    if (!match) this.error(`--${flag}: "${text}" is not a duration like 100ms, 30s, 5m or 1h`, { exit: 2 });
    const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match[2] as 'ms' | 's' | 'm' | 'h'];
    return Number(match[1]) * unit;
  }

  async run(): Promise<void> {
    const { flags } = await this.parse(Start);
    const { startServer } = await loadEngine();
    const started = Date.now();
    const server = await startServer({
      rootDirectory: flags['root-directory'],
      securePort: flags['secure-port'],
      bindAddress: flags['bind-address'],
      storage: flags.storage,
      tokenAuthFile: flags['token-auth-file'],
      batteries: flags['batteries-included'].split(',').map((b) => b.trim()).filter(Boolean),
      verbosity: flags.v,
      watchHistoryRetentionMs: this.duration(flags['watch-history-retention'], 'watch-history-retention'),
      watchHistoryCompactionIntervalMs: this.duration(flags['watch-history-compaction-interval'], 'watch-history-compaction-interval'),
      watchHistoryMinRevisions: flags['watch-history-min-revisions'],
    }).catch((err: Error) => this.error(err.message, { exit: 1 }));
    this.log(`kcpt is ready at ${server.url} (started in ${Date.now() - started} ms). Point kubectl at it with:`);
    this.log(`  export KUBECONFIG=${server.kubeconfigPath}`);
    await new Promise<void>((resolve) => {
      const stop = (signal: string) => {
        process.stderr.write(`received ${signal}, shutting down\n`);
        server.close().then(resolve, resolve);
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
    });
  }
}
