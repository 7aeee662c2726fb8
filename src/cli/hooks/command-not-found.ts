/**
 * oclif's `command_not_found` hook. oclif reads words after a command that takes no arguments as more of the
 * command's name (`kcpt ws tree x` → `ws:tree:x`): that is an unexpected argument of `ws tree`, said as the commands
 * say it. Anything else is an unknown command, answered as kubectl and cobra do, with the commands it may have meant
 * (`kcpt wss` → ws). Exit code 2, a usage mistake.
 */
import type { Hook } from '@oclif/core';
import { UsageError } from '../common/errors.js';
import { processIo } from '../common/io.js';
import { unexpectedArguments } from '../common/kcpt-command.js';
import { reportError } from '../common/report-error.js';
import { suggestions } from '../common/suggest.js';

const hook: Hook.CommandNotFound = async function (opts) {
  const { config } = opts;
  const typed = opts.id.split(':');
  const report = async (err: UsageError, commandId: string | undefined) => this.exit(await reportError(processIo(), err, commandId));

  for (let n = typed.length - 1; n > 0; n--) {
    const command = config.findCommand(typed.slice(0, n).join(':'));
    if (command) {
      const id = typed.slice(0, n).join(' ');
      const argNames = Object.keys(command.args ?? {}).map((a) => a.toUpperCase());
      return report(unexpectedArguments(id, argNames, [...typed.slice(n), ...(opts.argv ?? [])]), id);
    }
  }
  // The words typed, as far as they name a topic (`snapshot sve` → topic `snapshot`, word `sve`).
  const known = config.commands.filter((c) => !c.hidden).flatMap((c) => [c.id, ...c.aliases]);
  let depth = typed.length - 1;
  while (depth > 0 && !known.some((id) => id.startsWith(`${typed.slice(0, depth).join(':')}:`))) depth--;
  const parent = typed.slice(0, depth);
  const word = typed[depth]!;
  const siblings = known
    .filter((id) => parent.every((w, i) => id.split(':')[i] === w))
    .map((id) => id.split(':')[depth])
    .filter((w): w is string => Boolean(w));
  const near = suggestions(word, siblings);
  const details = near.length === 0 ? [] : ['', 'Did you mean this?', ...near.map((s) => `\t${s}`), ''];
  return report(new UsageError(`unknown command "${word}" for "${['kcpt', ...parent].join(' ')}"`, details), parent.join(' ') || undefined);
};

export default hook;
