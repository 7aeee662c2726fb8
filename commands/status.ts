import path from 'node:path';
import { Command } from '@oclif/core';
import { lifecycleFlags } from '../src/cli/server/lifecycle-flags.js';
import { renderData, type DataFormat } from '../src/cli/server/render-data.js';
import { describeStatus, serverStatus } from '../src/cli/server/server-status.js';

export default class Status extends Command {
  static override summary = 'Show whether a kcpt server runs in a root directory: URL, pid, uptime, workspace count.';

  static override description = 'Exits 0 when the server is running and ready, 1 otherwise (so scripts can test it).';

  static override examples = ['<%= config.bin %> status', '<%= config.bin %> status --root-directory /tmp/kcpt -o json'];

  static override flags = lifecycleFlags;

  async run(): Promise<void> {
    const { flags } = await this.parse(Status);
    const status = await serverStatus(path.resolve(flags['root-directory']));
    this.log(flags.output ? await renderData(status, flags.output as DataFormat) : describeStatus(status).join('\n'));
    if (!status.ready) this.exit(1);
  }
}
