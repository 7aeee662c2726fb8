/**
 * The fast path's argv parser: node:util parseArgs over a command spec. It accepts only what it is sure about;
 * anything else (--help, unknown or malformed flags, a bad option value, too many arguments) returns undefined and
 * bin/run.js hands the command line to oclif, which prints its usual help and usage errors.
 */
import { parseArgs } from 'node:util';
import type { ArgValues, CommandSpec, FlagSpec, FlagValues } from './command-spec.js';

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
        // An integer arrives as a string; a one-letter flag (`-v`) is its own short form.
        spec.flags.map((f) => [
          f.name,
          { type: f.kind === 'boolean' ? 'boolean' : 'string', ...(f.multiple ? { multiple: true } : {}), ...(f.char && f.char !== f.name ? { short: f.char } : {}) },
        ]),
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
    if (value === undefined && f.required) return undefined;
    if (f.kind === 'integer' && typeof value === 'string') {
      const n = integerIn(f, value);
      if (n === undefined) return undefined;
      flags[f.name] = n;
    } else {
      flags[f.name] = (value ?? f.default) as string | string[] | number | boolean | undefined;
    }
  }
  const args: ArgValues = {};
  spec.args.forEach((a, i) => {
    args[a.name] = parsed.positionals[i];
  });
  if (spec.args.some((a) => a.required && args[a.name] === undefined)) return undefined;
  return { args, flags };
}

/** A decimal integer within the flag's bounds, as oclif's integer flag accepts it; else undefined. */
function integerIn(f: FlagSpec, text: string): number | undefined {
  if (!/^-?\d+$/.test(text)) return undefined;
  const n = Number(text);
  if ((f.min !== undefined && n < f.min) || (f.max !== undefined && n > f.max)) return undefined;
  return n;
}

/** Finds the spec whose id (or alias) is the longest prefix of argv's words; returns it with the rest of argv. */
export function matchSpec(specs: CommandSpec[], argv: string[]): { spec: CommandSpec; rest: string[] } | undefined {
  let best: { spec: CommandSpec; rest: string[]; words: number } | undefined;
  for (const spec of specs) {
    for (const id of [spec.id, ...(spec.aliases ?? []), ...(spec.hiddenAliases ?? [])]) {
      const words = id.split(' ');
      if (words.every((w, i) => argv[i] === w) && (!best || words.length > best.words)) {
        best = { spec, rest: argv.slice(words.length), words: words.length };
      }
    }
  }
  return best && { spec: best.spec, rest: best.rest };
}
