/** `kcpt kubeconfig` as a command spec (run by oclif or by bin/run.js's fast path); the work is in run-kubeconfig.ts. */
import type { CommandSpec } from '../common/command-spec.js';
import { connectionFlags } from '../common/connection-flags.js';

export const kubeconfigSpec: CommandSpec = {
  id: 'kubeconfig',
  summary: 'Write a standalone kubeconfig for one workspace and one user or service account (for CI jobs and per-tenant tools).',
  description: [
    'The kubeconfig has a single cluster (the workspace URL, with the CA embedded), context and user, and works with no other kubeconfig.',
    "The workspace is absolute (root:org:team or :root:org:team) or relative to the current one (team, ..); no argument means the current workspace;",
    "~ (or ~:sub) is the home workspace of the user whose credentials are used, user:NAME (or user:NAME:sub) that user's home.",
    'Credentials: --user NAME takes that user from the current kubeconfig, or names the user whose token --token gives;',
    'without either, the current context\'s user. --service-account NAMESPACE/NAME instead asks the server for a token of that',
    'service account in the workspace (TokenRequest, made with the current credentials; --duration sets its lifetime).',
    'Before writing, the credentials are tried against the workspace. -o FILE writes the file (mode 0600); -o json|yaml, or no -o, prints it.',
  ].join(' '),
  examples: [
    '<%= config.bin %> kubeconfig root:org:team --user alice -o team.kubeconfig',
    "<%= config.bin %> kubeconfig '~' --user bob --token \"$BOB_TOKEN\" -o bob-home.kubeconfig",
    '<%= config.bin %> kubeconfig root:org:team --user bob --token "$BOB_TOKEN" -o bob.kubeconfig',
    '<%= config.bin %> kubeconfig root:org:team --service-account default/ci --duration 2h -o ci.kubeconfig',
    '<%= config.bin %> kubeconfig :root:org --server https://127.0.0.1:6443 --certificate-authority .kcp/ca.crt --token "$TOKEN"',
  ],
  args: [{ name: 'workspace', description: 'Workspace the kubeconfig points at (default: the current one; ~ and user:NAME for a home).' }],
  flags: [
    {
      name: 'output',
      char: 'o',
      kind: 'string',
      description: 'A file to write the kubeconfig to, or json|yaml to print it in that format (default: print YAML).',
    },
    { name: 'service-account', kind: 'string', description: 'NAMESPACE/NAME of a service account in the workspace to issue a token for.' },
    { name: 'duration', kind: 'string', description: 'Lifetime of a --service-account token, e.g. 1h or 30m (default: the server\'s, 1h).' },
    { name: 'namespace', char: 'n', kind: 'string', description: 'Namespace of the kubeconfig\'s context (default: the service account\'s, else none).' },
    ...connectionFlags,
  ],
  async run({ args, flags, io }) {
    const { runKubeconfig } = await import('./run-kubeconfig.js');
    await runKubeconfig(io, args.workspace, flags);
  },
};
