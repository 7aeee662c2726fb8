/**
 * The @kubernetes/client-node KubeConfig a test workspace hands out. client-node is an optional peer dependency,
 * loaded on first use. Left alone, client-node makes a new https.Agent, hence a new TLS connection, for every
 * request: ~9 ms of CPU each, most of what a test's handful of requests costs. The KubeConfigs made here use the
 * control plane's keep-alive agents instead, one per TLS setting, shared by every workspace (they differ only in
 * URL path and the token travels in a header), so a test's requests reuse the connections of the tests before it.
 * The control plane destroys the agents when it stops.
 */
import type { Agent } from 'node:http';
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeconfigDocument } from '../client/standalone-kubeconfig.js';

export type SharedAgents = Map<string, Agent>;

type AgentFactory = (cluster: unknown, options: Record<string, unknown>) => Agent;

export async function loadKubeConfig(object: KubeconfigDocument, agents: SharedAgents): Promise<KubeConfig> {
  let clientNode: typeof import('@kubernetes/client-node');
  try {
    clientNode = await import('@kubernetes/client-node');
  } catch (err) {
    throw new Error(`kubeConfig() needs @kubernetes/client-node: npm install --save-dev @kubernetes/client-node (${(err as Error).message})`);
  }
  const kc = new clientNode.KubeConfig();
  kc.loadFromString(JSON.stringify(object));
  useSharedAgents(kc, agents);
  return kc;
}

function useSharedAgents(kc: KubeConfig, agents: SharedAgents): void {
  const target = kc as unknown as { createAgent?: AgentFactory };
  const create = target.createAgent?.bind(kc);
  if (typeof create !== 'function') return;
  target.createAgent = (cluster, options) => {
    // Asked for on every request: the key is plain text (JSON of a CA Buffer is a list of a thousand numbers).
    const server = (cluster as { server?: string } | undefined)?.server ?? '';
    const key = [origin(server), text(options.ca), text(options.cert), text(options.key), options.rejectUnauthorized, options.servername].join('\0');
    let agent = agents.get(key);
    if (!agent) {
      // One TLS context for all the agent's connections: left to itself, every new connection (a watch per test
      // holds its own) builds a context and loads the CA into a fresh certificate store, ~1 ms of CPU each.
      const tlsOptions = { ca: options.ca, cert: options.cert, key: options.key } as SecureContextOptions;
      agent = create(cluster, { ...options, keepAlive: true, secureContext: createSecureContext(tlsOptions) });
      agents.set(key, agent);
    }
    return agent;
  };
}

function text(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (Buffer.isBuffer(value)) return value.toString('latin1');
  if (Array.isArray(value)) return value.map(text).join('\0');
  return String(value);
}

/** `https://host:port` of a server URL (workspaces differ only in the path after it). */
function origin(server: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(server)?.[0].toLowerCase() ?? server;
}
