/**
 * The `kcpt ws` commands as specs (flags, arguments, run). Cheap to import: each run loads its implementation
 * with `await import()`, so the fast path pays only for the command it runs.
 */
import type { CommandSpec, FlagSpec, FlagValues } from '../common/command-spec.js';
import { connectionFlags, workspaceFlag } from '../common/connection-flags.js';
import { dataOutputs, objectOutputs, outputFlag, outputOf, tableOutputs } from '../common/output.js';

const shortFlag: FlagSpec = { name: 'short', kind: 'boolean', description: 'Print only the name of the workspace, e.g. for integration into the shell prompt.' };
const output = (flags: FlagValues) => outputOf(flags, dataOutputs);
const interactiveFlag: FlagSpec = {
  name: 'interactive',
  char: 'i',
  kind: 'boolean',
  description: "Browse the workspace tree interactively (same as 'kcpt tui'); prints the tree when not in a terminal.",
};

/** The browser (src/tui, loaded only here and only in a terminal) or, without a terminal, the static tree. */
const browseRun: CommandSpec['run'] = async ({ flags, io }) => {
  const [{ withSession }, { browseOrPrintTree }] = await Promise.all([import('../common/session.js'), import('./browse.js')]);
  await withSession(flags, (s) => browseOrPrintTree(s, io));
};

const useRun: CommandSpec['run'] = async (input) => {
  const { args, flags, io } = input;
  if (flags.interactive === true) return browseRun(input);
  const format = output(flags);
  const [{ withSession }, { useWorkspace }] = await Promise.all([import('../common/session.js'), import('./use.js')]);
  await withSession(flags, (s) => useWorkspace(s, io, { name: args.workspace ?? '', short: flags.short === true, output: format }));
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
  flags: [shortFlag, interactiveFlag, outputFlag(), ...connectionFlags],
  run: useRun,
};

export const wsUseSpec: CommandSpec = {
  id: 'ws use',
  aliases: ['ws cd'],
  summary: "Use the given workspace as the current one: '-' previous, '..' parent, '.' current, '~' home.",
  examples: ['<%= config.bin %> ws use :root:org:team', '<%= config.bin %> ws cd ..'],
  args: [{ name: 'workspace', description: 'Workspace to enter.', required: true }],
  flags: [shortFlag, outputFlag(), ...connectionFlags],
  run: useRun,
};

export const wsCurrentSpec: CommandSpec = {
  id: 'ws current',
  summary: "Print the current workspace. Same as 'kcpt ws .'.",
  examples: ['<%= config.bin %> ws current', '<%= config.bin %> ws current --short'],
  args: [],
  flags: [shortFlag, outputFlag(), ...connectionFlags],
  run: (input) => useRun({ ...input, args: { workspace: '.' } }),
};

export const wsTreeSpec: CommandSpec = {
  id: 'ws tree',
  summary: 'Print the workspace tree below the current workspace.',
  examples: ['<%= config.bin %> ws tree', '<%= config.bin %> ws tree --full --wide', '<%= config.bin %> ws tree -w :root -o json'],
  args: [],
  flags: [
    { name: 'full', char: 'f', kind: 'boolean', description: 'Show full workspace names.' },
    { name: 'wide', kind: 'boolean', description: 'Show the phases of each Workspace (ws=) and LogicalCluster (lc=).' },
    interactiveFlag,
    workspaceFlag,
    outputFlag(),
    ...connectionFlags,
  ],
  run: async (input) => {
    const { flags, io } = input;
    if (flags.interactive === true) return browseRun(input);
    const format = output(flags);
    const [{ withSession }, { showTree }] = await Promise.all([import('../common/session.js'), import('./tree.js')]);
    await withSession(flags, (s) => showTree(s, io, { full: flags.full === true, wide: flags.wide === true, output: format }));
  },
};

export const wsListSpec: CommandSpec = {
  id: 'ws list',
  summary: 'List every workspace you can enter, with its path, type and phase.',
  examples: ['<%= config.bin %> ws list', '<%= config.bin %> ws list -o json'],
  args: [],
  flags: [outputFlag(tableOutputs, 'Without it, a table of path, type and phase.'), ...connectionFlags],
  run: async ({ flags, io }) => {
    const format = outputOf(flags, tableOutputs);
    const [{ withSession }, { listWorkspaces }] = await Promise.all([import('../common/session.js'), import('./list.js')]);
    await withSession(flags, (s) => listWorkspaces(s, io, { output: format }));
  },
};

