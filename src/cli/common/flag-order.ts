/**
 * kcp's plugins are cobra commands whose connection flags are persistent: `kubectl ws --context x use y` and
 * `kubectl ws --server URL tree` work there. oclif (and the fast path) only take a command's flags after its words,
 * so before either parses, the connection flags found among the command words (before, between) are moved behind
 * them: `ws --context x use y` → `ws use y --context x`. Nothing else moves; flags after the words stay as typed.
 */
import type { FlagSpec } from './command-spec.js';

/**
 * `argv` with the flags of `movable` that come before the end of the command's words moved behind them. The command
 * words are the longest run of leading words that is a prefix of one of `commandIds` (`ws`, `ws use`…).
 */
export function hoistFlags(argv: string[], movable: FlagSpec[], commandIds: string[]): string[] {
  const words: string[] = [];
  const moved: string[] = [];
  let i = 0;
  while (i < argv.length) {
    const taken = flagLength(argv, i, movable);
    if (taken > 0) {
      moved.push(...argv.slice(i, i + taken));
      i += taken;
      continue;
    }
    const word = argv[i]!;
    if (word.startsWith('-')) break;
    const candidate = [...words, word].join(' ');
    if (!commandIds.some((id) => id === candidate || id.startsWith(`${candidate} `))) break;
    words.push(word);
    i++;
  }
  if (moved.length === 0) return argv;
  return [...words, ...argv.slice(i), ...moved];
}

/** How many argv entries the flag at `i` spans (0: not one of `flags`): `--name value`, `--name=value`, `-c value`, `-cvalue`. */
function flagLength(argv: string[], i: number, flags: FlagSpec[]): number {
  const token = argv[i]!;
  if (token.startsWith('--')) {
    const eq = token.indexOf('=');
    const name = token.slice(2, eq < 0 ? undefined : eq);
    const flag = flags.find((f) => f.name === name);
    if (!flag) return 0;
    if (flag.kind === 'boolean' || eq >= 0) return 1;
    return i + 1 < argv.length ? 2 : 1;
  }
  if (token.length >= 2 && token[0] === '-' && token[1] !== '-') {
    const flag = flags.find((f) => f.char === token[1]);
    if (!flag) return 0;
    if (flag.kind === 'boolean' || token.length > 2) return 1;
    return i + 1 < argv.length ? 2 : 1;
  }
  return 0;
}
