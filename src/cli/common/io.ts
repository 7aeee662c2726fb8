/**
 * Where a command writes, and what kind of terminal it writes to. Both oclif and the fast path run commands
 * against the process streams; tests capture them (oclif's runCommand stubs process.stdout/stderr.write).
 * Colours follow chalk's detection and are off when NO_COLOR is set or the stream is not a TTY; nothing prompts
 * or animates unless stdin and the stream are TTYs and CI is unset.
 */
import { Chalk, type ChalkInstance } from 'chalk';

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
    stdoutIsTTY: Boolean(process.stdout.isTTY),
    stderrIsTTY: Boolean(process.stderr.isTTY),
    stdinIsTTY: Boolean(process.stdin.isTTY),
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

/** A chalk instance for stdout or stderr that honours NO_COLOR, FORCE_COLOR and non-TTY streams. */
export function colors(io: Io, stream: 'stdout' | 'stderr' = 'stdout'): ChalkInstance {
  const tty = stream === 'stdout' ? io.stdoutIsTTY : io.stderrIsTTY;
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '') return new Chalk({ level: 0 });
  if (io.env.FORCE_COLOR !== undefined && io.env.FORCE_COLOR !== '0') return new Chalk({ level: 1 });
  return new Chalk({ level: tty && io.env.TERM !== 'dumb' ? 1 : 0 });
}
