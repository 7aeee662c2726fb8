/**
 * The @kubernetes/client-node KubeConfig a test workspace hands out. client-node is an optional peer dependency,
 * loaded on first use. Left alone, client-node makes a new https.Agent, hence a new TLS connection, for every
 * request: ~9 ms of CPU each, most of what a test's handful of requests costs. The KubeConfigs made here use the
 * control plane's keep-alive agents instead, one per TLS setting, shared by every workspace (they differ only in
 * URL path and the token travels in a header), so a test's requests reuse the connections of the tests before it.
 * The control plane destroys the agents when it stops.
 */
import type { Agent } from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeconfigDocument } from '../cli/kubeconfig/standalone-kubeconfig.js';

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
  // Another client-node line without this hook simply keeps its own agents.
  if (typeof create !== 'function') return;
  target.createAgent = (cluster, options) => {
    const server = (cluster as { server?: string } | undefined)?.server ?? '';
    const key = JSON.stringify([origin(server), options.ca, options.cert, options.key, options.rejectUnauthorized, options.servername]);
    let agent = agents.get(key);
    if (!agent) {
      agent = create(cluster, { ...options, keepAlive: true });
      agents.set(key, agent);
    }
    return agent;
  };
}

function origin(server: string): string {
  try {
    return new URL(server).origin;
  } catch {
    return server;
  }
}
