/**
 * `kcpt stop`, `kcpt status` and `kcpt logs` as command specs (run by oclif or by bin/run.js's fast path). Cheap to
 * import: each run loads its implementation with `await import()`.
 */
import type { CommandSpec, FlagSpec, FlagValues } from '../common/command-spec.js';
import { UsageError } from '../common/errors.js';
import { dataOutputs, outputFlag, outputOf, tableOutputs } from '../common/output.js';
import { ROOT_DIRECTORY_ENV } from '../start/flags.js';

const defaultRootDirectory = '.kcp';

/** --root-directory of the commands that find a server by its directory; $KCPT_ROOT_DIRECTORY stands in for it. */
export const rootDirectoryFlag: FlagSpec = {
  name: 'root-directory',
  kind: 'string',
  env: ROOT_DIRECTORY_ENV,
  description: `Root directory of the server, as given to kcpt start (default: $${ROOT_DIRECTORY_ENV}, else ${defaultRootDirectory}).`,
};

const rootDirectory = (flags: FlagValues) => (flags['root-directory'] as string | undefined) ?? defaultRootDirectory;
const output = (flags: FlagValues) => outputOf(flags);

export const stopSpec: CommandSpec = {
  id: 'stop',
  summary: 'Stop the kcpt server running in a root directory (SIGTERM, then SIGKILL after --timeout).',
  description: 'Exits 0 when no server is running there, so cleanup steps can always call it.',
  examples: ['<%= config.bin %> stop', '<%= config.bin %> stop --root-directory /tmp/kcpt --timeout 10s'],
  args: [],
  flags: [
    rootDirectoryFlag,
    { name: 'timeout', kind: 'string', description: 'How long to wait after SIGTERM before SIGKILL, e.g. 10s or 1m (default 30s).' },
    outputFlag(),
  ],
  async run({ flags, io }) {
    const { runStop } = await import('./stop-server.js');
    await runStop(io, { rootDirectory: rootDirectory(flags), timeout: (flags.timeout as string | undefined) ?? '30s', output: output(flags) });
  },
};

export const statusSpec: CommandSpec = {
  id: 'status',
  summary: 'Show whether a kcpt server runs in a root directory: URL, pid, uptime, workspace count; --all lists every one.',
  description:
    'Exits 0 when the server is running and ready, 1 otherwise (so scripts can test it). With --all: every root directory ' +
    'kcpt was started in (as this user), running or not, and exit 0.',
  examples: ['<%= config.bin %> status', '<%= config.bin %> status --root-directory /tmp/kcpt -o json', '<%= config.bin %> status --all'],
  args: [],
  flags: [
    rootDirectoryFlag,
    { name: 'all', char: 'A', kind: 'boolean', description: 'Every root directory kcpt was started in, as a table (-o wide adds the kubeconfig).' },
    outputFlag(tableOutputs.filter((k) => k !== 'name')),
  ],
  async run({ flags, io }) {
    const { runStatus, runStatusAll } = await import('./server-status.js');
    if (flags.all === true) {
      if (flags['root-directory'] !== undefined && process.env[ROOT_DIRECTORY_ENV] !== flags['root-directory']) {
        throw new UsageError('--all lists every root directory: give no --root-directory with it');
      }
      return runStatusAll(io, { output: outputOf(flags, tableOutputs.filter((k) => k !== 'name')) });
    }
    await runStatus(io, { rootDirectory: rootDirectory(flags), output: outputOf(flags, dataOutputs) });
  },
};

export const logsSpec: CommandSpec = {
  id: 'logs',
  summary: 'Print the log of the kcpt server started with --detach in a root directory; -f follows it.',
  description:
    "A detached server writes its output to kcpt.log in its root directory; this prints the part of its latest run (--tail N: the last N lines). " +
    'With -f it then prints what the server writes until the server stops (or Ctrl-C). A server started in the foreground writes to its terminal.',
  examples: ['<%= config.bin %> logs', '<%= config.bin %> logs -f --tail 20', '<%= config.bin %> logs --root-directory /tmp/kcpt'],
  args: [],
  flags: [
    rootDirectoryFlag,
    { name: 'follow', char: 'f', kind: 'boolean', description: 'Keep printing what the server writes until it stops.' },
    { name: 'tail', kind: 'string', description: 'Only the last N lines of the latest run.' },
  ],
  async run({ flags, io }) {
    const tail = flags.tail === undefined ? undefined : Number(flags.tail);
    if (tail !== undefined && !(Number.isInteger(tail) && tail >= 0)) throw new UsageError(`--tail: "${String(flags.tail)}" is not a number of lines`);
    const { runLogs } = await import('./server-logs.js');
    await runLogs(io, { rootDirectory: rootDirectory(flags), follow: flags.follow === true, tail });
  },
};

export const serverSpecs: CommandSpec[] = [stopSpec, statusSpec, logsSpec];
