/** Running the built CLI as a user does (`node bin/run.js …`, no TTY), and a scratch directory per test file. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll } from 'vitest';
import { waitFor } from '../../src/testing/wait-for.js';
import { repoRoot } from './server.js';

export interface CliRun {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export interface RunKcptOptions {
  /** false: the process sees only `env`, nothing of this process's environment (default true: `env` is merged over it). */
  extendEnv?: boolean;
  /** false: keep the output's last newline, for tests that compare whole printed lines (default true). */
  stripFinalNewline?: boolean;
  /** What the process reads on stdin (default: nothing, stdin ignored). */
  input?: string;
  /** Kill the process after this long (default 90 s). */
  timeout?: number;
}

/** `node bin/run.js <args>` from the repository, stdin not a TTY; `env` is merged over the process environment. */
export async function runKcpt(args: string[], env: Record<string, string | undefined> = {}, options: RunKcptOptions = {}): Promise<CliRun> {
  const r = await execa('node', ['bin/run.js', ...args], {
    cwd: repoRoot,
    env,
    extendEnv: options.extendEnv ?? true,
    stripFinalNewline: options.stripFinalNewline ?? true,
    ...(options.input === undefined ? { stdin: 'ignore' as const } : { input: options.input }),
    reject: false,
    timeout: options.timeout ?? 90_000,
  });
  return { stdout: String(r.stdout), stderr: String(r.stderr), exitCode: r.exitCode ?? -1 };
}

/** A long-running `kcpt …` (start, front-proxy, logs -f): the child, and its stdout and stderr as printed so far. */
export interface KcptProcess {
  child: ResultPromise;
  output(): string;
}

/**
 * Starts `node bin/run.js <args>` without waiting for it (stdin ignored, `env` merged over the process
 * environment, never rejects); await `child` for its result.
 */
export function spawnKcpt(args: string[], env: Record<string, string | undefined> = {}): KcptProcess {
  const child = execa('node', ['bin/run.js', ...args], { cwd: repoRoot, env, stdin: 'ignore', reject: false });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  return { child, output: () => out };
}

/** The kubeconfig a started server or proxy printed (`export KUBECONFIG=<file>`); fails at once if it exited first. */
export async function printedKubeconfig(proc: KcptProcess, timeout = 30_000): Promise<string> {
  const printed = await waitFor(
    () => {
      const file = /export KUBECONFIG=(\S+)/.exec(proc.output())?.[1];
      if (file) return file;
      if (proc.child.exitCode !== null) return null;
      throw new Error(`not printed yet; so far:\n${proc.output()}`);
    },
    { timeout, interval: 50, message: 'kcpt to print its kubeconfig' },
  );
  if (printed === null) throw new Error(`kcpt exited (${proc.child.exitCode}) before it was ready:\n${proc.output()}`);
  return printed;
}

/** A temporary directory made before the file's tests and removed after them; read `.path` inside tests. */
export function useScratchDirectory(prefix: string): { readonly path: string } {
  let dir: string | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  return {
    get path() {
      if (!dir) throw new Error('the scratch directory exists only while the tests run');
      return dir;
    },
  };
}
