/** `kcpt testenv` as a command spec (run by oclif or by bin/run.js's fast path); the work is in run-testenv.ts. */
import type { CommandSpec } from '../common/command-spec.js';
import { connectionFlags } from '../common/connection-flags.js';

export const testenvSpec: CommandSpec = {
  id: 'testenv',
  summary: 'Create a fresh workspace for one test and print where its kubeconfig is (for test suites in any language).',
  description: [
    'Against the server of the current kubeconfig (or the connection flags), creates a workspace with a generated name',
    'under --parent (default: the current workspace), of --type, installs the CRDs of every --crd file and waits until',
    'the workspace is Ready and the CRDs are Established. Then writes a standalone kubeconfig for it (the current',
    'credentials; mode 0600) to --kubeconfig-out (default: a file under the system temp directory) and prints the',
    'kubeconfig path, workspace path, logical cluster name and URL: as JSON (default), or with -o env as KEY=value lines',
    '(KUBECONFIG, KCPT_WORKSPACE, KCPT_CLUSTER_NAME, KCPT_URL) for `export $(kcpt testenv -o env)` or a dotenv file.',
  ].join(' '),
  examples: [
    '<%= config.bin %> testenv --crd config/crd/widgets.yaml',
    'export $(<%= config.bin %> testenv -o env --parent root:ci) && go test ./...',
    '<%= config.bin %> testenv --type universal --kubeconfig-out ./test.kubeconfig -o json',
  ],
  args: [],
  flags: [
    { name: 'parent', kind: 'string', description: 'Workspace to create the test workspace in (default: the current one).' },
    { name: 'type', kind: 'string', description: 'Workspace type, e.g. universal or root:organization (default: the parent\'s default child type).' },
    { name: 'crd', kind: 'string', multiple: true, description: 'A YAML/JSON file of CustomResourceDefinitions to install (repeatable).' },
    { name: 'kubeconfig-out', kind: 'string', description: 'Where to write the workspace\'s kubeconfig (default: under the system temp directory).' },
    { name: 'output', char: 'o', kind: 'string', options: ['json', 'env'], description: 'json (default) or env (KEY=value lines).' },
    ...connectionFlags,
  ],
  async run({ flags, io }) {
    const { runTestenv } = await import('./run-testenv.js');
    await runTestenv(io, flags);
  },
};