export const wsCreateSpec: CommandSpec = {
  id: 'ws create',
  summary: 'Create a workspace in the current workspace and wait until it is ready.',
  examples: [
    '<%= config.bin %> ws create org --enter',
    '<%= config.bin %> ws create team --type universal --enter',
    '<%= config.bin %> ws create ci --type root:universal --ignore-existing --create-context ci',
  ],
  args: [{ name: 'name', description: 'Name of the new workspace (asked for in a terminal when missing).' }],
  flags: [
    { name: 'type', kind: 'string', description: 'A workspace type. The default type depends on where this child workspace is created.' },
    { name: 'enter', kind: 'boolean', description: 'Immediately enter the created workspace.' },
    {
      name: 'ignore-existing',
      kind: 'boolean',
      description: 'Ignore if the workspace already exists. Requires none or absolute type path. Overwrites the context if --create-context is set.',
    },
    { name: 'location-selector', kind: 'string', description: 'A label selector to select the scheduling location of the created workspace.' },
    { name: 'create-context', kind: 'string', description: 'Create a kubeconfig context for the new workspace with the given name.' },
    workspaceFlag,
    outputFlag(objectOutputs, 'Then progress lines go to stderr.'),
    ...connectionFlags,
  ],
  run: async ({ args, flags, io }) => {
    const format = outputOf(flags, objectOutputs);
    const [{ withSession }, { createWorkspaceCommand }, { askForMissing }] = await Promise.all([
      import('../common/session.js'),
      import('./create.js'),
      import('../common/prompt.js'),
    ]);
    const name =
      args.name ??
      (await askForMissing(io, {
        what: 'workspace name (argument NAME)',
        message: 'Name of the new workspace:',
        validate: (v) => /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(v) || 'lower-case letters, digits and dashes, starting and ending with a letter or digit',
      }));
    await withSession(flags, (s) =>
      createWorkspaceCommand(s, io, {
        name,
        type: flags.type as string | undefined,
        enter: flags.enter === true,
        ignoreExisting: flags['ignore-existing'] === true,
        locationSelector: flags['location-selector'] as string | undefined,
        createContext: flags['create-context'] as string | undefined,
        output: format,
      }),
    );
  },
};

export const wsCreateContextSpec: CommandSpec = {
  id: 'ws create-context',
  summary: 'Create a kubeconfig context for the current workspace and switch to it.',
  examples: ['<%= config.bin %> ws create-context', '<%= config.bin %> ws create-context my-team --overwrite'],
  args: [{ name: 'name', description: 'Name of the context (default: the current workspace path).' }],
  flags: [{ name: 'overwrite', kind: 'boolean', description: 'Overwrite the context if it already exists.' }, outputFlag(), ...connectionFlags],
  run: async ({ args, flags, io }) => {
    const [{ resolveConfig }, { connectionFlagValues }, { runCreateContext }] = await Promise.all([
      import('../common/connection.js'),
      import('../common/connection-flags.js'),
      import('./create-context.js'),
    ]);
    const config = resolveConfig(connectionFlagValues(flags));
    await runCreateContext(config, io, { name: args.name, overwrite: flags.overwrite === true, output: output(flags) });
  },
};

export const tuiSpec: CommandSpec = {
  id: 'tui',
  summary: 'Browse, watch and act on the workspace tree in a full-screen terminal UI.',
  description:
    'Starts at the current workspace. Enter switches to the selected workspace (as ws use); c creates, d deletes, b binds an APIExport, / filters, ? lists every key. Outside a terminal it prints the workspace tree.',
  examples: ['<%= config.bin %> tui', '<%= config.bin %> tui -w :root:org', '<%= config.bin %> ws tree -i'],
  args: [],
  flags: [workspaceFlag, ...connectionFlags],
  run: browseRun,
};

export const wsSpecs: CommandSpec[] = [wsSpec, wsUseSpec, wsCurrentSpec, wsTreeSpec, wsListSpec, wsCreateSpec, wsCreateContextSpec, tuiSpec];
