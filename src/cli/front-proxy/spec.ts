/** `kcpt front-proxy` as a command spec (run by oclif or by bin/run.js's fast path). */
import type { CommandSpec } from '../common/command-spec.js';

export const frontProxySpec: CommandSpec = {
  id: 'front-proxy',
  summary: 'Run the front-proxy: one URL for every shard, routing /clusters/<path> to the shard that hosts it.',
  description:
    "Watches the Shards in root and the Workspaces and LogicalClusters on every shard, resolves each request's workspace path " +
    "segment by segment, and forwards it, with the caller's Authorization header, to the shard hosting that workspace. " +
    'Unknown paths answer 403 "workspace access not permitted", workspaces on a shard that is down 503 "Not available.", as kcp\'s front-proxy does.',
  examples: [
    '<%= config.bin %> front-proxy --root-kubeconfig .kcp/admin.kubeconfig --root-directory .kcp-front-proxy --secure-port 6443',
    '<%= config.bin %> front-proxy --root-kubeconfig root.kubeconfig --mapping-file mapping.yaml',
  ],
  args: [],
  flags: [
    {
      name: 'root-kubeconfig',
      kind: 'string',
      required: true,
      description: 'kubeconfig of the root shard, with a system:masters identity (a kcpt admin.kubeconfig: its shard-base context is used).',
    },
    { name: 'root-kubeconfig-context', kind: 'string', description: 'Context of --root-kubeconfig to use (default: shard-base when present, else the current context).' },
    {
      name: 'root-directory',
      kind: 'string',
      default: '.kcp-front-proxy',
      description: 'Directory for the serving certificate (issued from ca.crt/ca.key there, shared with the shards) and admin.kubeconfig.',
    },
    { name: 'secure-port', kind: 'integer', default: 6443, min: 0, max: 65535, description: 'HTTPS port to serve on (0 picks a free port).' },
    { name: 'bind-address', kind: 'string', default: '127.0.0.1', description: 'Address to listen on; admin.kubeconfig points at it.' },
    {
      name: 'mapping-file',
      kind: 'string',
      description: "kcp's YAML list of {path, backend[, backend_server_ca]}: path prefixes sent to fixed backends; a /clusters entry keeps the workspace resolver on.",
    },
    { name: 'shards-ca-file', kind: 'string', description: 'CA the shards serve with (default: the CA of --root-kubeconfig).' },
    {
      name: 'shard-socket',
      kind: 'string',
      multiple: true,
      description:
        'NAME=PATH (repeatable): reach shard NAME over the unix socket it serves with --proxy-socket PATH, in plaintext, instead of over TLS (shards on this machine). A missing socket answers 503 for that shard.',
    },
    { name: 'tls-cert-file', kind: 'string', description: 'Serving certificate (PEM) instead of one issued from <root-directory>/ca.crt.' },
    { name: 'tls-private-key-file', kind: 'string', description: 'Private key of --tls-cert-file.' },
    { name: 'home-workspaces-root-prefix', kind: 'string', default: 'root:users', description: "The shards' home workspace prefix (for user:<name> and ~)." },
    { name: 'home-workspaces-bucket-levels', kind: 'integer', default: 2, min: 1, max: 5, description: "The shards' home bucket levels." },
    { name: 'home-workspaces-bucket-size', kind: 'integer', default: 2, min: 1, max: 4, description: "The shards' home bucket size." },
  ],
  async run({ flags, io }) {
    const [{ parseShardSockets }, { runFrontProxy }, { UsageError }] = await Promise.all([
      import('../../engine/front-proxy/shard-sockets.js'),
      import('./run-front-proxy.js'),
      import('../common/errors.js'),
    ]);
    const text = (name: string) => flags[name] as string | undefined;
    let shardSockets: Map<string, string>;
    try {
      shardSockets = parseShardSockets((flags['shard-socket'] as string[] | undefined) ?? []);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    await runFrontProxy(
      {
        rootKubeconfig: text('root-kubeconfig')!,
        rootKubeconfigContext: text('root-kubeconfig-context'),
        rootDirectory: text('root-directory')!,
        securePort: flags['secure-port'] as number,
        bindAddress: text('bind-address')!,
        mappingFile: text('mapping-file'),
        shardsCaFile: text('shards-ca-file'),
        shardSockets,
        tlsCertFile: text('tls-cert-file'),
        tlsPrivateKeyFile: text('tls-private-key-file'),
        homes: {
          prefix: text('home-workspaces-root-prefix')!,
          levels: flags['home-workspaces-bucket-levels'] as number,
          size: flags['home-workspaces-bucket-size'] as number,
        },
      },
      { log: (line) => io.out(`${line}\n`) },
    );
  },
};
