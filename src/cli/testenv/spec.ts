/** `kcpt testenv` and `kcpt testenv delete` as command specs (run by oclif or by bin/run.js's fast path). */
import type { CommandSpec } from '../common/command-spec.js';
import { connectionFlags } from '../common/connection-flags.js';
import { dataOutputs, outputFlag, outputOf } from '../common/output.js';

export const testenvOutputs = [...dataOutputs, 'env'] as const;

export const testenvSpec: CommandSpec = {
  id: 'testenv',
  summary: 'Create a fresh workspace for one test and print where its kubeconfig is (for test suites in any language).',
  description: [
    'Against the server of the current kubeconfig (or the connection flags), creates a workspace with a generated name',
    '(testenv-…) under --parent (default: the current workspace), of --type, installs the CRDs of every --crd file and waits',
    'until the workspace is Ready and the CRDs are Established. Then writes a standalone kubeconfig for it (the current',
    'credentials; mode 0600) to --kubeconfig-out (default: a file in a private directory under the system temp directory)',
    'and prints the kubeconfig path, workspace path, logical cluster name and URL: as JSON (default), or with -o env as',
    'KEY=value lines (KUBECONFIG, KCPT_WORKSPACE, KCPT_CLUSTER_NAME, KCPT_URL) for `export $(kcpt testenv -o env)` or a',
    "dotenv file. 'kcpt testenv delete' removes the workspace and the kubeconfig again.",
  ].join(' '),
  examples: [
    '<%= config.bin %> testenv --crd config/crd/widgets.yaml',
    'export $(<%= config.bin %> testenv -o env --parent root:ci) && go test ./... ; <%= config.bin %> testenv delete',
    '<%= config.bin %> testenv --type universal --kubeconfig-out ./test.kubeconfig -o jsonpath={.kubeconfig}',
  ],
  args: [],
  flags: [
    { name: 'parent', kind: 'string', description: "Workspace to create the test workspace in (default: the current one; '~' for your home)." },
    { name: 'type', kind: 'string', description: 'Workspace type, e.g. universal or root:organization (default: the parent\'s default child type).' },
    { name: 'crd', kind: 'string', multiple: true, description: 'A YAML/JSON file of CustomResourceDefinitions to install (repeatable).' },
    { name: 'kubeconfig-out', kind: 'string', description: 'Where to write the workspace\'s kubeconfig (default: under the system temp directory).' },
    outputFlag(testenvOutputs, 'Default: json.'),
    ...connectionFlags,
  ],
  async run({ flags, io }) {
    const format = outputOf(flags, testenvOutputs) ?? { kind: 'json' };
    const { runTestenv } = await import('./run-testenv.js');
    await runTestenv(io, flags, format);
  },
};

export const testenvDeleteSpec: CommandSpec = {
  id: 'testenv delete',
  summary: "Delete a test workspace made by 'kcpt testenv' and the kubeconfig file that reaches it.",
  description: [
    'FILE is the kubeconfig kcpt testenv wrote (default: $KUBECONFIG, as `export $(kcpt testenv -o env)` sets it). Its',
    'workspace is deleted with the credentials in it, then the file is removed. Only workspaces kcpt testenv names',
    '(testenv-…) are deleted. --all does this for every kubeconfig in the default directory.',
  ].join(' '),
  examples: ['<%= config.bin %> testenv delete', '<%= config.bin %> testenv delete ./test.kubeconfig', '<%= config.bin %> testenv delete --all'],
  args: [{ name: 'file', description: 'The kubeconfig kcpt testenv wrote (default: $KUBECONFIG).' }],
  flags: [{ name: 'all', kind: 'boolean', description: "Every kubeconfig in kcpt testenv's default directory." }, outputFlag()],
  async run({ args, flags, io }) {
    const format = outputOf(flags);
    const { runTestenvDelete } = await import('./delete-testenv.js');
    await runTestenvDelete(io, { file: args.file, all: flags.all === true, output: format });
  },
};
