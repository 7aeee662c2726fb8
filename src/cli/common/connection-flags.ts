/**
 * The kubectl connection flags kcp's plugins accept (they drop --client-certificate, --client-key, --as, --as-group
 * and --request-timeout; kcpt keeps --cluster as kubectl has it), and kcp's `-w/--workspace`.
 */
import type { FlagSpec, FlagValues } from './command-spec.js';
import type { ConnectionFlags } from './connection.js';

const global = 'GLOBAL';

export const connectionFlags: FlagSpec[] = [
  { name: 'kubeconfig', kind: 'string', helpGroup: global, description: 'Path to the kubeconfig file (default: KUBECONFIG, else ~/.kube/config).' },
  { name: 'context', kind: 'string', helpGroup: global, description: 'The name of the kubeconfig context to use.' },
  { name: 'cluster', kind: 'string', helpGroup: global, description: 'The name of the kubeconfig cluster to use.' },
  { name: 'user', kind: 'string', helpGroup: global, description: 'The name of the kubeconfig user to use.' },
  { name: 'server', char: 's', kind: 'string', helpGroup: global, description: 'The address and port of the Kubernetes API server.' },
  { name: 'token', kind: 'string', helpGroup: global, description: 'Bearer token for authentication to the API server.' },
  { name: 'username', kind: 'string', helpGroup: global, hidden: true, description: 'Username for basic authentication to the API server.' },
  { name: 'password', kind: 'string', helpGroup: global, hidden: true, description: 'Password for basic authentication to the API server.' },
  { name: 'certificate-authority', kind: 'string', helpGroup: global, description: 'Path to a cert file for the certificate authority.' },
  {
    name: 'insecure-skip-tls-verify',
    kind: 'boolean',
    helpGroup: global,
    description: "If true, the server's certificate will not be checked for validity.",
  },
  { name: 'tls-server-name', kind: 'string', helpGroup: global, description: 'Server name to use for server certificate validation.' },
];

export const workspaceFlag: FlagSpec = {
  name: 'workspace',
  char: 'w',
  kind: 'string',
  description: "Workspace to run in instead of the current one: ':root:a' absolute, 'a:b' relative, '..' the parent.",
};

/** The connection part of parsed flag values. */
export function connectionFlagValues(flags: FlagValues): ConnectionFlags {
  const out: Record<string, string | boolean> = {};
  for (const spec of connectionFlags) {
    const value = flags[spec.name];
    if (value !== undefined && !Array.isArray(value) && typeof value !== 'number') out[spec.name] = value;
  }
  return out as ConnectionFlags;
}
