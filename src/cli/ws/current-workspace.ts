/** kcp's printCurrentWorkspace, plus `-o json|yaml|jsonpath` ({ workspace, type, url }). */
import type { Io } from '../common/io.js';
import { printData, type OutputFormat } from '../common/output.js';
import { parseClusterUrl } from '../../client/workspace-path.js';

export interface PrintOptions {
  short: boolean;
  output?: OutputFormat;
  /** Shown as `(type …)` when known. */
  type?: string;
}

export async function printCurrentWorkspace(io: Io, url: string, opts: PrintOptions): Promise<void> {
  const parsed = parseClusterUrl(url);
  if (opts.output) {
    await printData(io, opts.output, { workspace: parsed?.path ?? null, ...(opts.type ? { type: opts.type } : {}), url });
    return;
  }
  if (!parsed) {
    if (!opts.short) io.out(`Current workspace is the URL ${JSON.stringify(url)}.\n`);
    return;
  }
  if (opts.short) {
    io.out(`${parsed.path}\n`);
    return;
  }
  io.out(`Current workspace is '${parsed.path}'${opts.type ? ` (type ${opts.type})` : ''}.\n`);
}
