/**
 * The record a running `kcpt start` keeps in its root directory (`kcpt-server.json`): pid, URL and start time, so
 * that `kcpt status`, `kcpt stop` and a second `kcpt start --detach` can find the server without asking anyone.
 * The root lock (`kcpt.lock`, taken by the engine) stays the authority on "is a server using this directory";
 * the record adds where it listens. A server removes its record when it shuts down; one killed with SIGKILL
 * leaves it behind, which is why every reader checks that the pid is still a live kcpt process.
 */
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../../engine/auth/files.js';
import { readLockPid, ROOT_LOCK_FILE } from '../../engine/auth/root-directory.js';

export const SERVER_RECORD_FILE = 'kcpt-server.json';
export const SERVER_LOG_FILE = 'kcpt.log';

export interface ServerRecord {
  pid: number;
  /** `https://host:port` */
  url: string;
  port: number;
  rootDirectory: string;
  kubeconfig: string;
  /** ISO time at which the server became ready. */
  startedAt: string;
  /** Started by `kcpt start --detach`; its output goes to `logFile`. */
  detached: boolean;
  logFile?: string;
}

export function serverRecordPath(rootDirectory: string): string {
  return path.join(rootDirectory, SERVER_RECORD_FILE);
}

export async function writeServerRecord(record: ServerRecord): Promise<void> {
  await writeFileAtomic(serverRecordPath(record.rootDirectory), `${JSON.stringify(record, null, 2)}\n`, 0o600);
}

/** The record in `rootDirectory`, or undefined when there is none or it is not one of ours. */
export function readServerRecord(rootDirectory: string): ServerRecord | undefined {
  try {
    const record = JSON.parse(readFileSync(serverRecordPath(rootDirectory), 'utf8')) as Partial<ServerRecord>;
    if (typeof record.pid !== 'number' || typeof record.url !== 'string' || typeof record.startedAt !== 'string') return undefined;
    return record as ServerRecord;
  } catch {
    return undefined;
  }
}

/** Removes the record, but only if it still describes process `pid` (a newer server may have replaced it). */
export function removeServerRecord(rootDirectory: string, pid: number): void {
  if (readServerRecord(rootDirectory)?.pid !== pid) return;
  rmSync(serverRecordPath(rootDirectory), { force: true });
}

/**
 * Whether `pid` is a live process that can be a kcpt server. Pids are reused, so after a crash or a reboot the
 * pid in a stale record may belong to anything; on Linux the command line tells a `… start …` node process apart
 * from an unrelated one. Elsewhere liveness is all we can check.
 */
export function isServerProcess(pid: number): boolean {
  if (!isAlive(pid)) return false;
  let cmdline: string;
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return true;
  }
  const argv = cmdline.split('\0');
  return argv.includes('start') && argv.some((a) => /node|kcpt|run\.js/.test(a));
}

/**
 * Whether a process with this pid exists (EPERM: it does, owned by another user). A zombie counts as gone: a
 * detached server is re-parented to pid 1, and in a container pid 1 does not always reap its children.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    // /proc/<pid>/stat: "pid (comm) S …"; comm may hold spaces and parentheses, so read after the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

export interface RunningServer {
  pid: number;
  /** Undefined for a server that holds the lock but wrote no record (e.g. one started in-process by a test suite). */
  record?: ServerRecord;
}

/** The server using `rootDirectory`, if one is running: the record's pid, else the root lock's holder. */
export function findRunningServer(rootDirectory: string): RunningServer | undefined {
  const record = readServerRecord(rootDirectory);
  if (record && isServerProcess(record.pid)) return { pid: record.pid, record };
  const lockPid = readLockPid(path.join(rootDirectory, ROOT_LOCK_FILE));
  // The lock is judged as the engine judges it (any live holder), so we never report "not running" for a
  // directory a server would refuse to start on.
  if (lockPid !== undefined && lockPid !== process.pid && isAlive(lockPid)) return { pid: lockPid };
  return undefined;
}
