import { Flags } from '@oclif/core';
import { UsageError } from '../src/cli/common/errors.js';
import { KcptCommand } from '../src/cli/common/kcpt-command.js';
import { startFlagSpecs, StartUsageError, toServerOptions, type StartFlagValues } from '../src/cli/start/flags.js';
import { launchStart } from '../src/cli/start/launch.js';

// oclif flags built from the one flag table (bin/run.js's fast path parses the same table). Loosely typed on
// purpose: the values go through toServerOptions, which is typed.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const flags: Record<string, any> = Object.fromEntries(
  startFlagSpecs.map((f) => {
    const common = {
      description: f.description,
      hidden: f.hidden,
      ...(f.char && f.char.length === 1 ? { char: f.char as 'v' } : {}),
      ...(f.env ? { env: f.env } : {}),
    };
    return [
      f.name,
      f.type === 'integer'
        ? Flags.integer({ ...common, default: f.default as number | undefined, min: f.min, max: f.max })
        : f.type === 'boolean'
          ? Flags.boolean(common)
          : Flags.string({ ...common, default: f.default as string | undefined, options: f.options }),
    ];
  }),
);

export default class Start extends KcptCommand {
  static override summary = 'Start a kcpt control plane: a Kubernetes API server with workspaces, on embedded SQLite.';

  static override examples = [
    '<%= config.bin %> start',
    '<%= config.bin %> start --root-directory /tmp/kcpt --secure-port 7443',
    '<%= config.bin %> start --storage memory://',
    '<%= config.bin %> start --detach --root-directory /tmp/kcpt   # returns once ready; then: kcpt status, kcpt stop',
  ];

  static override flags = flags;

  async run(): Promise<void> {
    const parsed = await this.parse(Start);
    let options;
    try {
      options = toServerOptions(parsed.flags as StartFlagValues);
    } catch (err) {
      if (err instanceof StartUsageError) throw new UsageError(err.message);
      throw err;
    }
    await launchStart(parsed.flags as StartFlagValues, options, { log: (line) => this.log(line) });
  }
}
