/**
 * `kcpt status`: is a server using this root directory, where does it listen, is it ready, since when, and how
 * many workspaces it holds. Cheap by design: two small requests to the server, no listing of objects.
 */
import path from 'node:path';
import { CliError } from '../common/errors.js';
import { Kubeconfig } from '../common/kubeconfig.js';
import type { Io } from '../common/io.js';
import { printData, type OutputFormat } from '../common/output.js';
import { formatTable } from '../common/table.js';
import { ROOT_DIRECTORY_ENV } from '../start/flags.js';
import { knownRootDirectories } from './known-servers.js';
import { probeServer, readRootCA } from './server-probe.js';
import { findRunningServer } from './server-record.js';

export interface ServerStatus {
  rootDirectory: string;
  running: boolean;
  ready: boolean;
  pid?: number;
  url?: string;
  startedAt?: string;
  uptimeSeconds?: number;
  workspaces?: number;
  kubeconfig?: string;
  logFile?: string;
  /** Why a running server's details are missing (e.g. it answered the workspace count with an error). */
  warning?: string;
}

export async function serverStatus(rootDirectory: string): Promise<ServerStatus> {
  const running = findRunningServer(rootDirectory);
  if (!running) return { rootDirectory, running: false, ready: false };
  const { record } = running;
  if (!record) {
    return { rootDirectory, running: true, ready: false, pid: running.pid, warning: 'it wrote no server record, so its address is unknown' };
  }
  const probe = await probeServer(record.url, readRootCA(rootDirectory), () => shardAdminToken(record.kubeconfig));
  return {
    rootDirectory,
    running: true,
    ready: probe.ready,
    pid: record.pid,
    url: record.url,
    startedAt: record.startedAt,
    uptimeSeconds: Math.max(0, Math.round((Date.now() - Date.parse(record.startedAt)) / 1000)),
    kubeconfig: record.kubeconfig,
    ...(record.logFile ? { logFile: record.logFile } : {}),
    ...(probe.workspaces !== undefined ? { workspaces: probe.workspaces } : {}),
    ...(probe.error ? { warning: `could not count workspaces: ${probe.error}` } : {}),
  };
}

/** The user kcpt's admin.kubeconfig has for system:masters (the engine's SHARD_ADMIN_USER). */
const shardAdminUser = 'shard-admin';

/** The shard-admin token from the server's admin.kubeconfig. */
function shardAdminToken(kubeconfig: string): string {
  const token = Kubeconfig.load({ explicitPath: kubeconfig }).users.get(shardAdminUser)?.value.token;
  if (!token) throw new Error(`${kubeconfig} has no ${shardAdminUser} token`);
  return token;
}

/**
 * The `kcpt status` command. The answer goes to stdout (words, or data with -o); a server that is not running
 * or not ready also ends the command with an error line and exit code 1, so `kcpt status || …` works in scripts.
 */
export async function runStatus(io: Io, opts: { rootDirectory: string; output?: OutputFormat }): Promise<void> {
  const status = await serverStatus(path.resolve(opts.rootDirectory));
  if (opts.output) await printData(io, opts.output, status);
  else if (status.running) io.out(describeStatus(status).map((line) => `${line}\n`).join(''));
  if (!status.running) throw new CliError(`kcpt is not running in ${status.rootDirectory}${elsewhere(status.rootDirectory)}`);
  if (!status.url) throw new CliError(`kcpt (pid ${status.pid}) is running in ${status.rootDirectory}, but ${status.warning}`);
  if (!status.ready) throw new CliError(`kcpt (pid ${status.pid}) is running in ${status.rootDirectory} but not ready`);
}

/** Where else servers run, for the user who forgot --root-directory: ` (it runs in /tmp/kcp; …)`. */
function elsewhere(rootDirectory: string): string {
  const others = knownRootDirectories().filter((dir) => dir !== rootDirectory && findRunningServer(dir));
  if (others.length === 0) return '';
  return ` (it runs in ${others.join(', ')}: pass --root-directory or set ${ROOT_DIRECTORY_ENV})`;
}

/** `kcpt status --all`: every root directory kcpt was started in, as a table or as a List of statuses. */
export async function runStatusAll(io: Io, opts: { output?: OutputFormat }): Promise<void> {
  const statuses = await Promise.all(knownRootDirectories().map((dir) => serverStatus(dir)));
  const table = (wide: boolean) =>
    formatTable(
      ['ROOT DIRECTORY', 'STATUS', 'URL', 'PID', 'UP', 'WORKSPACES', ...(wide ? ['KUBECONFIG'] : [])],
      statuses.map((s) => [
        s.rootDirectory,
        s.running ? (s.ready ? 'Running' : 'NotReady') : 'Stopped',
        s.url ?? '',
        s.pid === undefined ? '' : String(s.pid),
        s.uptimeSeconds === undefined ? '' : formatUptime(s.uptimeSeconds),
        s.workspaces === undefined ? '' : String(s.workspaces),
        ...(wide ? [s.kubeconfig ?? path.join(s.rootDirectory, 'admin.kubeconfig')] : []),
      ]),
    );
  if (opts.output?.kind === 'wide') return io.out(table(true));
  if (opts.output) return printData(io, opts.output, { apiVersion: 'v1', items: statuses, kind: 'List' });
  if (statuses.length === 0) return io.err('No kcpt servers known: kcpt start records each root directory it runs in.\n');
  io.out(table(false));
}

/** A running server in words. */
export function describeStatus(status: ServerStatus): string[] {
  if (!status.url) return [`kcpt is running in ${status.rootDirectory} (pid ${status.pid})`];
  const lines = [
    `kcpt is running at ${status.url} (pid ${status.pid}, up ${formatUptime(status.uptimeSeconds ?? 0)}, ${status.ready ? 'ready' : 'not ready'})`,
  ];
  const field = (name: string, value: string | number | undefined) => {
    if (value !== undefined) lines.push(`  ${`${name}:`.padEnd(16)}${value}`);
  };
  field('workspaces', status.workspaces);
  field('root directory', status.rootDirectory);
  field('kubeconfig', status.kubeconfig);
  field('logs', status.logFile);
  if (status.warning) lines.push(`  warning: ${status.warning}`);
  return lines;
}

/** `1h 2m 3s`, `4m 5s`, `6s`. */
export function formatUptime(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h > 0) return `${h}h ${m}m ${s}s`;
  if (m > 0) return `${m}m ${s}s`;
  return `${s}s`;
}
