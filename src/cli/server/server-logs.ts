/**
 * `kcpt logs [-f] [--tail N]`: the log a detached server writes (`kcpt.log` in its root directory, appended to by
 * every `kcpt start --detach`, each run under a `--- kcpt start --detach at … ---` line). Prints the latest run, then
 * with -f what the server writes next, until the server stops: the file is polled (a few times a second), as
 * `tail -f` does where file events are unreliable.
 */
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import { CliError } from '../common/errors.js';
import type { Io } from '../common/io.js';
import { findRunningServer, isAlive, SERVER_LOG_FILE } from './server-record.js';

const runHeader = '--- kcpt start --detach at ';
const pollMs = 250;

export async function runLogs(io: Io, opts: { rootDirectory: string; follow: boolean; tail?: number }): Promise<void> {
  const rootDirectory = path.resolve(opts.rootDirectory);
  const running = findRunningServer(rootDirectory);
  const file = running?.record?.logFile ?? path.join(rootDirectory, SERVER_LOG_FILE);
  if (!existsSync(file)) {
    if (running) {
      throw new CliError(
        `kcpt (pid ${running.pid}) in ${rootDirectory} runs in the foreground: its output goes to the terminal that started it (kcpt start --detach logs to ${SERVER_LOG_FILE})`,
      );
    }
    throw new CliError(`no log in ${rootDirectory}: kcpt start --detach writes ${SERVER_LOG_FILE} there (is it the right --root-directory?)`);
  }
  const text = readFileSync(file, 'utf8');
  io.out(latestRun(text, opts.tail));
  if (!opts.follow) return;
  if (!running) {
    io.err(`kcpt is not running in ${rootDirectory}: nothing more will be written.\n`);
    return;
  }
  let offset = Buffer.byteLength(text);
  for (;;) {
    const alive = isAlive(running.pid);
    offset = printNew(io, file, offset);
    if (!alive) return;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/** The lines of the latest run (after its header line), or its last `tail` lines. */
export function latestRun(text: string, tail?: number): string {
  const at = text.lastIndexOf(runHeader);
  const run = at < 0 ? text : text.slice(text.indexOf('\n', at) + 1);
  if (tail === undefined) return run;
  const lines = run.split('\n');
  const complete = lines.at(-1) === '' ? lines.slice(0, -1) : lines;
  return complete.slice(Math.max(0, complete.length - tail)).map((l) => `${l}\n`).join('');
}

/** Prints what was appended to `file` after `offset`; returns the new offset. */
function printNew(io: Io, file: string, offset: number): number {
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    return offset;
  }
  if (size < offset) offset = 0;
  if (size === offset) return offset;
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(size - offset);
    const read = readSync(fd, buffer, 0, buffer.length, offset);
    io.out(buffer.subarray(0, read).toString('utf8'));
    return offset + read;
  } finally {
    closeSync(fd);
  }
}
