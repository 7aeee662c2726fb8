/**
 * bin/run.js's fast path for commands described by a spec: match argv against the registry, parse with
 * node:util, run, exit. False means "let oclif do it" (help, usage errors, commands not in the registry).
 */
import { executeSpec } from './common/execute.js';
import { fastParse, matchSpec } from './common/fast-parse.js';
import { processIo } from './common/io.js';
import { commandSpecs } from './registry.js';

export async function tryFastPath(argv: string[]): Promise<boolean> {
  const matched = matchSpec(commandSpecs, argv);
  if (!matched) return false;
  const parsed = fastParse(matched.spec, matched.rest);
  if (!parsed) return false;
  process.exitCode = await executeSpec(matched.spec, { ...parsed, io: processIo() });
  return true;
}
