/**
 * What a server-facing command works with: the resolved kubeconfig and a REST client for it. close() must run when
 * the command ends (the client keeps its TLS connection alive for the command's several requests).
 */
import { connectionFlagValues } from './connection-flags.js';
import { resolveConfig, type ResolvedConfig } from './connection.js';
import type { FlagValues } from './command-spec.js';
import { KubeClient } from '../../client/http-client.js';
import { clusterUrl } from '../../client/workspace-path.js';
import { resolveWorkspace } from './workspace-target.js';

export interface Session {
  config: ResolvedConfig;
  client: KubeClient;
}

/**
 * Resolves the kubeconfig from the connection flags (and `-w/--workspace`, when the command has it, in the one
 * grammar of workspace-target.ts) and opens a client; runs `body`, then closes the client.
 */
export async function withSession<T>(flags: FlagValues, body: (session: Session) => Promise<T>): Promise<T> {
  const config = resolveConfig(connectionFlagValues(flags));
  const client = new KubeClient(config.connection);
  try {
    if (typeof flags.workspace === 'string' && flags.workspace !== '') {
      const path = await resolveWorkspace(client, config.connection.server, flags.workspace);
      config.connection.server = clusterUrl(new URL(client.baseUrl), path);
    }
    return await body({ config, client });
  } finally {
    client.close();
  }
}
