/**
 * bin/run.js's fast path for commands described by a spec: match argv against the registry, parse with
 * node:util, run, exit. False means "let oclif do it" (help, usage errors, commands not in the registry).
 */
import { connectionFlags } from './common/connection-flags.js';
import { executeSpec } from './common/execute.js';
import { fastParse, matchSpec } from './common/fast-parse.js';
import { hoistFlags } from './common/flag-order.js';
import { processIo } from './common/io.js';
import { commandSpecs } from './registry.js';

export { setImporter } from '../client/external-import.js';
export { complete } from './completion/complete.js';

export async function tryFastPath(argv: string[]): Promise<boolean> {
  const matched = matchSpec(commandSpecs, argv);
  if (!matched) return false;
  const parsed = fastParse(matched.spec, matched.rest);
  if (!parsed) return false;
  process.exitCode = await executeSpec(matched.spec, { ...parsed, io: processIo() });
  return true;
}

/** argv as both parsers take it: connection flags typed before or between the command words moved behind them. */
export function reorderFlags(argv: string[]): string[] {
  return hoistFlags(
    argv,
    connectionFlags,
    commandSpecs.flatMap((s) => [s.id, ...(s.aliases ?? []), ...(s.hiddenAliases ?? [])]),
  );
}
