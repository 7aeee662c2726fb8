/**
 * `-o json|yaml` for every command that prints data: the flag, and the printer. JSON uses kubectl's four-space
 * indentation; YAML goes through js-yaml, the library the kubeconfig module already loads.
 */
import type { Io } from './io.js';
import type { FlagSpec } from './command-spec.js';

export type OutputFormat = 'json' | 'yaml';
export const outputFormats = ['json', 'yaml'] as const;

export const outputFlag: FlagSpec = {
  name: 'output',
  char: 'o',
  kind: 'string',
  options: outputFormats,
  description: 'Output format: json or yaml. Without it, human-readable text.',
};

export async function printData(io: Io, format: OutputFormat, data: unknown): Promise<void> {
  if (format === 'json') {
    io.out(`${JSON.stringify(data, null, 4)}\n`);
    return;
  }
  const { dump } = await import('js-yaml');
  io.out(dump(data, { lineWidth: -1, noRefs: true }));
}
