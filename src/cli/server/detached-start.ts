/**
 * `kcpt start --detach`: runs `kcpt start` as a background process (its own session, output appended to
 * `<root>/kcpt.log`) and returns once that very process has written its server record and answers `/readyz`,
 * so CI scripts can go on without a `sleep`. A child that exits first is reported with the end of its log.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { prepareRootDirectory } from '../../engine/auth/root-directory.js';
import { serverArgv, type StartFlagValues } from '../start/flags.js';
import { DETACHED_LOG_ENV } from '../start/run-start.js';
import { kcptEntry } from './package-root.js';
import { isReady, readRootCA } from './server-probe.js';
import { findRunningServer, readServerRecord, SERVER_LOG_FILE } from './server-record.js';

export interface DetachedServer {
  pid: number;
  url: string;
  port: number;
  rootDirectory: string;
  kubeconfig: string;
  logFile: string;
  readyInMs: number;
}

export class DetachedStartError extends Error {}

const pollIntervalMs = 25;
const logTailLines = 20;

export async function startDetached(values: StartFlagValues, opts: { timeoutMs?: number } = {}): Promise<DetachedServer> {
  const requested = path.resolve(String(values['root-directory']));
  const running = findRunningServer(requested);
  if (running) throw alreadyRunning(requested, running.pid, running.record?.url);
  const rootDirectory = await prepareRootDirectory(requested);

  const logFile = path.join(rootDirectory, SERVER_LOG_FILE);
  const logFd = openSync(logFile, 'a', 0o600);
  const started = Date.now();
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  let child;
  try {
    writeSync(logFd, `--- kcpt start --detach at ${new Date(started).toISOString()} ---\n`);
    child = spawn(process.execPath, [kcptEntry(), 'start', ...serverArgv({ ...values, 'root-directory': rootDirectory })], {
      detached: true,
      stdio: ['ignore', logFd, logFd],
      env: { ...process.env, [DETACHED_LOG_ENV]: logFile },
    });
  } finally {
    closeSync(logFd);
  }
  child.on('exit', (code, signal) => (exit = { code, signal }));
  const pid = child.pid;
  if (pid === undefined) throw new DetachedStartError(`could not start ${process.execPath}: ${await spawnError(child)}`);
  child.unref();

  const timeoutMs = opts.timeoutMs ?? 60_000;
  const ca = () => readRootCA(rootDirectory);
  for (;;) {
    if (exit) {
      const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
      throw new DetachedStartError(`kcpt ${how} before it was ready; the end of ${logFile}:\n${logTail(logFile)}`);
    }
    const record = readServerRecord(rootDirectory);
    if (record?.pid === pid && (await isReady(record.url, ca()))) {
      return { pid, url: record.url, port: record.port, rootDirectory, kubeconfig: record.kubeconfig, logFile, readyInMs: Date.now() - started };
    }
    if (Date.now() - started > timeoutMs) {
      process.kill(pid, 'SIGTERM');
      throw new DetachedStartError(`kcpt was not ready after ${timeoutMs / 1000} s and was stopped; the end of ${logFile}:\n${logTail(logFile)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, pollIntervalMs));
  }
}

/** The lines `kcpt start --detach` prints: where it runs, how to point kubectl at it, how to stop it. */
export function describeDetached(server: DetachedServer): string[] {
  return [
    `kcpt is running in the background at ${server.url} (pid ${server.pid}, ready in ${server.readyInMs} ms; logs: ${server.logFile}). Point kubectl at it with:`,
    `  export KUBECONFIG=${server.kubeconfig}`,
    `Stop it with: kcpt stop --root-directory ${server.rootDirectory}`,
  ];
}

export function alreadyRunning(rootDirectory: string, pid: number, url: string | undefined): DetachedStartError {
  const where = url ? ` at ${url}` : '';
  return new DetachedStartError(
    `kcpt is already running in ${rootDirectory} (pid ${pid}${where}); stop it with "kcpt stop --root-directory ${rootDirectory}"`,
  );
}

function logTail(file: string): string {
  try {
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    return lines.slice(-logTailLines).map((l) => `  ${l}`).join('\n');
  } catch {
    return '  (no log)';
  }
}

function spawnError(child: ReturnType<typeof spawn>): Promise<string> {
  return new Promise((resolve) => child.once('error', (err) => resolve(err.message)));
}
