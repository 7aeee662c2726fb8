import { spawn, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireRootLock, prepareRootDirectory } from './root-directory.js';

let tmp: string;
const children: ChildProcess[] = [];
beforeEach(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'kcpt-root-'));
});
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await fs.rm(tmp, { recursive: true, force: true });
});

const mode = async (p: string) => (await fs.stat(p)).mode & 0o777;
const lockFile = (root: string) => path.join(root, 'kcpt.lock');

/** A separate node process that takes the lock on `root`, reports "locked", then waits (or exits if told). */
function lockInChild(root: string, exitAfterLock = false): Promise<ChildProcess> {
  const moduleUrl = new URL('./root-directory.ts', import.meta.url).href;
  const script =
    `const { acquireRootLock } = await import(${JSON.stringify(moduleUrl)});` +
    `acquireRootLock(${JSON.stringify(root)}); console.log('locked');` +
    (exitAfterLock ? 'process.exit(0);' : 'setInterval(() => {}, 1000);');
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: path.dirname(fileURLToPath(import.meta.url)),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      if (!exitAfterLock && chunk.toString().includes('locked')) resolve(child);
    });
    child.on('exit', (code) => (exitAfterLock && code === 0 ? resolve(child) : reject(new Error(`child exited ${code}`))));
  });
}

describe('prepareRootDirectory', () => {
  it('creates a missing directory (and parents) with mode 0700 and returns the absolute path', async () => {
    const relative = path.relative(process.cwd(), path.join(tmp, 'a', '.kcp'));
    const root = await prepareRootDirectory(relative);
    expect(root).toBe(path.join(tmp, 'a', '.kcp'));
    expect(await mode(root)).toBe(0o700);
  });

  it('leaves an existing directory alone, warning only when others can read it', async () => {
    const warnings: string[] = [];
    const onWarning = (m: string) => warnings.push(m);
    const open = path.join(tmp, 'open');
    await fs.mkdir(open);
    await fs.chmod(open, 0o755);
    expect(await prepareRootDirectory(open, { onWarning })).toBe(open);
    expect(await mode(open)).toBe(0o755);
    expect(warnings).toEqual([
      `root directory "${open}" is accessible by group or others (mode 755); it holds private keys and tokens, consider "chmod 700 ${open}"`,
    ]);
    warnings.length = 0;
    await fs.chmod(open, 0o700);
    await prepareRootDirectory(open, { onWarning });
    expect(warnings).toEqual([]);
  });

  it('refuses a path that is a file', async () => {
    const file = path.join(tmp, 'file');
    await fs.writeFile(file, '');
    await expect(prepareRootDirectory(file)).rejects.toThrow(/exists but is not a directory|EEXIST|ENOTDIR/);
  });
});

describe('acquireRootLock', () => {
  it('writes our pid, rejects a second holder in the same process, and releases', async () => {
    const release = acquireRootLock(tmp);
    expect((await fs.readFile(lockFile(tmp), 'utf8')).trim()).toBe(String(process.pid));
    expect(await mode(lockFile(tmp))).toBe(0o600);
    expect(() => acquireRootLock(tmp)).toThrow(
      `another kcpt server (pid ${process.pid}) is already using root directory "${tmp}"`,
    );
    release();
    release(); // idempotent
    await expect(fs.stat(lockFile(tmp))).rejects.toThrow();
    expect(await fs.readdir(tmp)).toEqual([]);
    acquireRootLock(tmp)();
  });

  it('fails fast while another live process holds the lock, and takes over once it was killed', async () => {
    const child = await lockInChild(tmp);
    expect(() => acquireRootLock(tmp)).toThrow(
      `another kcpt server (pid ${child.pid}) is already using root directory "${tmp}"`,
    );
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGKILL'); // no chance to clean up: the lock file stays behind, stale
    await exited;
    expect((await fs.readFile(lockFile(tmp), 'utf8')).trim()).toBe(String(child.pid));
    const release = acquireRootLock(tmp);
    expect((await fs.readFile(lockFile(tmp), 'utf8')).trim()).toBe(String(process.pid));
    release();
  });

  it('is released when the holding process exits normally', async () => {
    await lockInChild(tmp, true);
    await expect(fs.stat(lockFile(tmp))).rejects.toThrow();
  });

  it('treats garbage and our own pid from a previous incarnation as stale', async () => {
    await fs.writeFile(lockFile(tmp), 'not a pid\n');
    acquireRootLock(tmp)();
    await fs.writeFile(lockFile(tmp), `${process.pid}\n`); // e.g. a container restarted with the same pid
    const release = acquireRootLock(tmp);
    release();
  });

  it('does not remove a lock that another server took over meanwhile', async () => {
    const release = acquireRootLock(tmp);
    await fs.writeFile(lockFile(tmp), '999999999\n');
    release();
    expect(await fs.readFile(lockFile(tmp), 'utf8')).toBe('999999999\n');
  });
});
