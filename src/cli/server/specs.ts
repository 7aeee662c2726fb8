/**
 * `kcpt stop` and `kcpt status` as command specs (run by oclif or by bin/run.js's fast path). Cheap to import:
 * each run loads its implementation with `await import()`.
 */
import type { CommandSpec, FlagSpec, FlagValues } from '../common/command-spec.js';
import { outputFlag, outputOf } from '../common/output.js';

const defaultRootDirectory = '.kcp';

const rootDirectoryFlag: FlagSpec = {
  name: 'root-directory',
  kind: 'string',
  description: `Root directory of the server, as given to kcpt start (default ${defaultRootDirectory}).`,
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
  summary: 'Show whether a kcpt server runs in a root directory: URL, pid, uptime, workspace count.',
  description: 'Exits 0 when the server is running and ready, 1 otherwise (so scripts can test it).',
  examples: ['<%= config.bin %> status', '<%= config.bin %> status --root-directory /tmp/kcpt -o json'],
  args: [],
  flags: [rootDirectoryFlag, outputFlag()],
  async run({ flags, io }) {
    const { runStatus } = await import('./server-status.js');
    await runStatus(io, { rootDirectory: rootDirectory(flags), output: output(flags) });
  },
};

export const serverSpecs: CommandSpec[] = [stopSpec, statusSpec];
