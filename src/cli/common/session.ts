/**
 * What a server-facing command works with: the resolved kubeconfig and a REST client for it. close() must run when
 * the command ends (the client keeps its TLS connection alive for the command's several requests).
 */
import { connectionFlagValues } from './connection-flags.js';
import { resolveConfig, type ResolvedConfig } from './connection.js';
import type { FlagValues } from './command-spec.js';
import { KubeClient } from './http-client.js';
import { serverForWorkspace } from './workspace-path.js';

export interface Session {
  config: ResolvedConfig;
  client: KubeClient;
}

/**
 * Resolves the kubeconfig from the connection flags (and `-w/--workspace`, when the command has it) and opens a
 * client; runs `body`, then closes the client.
 */
export async function withSession<T>(flags: FlagValues, body: (session: Session) => Promise<T>): Promise<T> {
  const config = resolveConfig(connectionFlagValues(flags));
  if (typeof flags.workspace === 'string' && flags.workspace !== '') {
    config.connection.server = serverForWorkspace(config.connection.server, flags.workspace);
  }
  const client = new KubeClient(config.connection);
  try {
    return await body({ config, client });
  } finally {
    client.close();
  }
}
