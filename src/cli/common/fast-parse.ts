/**
 * The fast path's argv parser: node:util parseArgs over a command spec. It accepts only what it is sure about;
 * anything else (--help, unknown or malformed flags, a bad option value, too many arguments) returns undefined and
 * bin/run.js hands the command line to oclif, which prints its usual help and usage errors.
 */
import { parseArgs } from 'node:util';
import type { ArgValues, CommandSpec, FlagValues } from './command-spec.js';

export interface FastParsed {
  args: ArgValues;
  flags: FlagValues;
}

export function fastParse(spec: CommandSpec, argv: string[]): FastParsed | undefined {
  if (argv.some((a) => a === '--help' || a === '-h')) return undefined;
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: true,
      options: Object.fromEntries(
        spec.flags.map((f) => [f.name, { type: f.kind, ...(f.multiple ? { multiple: true } : {}), ...(f.char ? { short: f.char } : {}) }]),
      ),
    });
  } catch {
    return undefined;
  }
  if (parsed.positionals.length > spec.args.length) return undefined;
  const flags: FlagValues = {};
  for (const f of spec.flags) {
    const given = (parsed.values as Record<string, string | boolean | (string | boolean)[] | undefined>)[f.name];
    // As oclif's `env`: an empty variable counts as unset.
    const value = given === undefined && f.env && process.env[f.env] ? process.env[f.env] : given;
    if (Array.isArray(value) !== Boolean(f.multiple && value !== undefined)) return undefined;
    if (value !== undefined && f.options && !f.options.includes(String(value))) return undefined;
    flags[f.name] = value as string | string[] | boolean | undefined;
  }
  const args: ArgValues = {};
  spec.args.forEach((a, i) => {
    args[a.name] = parsed.positionals[i];
  });
  if (spec.args.some((a) => a.required && args[a.name] === undefined)) return undefined;
  return { args, flags };
}

/** Finds the spec whose id (or alias) is the longest prefix of argv's words; returns it with the rest of argv. */
export function matchSpec(specs: CommandSpec[], argv: string[]): { spec: CommandSpec; rest: string[] } | undefined {
  let best: { spec: CommandSpec; rest: string[]; words: number } | undefined;
  for (const spec of specs) {
    for (const id of [spec.id, ...(spec.aliases ?? [])]) {
      const words = id.split(' ');
      if (words.every((w, i) => argv[i] === w) && (!best || words.length > best.words)) {
        best = { spec, rest: argv.slice(words.length), words: words.length };
      }
    }
  }
  return best && { spec: best.spec, rest: best.rest };
}
