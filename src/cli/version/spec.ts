/** `kcpt version` as a command spec (run by oclif or by bin/run.js's fast path). */
import type { CommandSpec } from '../common/command-spec.js';
import { connectionFlags } from '../common/connection-flags.js';
import { outputFlag, outputOf } from '../common/output.js';

export const versionSpec: CommandSpec = {
  id: 'version',
  summary: "Print kcpt's version, and the version of the server the current kubeconfig points at.",
  description:
    'As kubectl version: the client (kcpt, Node.js, platform), then the server\'s /version (its Kubernetes version; a kcpt server says +kcpt). ' +
    'An unreachable server is an error after the client version (exit 1); --client does not ask the server.',
  examples: ['<%= config.bin %> version', '<%= config.bin %> version --client', '<%= config.bin %> version -o json'],
  args: [],
  flags: [{ name: 'client', kind: 'boolean', description: 'Only the client version; no server is asked.' }, outputFlag(), ...connectionFlags],
  async run({ flags, io }) {
    const format = outputOf(flags);
    const { runVersion } = await import('./run-version.js');
    await runVersion(io, flags, { clientOnly: flags.client === true, output: format });
  },
};
