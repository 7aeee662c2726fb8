/**
 * The kubectl connection flags kcp's plugins keep, and how they combine with a kubeconfig into one connection
 * (client-go's DirectClientConfig rules: a flag overrides the field it names; `--context`, `--cluster` and `--user`
 * pick entries by name).
 */
import { readFileSync } from 'node:fs';
import type { Connection } from '../../client/connection.js';
import { CliError } from './errors.js';
import { Kubeconfig, type KubeCluster, type KubeContext, type KubeUser } from './kubeconfig.js';

export interface ConnectionFlags {
  kubeconfig?: string;
  context?: string;
  cluster?: string;
  user?: string;
  server?: string;
  token?: string;
  'certificate-authority'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'tls-server-name'?: string;
  username?: string;
  password?: string;
}

/** The kubeconfig and the names the flags picked, before any network use. */
export interface ResolvedConfig {
  kubeconfig: Kubeconfig;
  /** The context in use (`--context` or current-context); '' when none. */
  contextName: string;
  context: KubeContext | undefined;
  clusterName: string;
  cluster: KubeCluster | undefined;
  userName: string;
  connection: Connection;
}

export function resolveConfig(flags: ConnectionFlags, env: NodeJS.ProcessEnv = process.env): ResolvedConfig {
  const kubeconfig = Kubeconfig.load({ explicitPath: flags.kubeconfig, envValue: env.KUBECONFIG });
  const contextName = flags.context ?? kubeconfig.currentContext;
  const contextEntry = contextName ? kubeconfig.contexts.get(contextName) : undefined;
  if (flags.context && !contextEntry) throw new CliError(`context "${flags.context}" does not exist`);
  const context = contextEntry?.value;
  const clusterName = flags.cluster ?? context?.cluster ?? '';
  const clusterEntry = clusterName ? kubeconfig.clusters.get(clusterName) : undefined;
  if (flags.cluster && !clusterEntry) throw new CliError(`cluster "${flags.cluster}" does not exist`);
  const userName = flags.user ?? context?.user ?? '';
  const userEntry = userName ? kubeconfig.users.get(userName) : undefined;
  if (flags.user && !userEntry) throw new CliError(`auth info "${flags.user}" does not exist`);

  const cluster = clusterEntry?.value ?? {};
  const user: KubeUser = userEntry?.value ?? {};
  const server = flags.server ?? cluster.server;
  if (!server) {
    throw new CliError(
      'no server found: set current-context in a kubeconfig (KUBECONFIG or --kubeconfig), or pass --server; `kcpt start` writes admin.kubeconfig',
    );
  }
  if (user.exec || user['auth-provider']) {
    throw new CliError(`user "${userName}" uses an exec or auth-provider credential plugin, which kcpt does not run; use a token or client certificate`);
  }

  const fromCluster = (ref: string) => Kubeconfig.resolveReference(clusterEntry!.origin, ref);
  const fromUser = (ref: string) => Kubeconfig.resolveReference(userEntry!.origin, ref);
  const connection: Connection = {
    server,
    insecureSkipTLSVerify: flags['insecure-skip-tls-verify'] ?? cluster['insecure-skip-tls-verify'] ?? false,
    tlsServerName: flags['tls-server-name'] ?? cluster['tls-server-name'],
  };
  if (flags['certificate-authority']) connection.ca = readPem(flags['certificate-authority'], 'certificate-authority');
  else if (cluster['certificate-authority-data']) connection.ca = Buffer.from(cluster['certificate-authority-data'], 'base64');
  else if (cluster['certificate-authority']) connection.ca = readPem(fromCluster(cluster['certificate-authority']), 'certificate-authority');

  if (flags.token) connection.token = flags.token;
  else if (flags.username || flags.password) connection.basicAuth = { username: flags.username ?? '', password: flags.password ?? '' };
  else if (user.token) connection.token = user.token;
  else if (user.tokenFile) connection.token = readPem(fromUser(user.tokenFile), 'tokenFile').toString('utf8').trim();
  else if (user.username || user.password) connection.basicAuth = { username: user.username ?? '', password: user.password ?? '' };

  if (!flags.token) {
    if (user['client-certificate-data']) connection.clientCert = Buffer.from(user['client-certificate-data'], 'base64');
    else if (user['client-certificate']) connection.clientCert = readPem(fromUser(user['client-certificate']), 'client-certificate');
    if (user['client-key-data']) connection.clientKey = Buffer.from(user['client-key-data'], 'base64');
    else if (user['client-key']) connection.clientKey = readPem(fromUser(user['client-key']), 'client-key');
  }

  return {
    kubeconfig,
    contextName,
    context,
    clusterName,
    cluster: clusterEntry?.value,
    userName,
    connection,
  };
}

function readPem(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new CliError(`unable to read ${what} file ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}
