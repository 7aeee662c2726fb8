/**
 * The `kcpt ws` commands as specs (flags, arguments, run). Cheap to import: each run loads its implementation
 * with `await import()`, so the fast path pays only for the command it runs.
 */
import type { CommandSpec, FlagSpec, FlagValues } from '../common/command-spec.js';
import { connectionFlags, workspaceFlag } from '../common/connection-flags.js';
import { outputFlag, type OutputFormat } from '../common/output.js';

const shortFlag: FlagSpec = { name: 'short', kind: 'boolean', description: 'Print only the name of the workspace, e.g. for integration into the shell prompt.' };
const output = (flags: FlagValues) => flags.output as OutputFormat | undefined;

const useRun: CommandSpec['run'] = async ({ args, flags, io }) => {
  const [{ withSession }, { useWorkspace }] = await Promise.all([import('../common/session.js'), import('./use.js')]);
  await withSession(flags, (s) => useWorkspace(s, io, { name: args.workspace ?? '', short: flags.short === true, output: output(flags) }));
};

export const wsSpec: CommandSpec = {
  id: 'ws',
  summary: 'Show or change the current workspace (no argument: go to your home workspace).',
  description:
    "Arguments: ':root:a' (absolute), 'a:b' (relative), '..' (parent), '-' (previous), '~' or '~:sub' (home), ':' (root of the current tree), '.' (print current).",
  examples: [
    '<%= config.bin %> ws .',
    '<%= config.bin %> ws :root:org',
    '<%= config.bin %> ws team',
    '<%= config.bin %> ws ..',
    '<%= config.bin %> ws -',
    "<%= config.bin %> ws '~'",
  ],
  args: [{ name: 'workspace', description: 'Workspace to enter.' }],
  flags: [shortFlag, outputFlag, ...connectionFlags],
  run: useRun,
};

export const wsUseSpec: CommandSpec = {
  id: 'ws use',
  aliases: ['ws cd'],
  summary: "Use the given workspace as the current one: '-' previous, '..' parent, '.' current, '~' home.",
  examples: ['<%= config.bin %> ws use :root:org:team', '<%= config.bin %> ws cd ..'],
  args: [{ name: 'workspace', description: 'Workspace to enter.', required: true }],
  flags: [shortFlag, outputFlag, ...connectionFlags],
  run: useRun,
};

export const wsCurrentSpec: CommandSpec = {
  id: 'ws current',
  summary: "Print the current workspace. Same as 'kcpt ws .'.",
  examples: ['<%= config.bin %> ws current', '<%= config.bin %> ws current --short'],
  args: [],
  flags: [shortFlag, outputFlag, ...connectionFlags],
  run: async ({ flags, io }) => {
    const [{ resolveConfig }, { connectionFlagValues }, { printCurrentWorkspace }] = await Promise.all([
      import('../common/connection.js'),
      import('../common/connection-flags.js'),
      import('./current-workspace.js'),
    ]);
    const config = resolveConfig(connectionFlagValues(flags));
    await printCurrentWorkspace(io, config.connection.server, { short: flags.short === true, output: output(flags) });
  },
};

export const wsSpecs: CommandSpec[] = [wsSpec, wsUseSpec, wsCurrentSpec];
