/** `kcpt start` as a command spec: oclif runs it, and bin/run.js's fast path (./fast-path.ts) parses the same flags. */
import type { CommandSpec } from '../common/command-spec.js';
import { startFlagSpecs, type StartFlagValues } from './flags.js';

export const startSpec: CommandSpec = {
  id: 'start',
  summary: 'Start a kcpt control plane: a Kubernetes API server with workspaces, on embedded SQLite.',
  examples: [
    '<%= config.bin %> start',
    '<%= config.bin %> start --root-directory /tmp/kcpt --secure-port 7443',
    '<%= config.bin %> start --storage memory://',
    '<%= config.bin %> start --detach --root-directory /tmp/kcpt   # returns once ready; then: kcpt status, kcpt stop',
  ],
  args: [],
  flags: startFlagSpecs,
  async run({ flags, io }) {
    const [{ toServerOptions, StartUsageError }, { launchStart }, { UsageError }] = await Promise.all([
      import('./flags.js'),
      import('./launch.js'),
      import('../common/errors.js'),
    ]);
    const values = flags as StartFlagValues;
    let options;
    try {
      options = toServerOptions(values);
    } catch (err) {
      if (err instanceof StartUsageError) throw new UsageError(err.message);
      throw err;
    }
    await launchStart(values, options, { log: (line) => io.out(`${line}\n`) });
  },
};
