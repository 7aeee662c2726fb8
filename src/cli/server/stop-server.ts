/**
 * `kcpt stop`: SIGTERM to the server using a root directory (it closes watches, finishes in-flight requests and
 * closes the database), then wait; SIGKILL once the timeout has passed. Nothing running is not an error: scripts
 * run `kcpt stop` in cleanup steps whether or not the start got that far.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { CliError, UsageError } from '../common/errors.js';
import type { Io } from '../common/io.js';
import { printData, type OutputFormat } from '../common/output.js';
import { readLockPid, ROOT_LOCK_FILE } from '../../engine/auth/root-directory.js';
import { parseDuration, StartUsageError } from '../start/flags.js';
import { findRunningServer, isAlive, removeServerRecord, serverRecordPath } from './server-record.js';

export interface StopResult {
  rootDirectory: string;
  /** Whether a server was running when we were asked. */
  wasRunning: boolean;
  pid?: number;
  /** It did not stop within the timeout after SIGTERM and was sent SIGKILL. */
  killed?: boolean;
  stoppedInMs?: number;
}

const pollIntervalMs = 25;
const afterKillMs = 10_000;

export async function stopServer(rootDirectory: string, opts: { timeoutMs: number }): Promise<StopResult> {
  const running = findRunningServer(rootDirectory);
  if (!running) {
    // A record left by a server that was killed describes nothing; it would only confuse the next reader.
    rmSync(serverRecordPath(rootDirectory), { force: true });
    return { rootDirectory, wasRunning: false };
  }
  const { pid } = running;
  const started = Date.now();
  signal(pid, 'SIGTERM');
  let killed = false;
  if (!(await exited(pid, opts.timeoutMs))) {
    killed = true;
    signal(pid, 'SIGKILL');
    if (!(await exited(pid, afterKillMs))) throw new CliError(`kcpt (pid ${pid}) is still running after SIGKILL`);
    // A killed server cannot release its lock. The engine takes over locks of dead holders, but a killed process
    // that nobody reaps (pid 1 of many containers) still looks alive to it, so the lock goes here.
    releaseLockOf(rootDirectory, pid);
  }
  removeServerRecord(rootDirectory, pid);
  return { rootDirectory, wasRunning: true, pid, killed, stoppedInMs: Date.now() - started };
}

/** The `kcpt stop` command: stop, then report in words or as data. */
export async function runStop(io: Io, opts: { rootDirectory: string; timeout: string; output?: OutputFormat }): Promise<void> {
  let timeoutMs: number;
  try {
    timeoutMs = parseDuration(opts.timeout, 'timeout');
  } catch (err) {
    if (err instanceof StartUsageError) throw new UsageError(err.message);
    throw err;
  }
  const result = await stopServer(path.resolve(opts.rootDirectory), { timeoutMs });
  if (opts.output) await printData(io, opts.output, result);
  else io.out(`${describeStop(result, timeoutMs)}\n`);
}

export function describeStop(result: StopResult, timeoutMs: number): string {
  if (!result.wasRunning) return `no kcpt server is running in ${result.rootDirectory}`;
  if (result.killed) return `kcpt (pid ${result.pid}) did not stop within ${timeoutMs / 1000} s after SIGTERM; killed it`;
  return `kcpt stopped (pid ${result.pid}, in ${result.stoppedInMs} ms)`;
}

function releaseLockOf(rootDirectory: string, pid: number): void {
  const lock = path.join(rootDirectory, ROOT_LOCK_FILE);
  if (readLockPid(lock) === pid) rmSync(lock, { force: true });
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ESRCH') return;
    if (code === 'EPERM') throw new CliError(`not permitted to stop kcpt (pid ${pid}): it belongs to another user`);
    throw err;
  }
}

async function exited(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, pollIntervalMs));
  }
  return true;
}
