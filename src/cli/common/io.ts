/**
 * Where a command writes, and what kind of terminal it writes to. Both oclif and the fast path run commands
 * against the process streams; tests capture them (oclif's runCommand stubs process.stdout/stderr.write).
 * Colours come from chalk, loaded only when they are on: a TTY stream, NO_COLOR unset (FORCE_COLOR forces them).
 * Nothing prompts or animates unless stdin and the stream are TTYs and CI is unset.
 */
import { isatty } from 'node:tty';

export interface Io {
  out(text: string): void;
  err(text: string): void;
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  readonly stdinIsTTY: boolean;
  readonly env: NodeJS.ProcessEnv;
}

export function processIo(): Io {
  return {
    out: (text) => void process.stdout.write(text),
    err: (text) => void process.stderr.write(text),
    // isatty() on the descriptors rather than process.std*.isTTY: the getters build each stream (process.stdin
    // loads Node's file-stream or socket modules), and most commands never read stdin or write stderr.
    stdoutIsTTY: isatty(1),
    stderrIsTTY: isatty(2),
    stdinIsTTY: isatty(0),
    env: process.env,
  };
}

function isCI(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.CI && env.CI !== 'false') || Boolean(env.CONTINUOUS_INTEGRATION || env.BUILD_NUMBER || env.GITHUB_ACTIONS);
}

/** Whether a prompt may be shown: a person at a terminal, not a CI job. */
export function canPrompt(io: Io): boolean {
  return io.stdinIsTTY && io.stdoutIsTTY && !isCI(io.env);
}

/** Whether a spinner may be drawn on stderr. */
export function canAnimate(io: Io): boolean {
  return io.stderrIsTTY && !isCI(io.env) && io.env.TERM !== 'dumb';
}

export function colorsEnabled(io: Io, stream: 'stdout' | 'stderr'): boolean {
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '') return false;
  if (io.env.FORCE_COLOR !== undefined && io.env.FORCE_COLOR !== '0') return true;
  const tty = stream === 'stdout' ? io.stdoutIsTTY : io.stderrIsTTY;
  return tty && io.env.TERM !== 'dumb';
}

/** The few styles the CLI uses; identity functions when colours are off. */
export interface Palette {
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  bold(text: string): string;
  dim(text: string): string;
}

const plain: Palette = { red: (t) => t, green: (t) => t, yellow: (t) => t, cyan: (t) => t, bold: (t) => t, dim: (t) => t };

export async function colors(io: Io, stream: 'stdout' | 'stderr' = 'stdout'): Promise<Palette> {
  if (!colorsEnabled(io, stream)) return plain;
  const { Chalk } = await import('chalk');
  return new Chalk({ level: 1 });
}
