import path from 'node:path';
import { Command, Flags } from '@oclif/core';
import { renderData, type DataFormat } from '../src/cli/server/render-data.js';
import { lifecycleFlags } from '../src/cli/server/lifecycle-flags.js';
import { describeStop, stopServer } from '../src/cli/server/stop-server.js';
import { parseDuration, StartUsageError } from '../src/cli/start/flags.js';

export default class Stop extends Command {
  static override summary = 'Stop the kcpt server running in a root directory (SIGTERM, then SIGKILL after --timeout).';

  static override description = 'Exits 0 when no server is running there, so cleanup steps can always call it.';

  static override examples = ['<%= config.bin %> stop', '<%= config.bin %> stop --root-directory /tmp/kcpt --timeout 10s'];

  static override flags = {
    ...lifecycleFlags,
    timeout: Flags.string({ default: '30s', description: 'How long to wait after SIGTERM before SIGKILL (e.g. 10s, 1m).' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Stop);
    let timeoutMs: number;
    try {
      timeoutMs = parseDuration(flags.timeout, 'timeout');
    } catch (err) {
      if (err instanceof StartUsageError) this.error(err.message, { exit: 2 });
      throw err;
    }
    const result = await stopServer(path.resolve(flags['root-directory']), { timeoutMs }).catch((err: Error) =>
      this.error(err.message, { exit: 1 }),
    );
    this.log(flags.output ? await renderData(result, flags.output as DataFormat) : describeStop(result, timeoutMs));
  }
}
