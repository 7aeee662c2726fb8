/** `kcpt completion SHELL` as a command spec: prints the shell's completion script (kubectl completion's use). */
import type { CommandSpec } from '../common/command-spec.js';
import { UsageError } from '../common/errors.js';

export const completionSpec: CommandSpec = {
  id: 'completion',
  // oclif's plugin named it autocomplete.
  hiddenAliases: ['autocomplete'],
  summary: 'Print the shell completion script for bash, zsh or fish (commands, flags, workspace names, contexts).',
  description:
    'Completes commands and flags, the workspaces of the current server where a workspace is expected (kcpt ws <TAB>, -w), ' +
    'kubeconfig contexts and output formats. The kubectl plugins complete too (kubectl ws <TAB>) through the kubectl_complete-ws it installs.',
  examples: ['source <(<%= config.bin %> completion bash)', 'source <(<%= config.bin %> completion zsh)', '<%= config.bin %> completion fish | source'],
  args: [{ name: 'shell', description: 'bash, zsh or fish.' }],
  flags: [],
  async run({ args, io }) {
    const { completionScript, setupLines, shells } = await import('./scripts.js');
    const shell = args.shell as (typeof shells)[number] | undefined;
    if (!shell || !shells.includes(shell)) {
      throw new UsageError(shell ? `no completion for shell "${shell}": bash, zsh or fish` : 'name a shell: bash, zsh or fish', ['', ...setupLines.map((l) => `  ${l}`), '']);
    }
    io.out(completionScript(shell));
  },
};
