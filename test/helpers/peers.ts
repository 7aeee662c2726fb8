/**
 * The peer suites' clients (test/peers/): a Python venv and Go-built tools, prepared by test/peers/setup.sh (which
 * .ci/run runs before `npm test`). In CI a missing piece fails the file; locally a file whose toolchain is missing, or
 * whose Go tools were never built (minutes of compiling), steps aside with one line saying how to get it.
 * Call these at the top level of a test file (they decide whether its tests run).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './server.js';

export const peersDir = join(repoRoot, 'test', 'peers');
const setupScript = join(peersDir, 'setup.sh');
const inCI = process.env.CI === 'true' || process.env.CI === '1';

export type Prepared<T> = ({ ready: true } & T) | { ready: false; skipped: string };

function runs(command: string, args: string[]): boolean {
  return spawnSync(command, args, { stdio: 'ignore', timeout: 30_000 }).status === 0;
}

/** Runs setup.sh for `part`; its stderr (what it did, why it failed) goes to ours. */
function setup(part: string): { ok: boolean; error: string } {
  const r = spawnSync('bash', [setupScript, part], { encoding: 'utf8', stdio: ['ignore', 'inherit', 'pipe'], timeout: 20 * 60_000 });
  if (r.stderr) process.stderr.write(r.stderr);
  const last = (r.stderr ?? '').trim().split('\n').pop() ?? '';
  return { ok: r.status === 0, error: r.error ? String(r.error) : last || `exit code ${String(r.status)}` };
}

/** Local runs step aside with `reason` (said once); CI fails. */
function unavailable<T>(label: string, reason: string): Prepared<T> {
  if (inCI) throw new Error(`${label}: ${reason}`);
  console.warn(`${label}: skipped, ${reason}`);
  return { ready: false, skipped: reason };
}

/** The venv's python, creating or refreshing the venv (test/peers/python/.venv) from requirements.txt when needed. */
export function preparePython(label: string): Prepared<{ python: string }> {
  const python = join(peersDir, 'python', '.venv', 'bin', 'python');
  if (!runs(process.env.PYTHON ?? 'python3', ['-c', 'import venv, ensurepip'])) {
    return unavailable(label, 'no python3 with venv (Debian: apt-get install python3-venv)');
  }
  const done = setup('python');
  if (!done.ok) return unavailable(label, `creating the venv failed (${done.error}); retry with \`bash test/peers/setup.sh python\``);
  return { ready: true, python };
}

/**
 * The directory holding a Go-built tool module's binaries (test/peers/tools/.bin). Built once by
 * `npm run peers:setup`; rebuilt here only when it was built before and its go.mod/go.sum changed since.
 */
export function prepareGoTools(label: string, module: 'helm' | 'kcp-plugins'): Prepared<{ bin: string }> {
  const bin = join(peersDir, 'tools', '.bin');
  if (!runs('go', ['version'])) return unavailable(label, 'no Go toolchain (`go version` failed)');
  if (!inCI && !existsSync(join(bin, `.stamp-${module}`))) {
    return unavailable(label, `not built yet: run \`npm run peers:setup\` once (go build of ${module}, minutes the first time)`);
  }
  const done = setup(module);
  if (!done.ok) return unavailable(label, `building ${module} failed (${done.error})`);
  return { ready: true, bin };
}
