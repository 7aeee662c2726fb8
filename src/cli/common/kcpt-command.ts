/**
 * The base of every oclif command of kcpt: whatever fails (a flag oclif's parser refuses, a usage mistake, a
 * server error) is reported the one way the fast path reports it (report-error.ts): one `Error:` line, and for a
 * usage mistake `See 'kcpt ws --help' for usage.` instead of oclif's `›` lines followed by the whole help.
 */
import { Command, Errors } from '@oclif/core';
import { UsageError } from './errors.js';
import { processIo } from './io.js';
import { reportError } from './report-error.js';
import { suggestions } from './suggest.js';

/** What oclif's parse errors carry (they are not exported as classes). */
interface ParseError extends Error {
  parse?: unknown;
  flags?: string[];
  args?: (string | { name?: string })[];
}

/** `unexpected argument "b": "kcpt ws create" takes at most 1 (NAME)`. */
export function unexpectedArguments(commandId: string, argNames: string[], extra: string[], details: string[] = []): UsageError {
  const takes = argNames.length === 0 ? 'takes no arguments' : `takes at most ${argNames.length} (${argNames.join(' ')})`;
  const quoted = extra.map((a) => `"${a}"`).join(', ');
  return new UsageError(`unexpected argument${extra.length === 1 ? '' : 's'} ${quoted}: "kcpt ${commandId}" ${takes}`, details);
}

export abstract class KcptCommand extends Command {
  override async catch(err: Error): Promise<unknown> {
    if (err instanceof Errors.ExitError) throw err;
    const code = await reportError(processIo(), this.asUsageError(err) ?? err, this.displayId);
    return this.exit(code);
  }

  /** `ws create` (oclif's id is `ws:create`). */
  get displayId(): string {
    return (this.id ?? '').split(':').join(' ');
  }

  /** One line for each of oclif's parse errors, in cobra's words where cobra has them; undefined for other errors. */
  private asUsageError(error: Error): UsageError | undefined {
    if (!(error instanceof Errors.CLIError)) return undefined;
    const err = error as ParseError;
    // A flag value oclif could not convert (`--secure-port abc`) is a plain CLIError with its parse hint.
    const parsing = /^Parsing (--\S+)\s*\n\s*(.+)\nSee more help with --help$/.exec(err.message);
    if (parsing) return new UsageError(`invalid value for ${parsing[1]}: ${parsing[2]!.charAt(0).toLowerCase()}${parsing[2]!.slice(1)}`);
    const noValue = /^Flag (--\S+) expects a value/.exec(err.message);
    if (noValue) return new UsageError(`flag needs an argument: ${noValue[1]}`);
    if (err.parse === undefined) return undefined;
    const name = err.constructor.name;
    if (name === 'NonExistentFlagsError' && err.flags?.length) {
      const flag = err.flags[0]!;
      return new UsageError(flag.startsWith('--') || flag.length !== 2 ? `unknown flag: ${flag}` : `unknown shorthand flag: '${flag[1]}' in ${flag}`);
    }
    const ctor = this.ctor;
    const argNames = Object.keys(ctor.args ?? {}).map((a) => a.toUpperCase());
    if (name === 'UnexpectedArgsError' && err.args?.length) {
      return unexpectedArguments(this.displayId, argNames, err.args.map(String), this.subcommandHint());
    }
    if (name === 'RequiredArgsError') {
      const missing = (err.args ?? []).map((a) => (typeof a === 'string' ? a : (a.name ?? ''))).map((a) => a.toUpperCase());
      return new UsageError(`"kcpt ${this.displayId}" requires ${missing.length === 1 ? 'an argument' : 'arguments'}: ${missing.join(' ')}`);
    }
    // The rest (a flag without its value, a value not among the options): oclif's own words, first line only.
    const reasons = err.message.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('See more help with'));
    const lines = reasons[0]?.startsWith('The following error') ? reasons.slice(1) : reasons;
    return new UsageError(lines.join('; ') || err.message);
  }

  /** `Did you mean "kcpt ws create"?` when the first argument looks like a mistyped subcommand (`kcpt ws creat a`). */
  private subcommandHint(): string[] {
    const first = this.argv.find((a) => !a.startsWith('-'));
    if (!first) return [];
    const prefix = `${this.id}:`;
    const subcommands = this.config.commands.flatMap((c) => [c.id, ...c.aliases]).filter((id) => id.startsWith(prefix)).map((id) => id.slice(prefix.length));
    const near = suggestions(first, subcommands.filter((s) => !s.includes(':')));
    return near.length === 0 ? [] : ['', 'Did you mean this?', ...near.map((s) => `\tkcpt ${this.displayId} ${s}`), ''];
  }
}
