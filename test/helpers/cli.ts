/** Running the built CLI as a user does (`node bin/run.js …`, no TTY), and a scratch directory per test file. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll } from 'vitest';
import { repoRoot } from './server.js';

export interface CliRun {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** `node bin/run.js <args>` from the repository, stdin not a TTY; `env` is merged over the process environment. */
export async function runKcpt(args: string[], env: Record<string, string | undefined> = {}): Promise<CliRun> {
  const r = await execa('node', ['bin/run.js', ...args], { cwd: repoRoot, env, stdin: 'ignore', reject: false, timeout: 90_000 });
  return { stdout: String(r.stdout), stderr: String(r.stderr), exitCode: r.exitCode ?? -1 };
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
