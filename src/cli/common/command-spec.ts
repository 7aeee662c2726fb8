/**
 * A CLI command described once, as data plus a run function, so that two front ends can run it: oclif (help,
 * completion, usage errors, the manifest) and the fast path in bin/run.js, which parses argv with node:util and
 * skips loading oclif (~100 ms), keeping commands that talk to a server within their latency budget. Spec modules
 * must stay cheap to import: the run function loads the implementation with `await import()`.
 */
import type { Io } from './io.js';

export interface FlagSpec {
  name: string;
  char?: string;
  kind: 'string' | 'boolean' | 'integer';
  /** Allowed values of a string flag. */
  options?: readonly string[];
  /** The value when the flag is not given (and its `env` variable is unset). */
  default?: string | number;
  /** Bounds of an integer flag. */
  min?: number;
  max?: number;
  required?: boolean;
  description: string;
  /** Shown under this heading in --help (connection flags go under GLOBAL). */
  helpGroup?: string;
  hidden?: boolean;
  /** A string flag that may be given more than once (`-f a.yaml -f b.yaml`); its value is a string[]. */
  multiple?: boolean;
  /** An environment variable whose value stands in for the flag when it is not given (`KCPT_ROOT_DIRECTORY`). */
  env?: string;
  /** Values shell completion offers for the flag (`kcpt __complete`). */
  completions?: readonly string[];
}

export interface ArgSpec {
  name: string;
  description: string;
  required?: boolean;
}

export type FlagValues = Record<string, string | string[] | number | boolean | undefined>;
export type ArgValues = Record<string, string | undefined>;

export interface CommandInput {
  args: ArgValues;
  flags: FlagValues;
  io: Io;
}

export interface CommandSpec {
  /** Words after `kcpt`: `ws`, `ws use`. */
  id: string;
  /** Other ids that run the same command: `ws cd`. */
  aliases?: string[];
  /** Ids kept working for old command lines, but not offered in help or completion. */
  hiddenAliases?: string[];
  summary: string;
  description?: string;
  examples?: string[];
  args: ArgSpec[];
  flags: FlagSpec[];
  run(input: CommandInput): Promise<void>;
}
