import { Flags } from '@oclif/core';
import { UsageError } from '../src/cli/common/errors.js';
import { KcptCommand } from '../src/cli/common/kcpt-command.js';
import { parseShardSockets } from '../src/engine/front-proxy/shard-sockets.js';
import { runFrontProxy } from '../src/cli/front-proxy/run-front-proxy.js';

export default class FrontProxy extends KcptCommand {
  static override summary = 'Run the front-proxy: one URL for every shard, routing /clusters/<path> to the shard that hosts it.';

  static override description =
    'Watches the Shards in root and the Workspaces and LogicalClusters on every shard, resolves each request\'s workspace path ' +
    'segment by segment, and forwards it, with the caller\'s Authorization header, to the shard hosting that workspace. ' +
    'Unknown paths answer 403 "workspace access not permitted", workspaces on a shard that is down 503 "Not available.", as kcp\'s front-proxy does.';

  static override examples = [
    '<%= config.bin %> front-proxy --root-kubeconfig .kcp/admin.kubeconfig --root-directory .kcp-front-proxy --secure-port 6443',
    '<%= config.bin %> front-proxy --root-kubeconfig root.kubeconfig --mapping-file mapping.yaml',
  ];

  static override flags = {
    'root-kubeconfig': Flags.string({ required: true, description: 'kubeconfig of the root shard, with a system:masters identity (a kcpt admin.kubeconfig: its shard-base context is used).' }),
    'root-kubeconfig-context': Flags.string({ description: 'Context of --root-kubeconfig to use (default: shard-base when present, else the current context).' }),
    'root-directory': Flags.string({ default: '.kcp-front-proxy', description: 'Directory for the serving certificate (issued from ca.crt/ca.key there, shared with the shards) and admin.kubeconfig.' }),
    'secure-port': Flags.integer({ default: 6443, min: 0, max: 65535, description: 'HTTPS port to serve on (0 picks a free port).' }),
    'bind-address': Flags.string({ default: '127.0.0.1', description: 'Address to listen on; admin.kubeconfig points at it.' }),
    'mapping-file': Flags.string({ description: 'kcp\'s YAML list of {path, backend[, backend_server_ca]}: path prefixes sent to fixed backends; a /clusters entry keeps the workspace resolver on.' }),
    'shards-ca-file': Flags.string({ description: 'CA the shards serve with (default: the CA of --root-kubeconfig).' }),
    'shard-socket': Flags.string({
      multiple: true,
      description:
        'NAME=PATH (repeatable): reach shard NAME over the unix socket it serves with --proxy-socket PATH, in plaintext, instead of over TLS (shards on this machine). A missing socket answers 503 for that shard.',
    }),
    'tls-cert-file': Flags.string({ description: 'Serving certificate (PEM) instead of one issued from <root-directory>/ca.crt.' }),
    'tls-private-key-file': Flags.string({ description: 'Private key of --tls-cert-file.' }),
    'home-workspaces-root-prefix': Flags.string({ default: 'root:users', description: 'The shards\' home workspace prefix (for user:<name> and ~).' }),
    'home-workspaces-bucket-levels': Flags.integer({ default: 2, min: 1, max: 5, description: 'The shards\' home bucket levels.' }),
    'home-workspaces-bucket-size': Flags.integer({ default: 2, min: 1, max: 4, description: 'The shards\' home bucket size.' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(FrontProxy);
    let shardSockets: Map<string, string>;
    try {
      shardSockets = parseShardSockets(flags['shard-socket'] ?? []);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    await runFrontProxy(
      {
        rootKubeconfig: flags['root-kubeconfig'],
        rootKubeconfigContext: flags['root-kubeconfig-context'],
        rootDirectory: flags['root-directory'],
        securePort: flags['secure-port'],
        bindAddress: flags['bind-address'],
        mappingFile: flags['mapping-file'],
        shardsCaFile: flags['shards-ca-file'],
        shardSockets,
        tlsCertFile: flags['tls-cert-file'],
        tlsPrivateKeyFile: flags['tls-private-key-file'],
        homes: {
          prefix: flags['home-workspaces-root-prefix'],
          levels: flags['home-workspaces-bucket-levels'],
          size: flags['home-workspaces-bucket-size'],
        },
      },
      { log: (line) => this.log(line) },
    );
  }
}
