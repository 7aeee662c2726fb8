/**
 * `kcpt start --detach`, `kcpt status` and `kcpt stop` as a CI script uses them: real processes, no sleeps (the
 * start returns once the server answers, everything else is polled), kubectl pointed at what start printed.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/server.js';
import { printedKubeconfig, runKcpt, spawnKcpt } from '../helpers/cli.js';

const dirs: string[] = [];
/** Roots whose server must be stopped after the suite even if a test failed half-way. */
const roots: string[] = [];
afterAll(async () => {
  await Promise.all(roots.map((root) => kcpt(['stop', '--root-directory', root, '--timeout', '5s'])));
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

let home: string | undefined;
async function env(): Promise<Record<string, string>> {
  home ??= await tempDir('kcpt-detach-home-');
  return { HOME: home, KUBECACHEDIR: join(home, 'kubecache'), NO_COLOR: '1' };
}

async function kcpt(args: string[], extraEnv: Record<string, string> = {}) {
  return runKcpt(args, { ...(await env()), ...extraEnv });
}

async function kubectl(kubeconfig: string, args: string[]) {
  const result = await execa('kubectl', args, { reject: false, stdin: 'ignore', env: { ...(await env()), KUBECONFIG: kubeconfig } });
  return { stdout: String(result.stdout), stderr: String(result.stderr), exitCode: result.exitCode ?? -1 };
}

async function newRoot(): Promise<string> {
  const root = join(await tempDir('kcpt-detach-'), 'kcp');
  roots.push(root);
  return root;
}

/** Whether `pid` runs; a zombie (exited, not yet reaped: pid 1 of a container may never reap) has stopped. */
async function alive(pid: number): Promise<boolean> {
  const ps = await execa('ps', ['-o', 'stat=', '-p', String(pid)], { reject: false });
  const state = String(ps.stdout).trim();
  return state !== '' && !state.startsWith('Z');
}

interface Started {
  pid: number;
  url: string;
  port: number;
  rootDirectory: string;
  kubeconfig: string;
  logFile: string;
}

async function startDetached(root: string, port: number): Promise<Started> {
  const result = await kcpt(['start', '--detach', '--root-directory', root, '--secure-port', String(port), '-o', 'json']);
  expect(result.exitCode, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Started;
}

describe('kcpt start --detach, status, stop', () => {
  it('starts in the background, is usable at once, reports status, refuses a second start and stops cleanly', async () => {
    const root = await newRoot();
    const port = await freePort();

    const human = await kcpt(['start', '--detach', '--root-directory', root, '--secure-port', String(port)]);
    expect(human.exitCode, human.stderr).toBe(0);
    expect(human.stdout).toContain(`kcpt is running in the background at https://127.0.0.1:${port} (pid `);
    expect(human.stdout).toContain(`  export KUBECONFIG=${join(root, 'admin.kubeconfig')}\n`);
    expect(human.stdout).toContain(`Stop it with: kcpt stop --root-directory ${root}`);

    // Ready means ready: kubectl works right away, no sleep.
    const kubeconfig = join(root, 'admin.kubeconfig');
    const ns = await kubectl(kubeconfig, ['get', 'namespace', 'default', '-o', 'name']);
    expect(ns.stdout.trim(), ns.stderr).toBe('namespace/default');

    const second = await kcpt(['start', '--detach', '--root-directory', root, '--secure-port', String(await freePort())]);
    expect(second.exitCode).toBe(1);
    expect(second.stderr).toMatch(new RegExp(`kcpt is already running in ${root} \\(pid \\d+ at https://127\\.0\\.0\\.1:${port}\\); stop it with "kcpt stop --root-directory ${root}"`));

    const status = await kcpt(['status', '--root-directory', root, '-o', 'json']);
    expect(status.exitCode, status.stderr).toBe(0);
    const before = JSON.parse(status.stdout);
    expect(before).toMatchObject({
      running: true,
      ready: true,
      url: `https://127.0.0.1:${port}`,
      rootDirectory: root,
      kubeconfig,
      logFile: join(root, 'kcpt.log'),
      workspaces: 0,
    });
    expect(await alive(before.pid)).toBe(true);
    expect(before.uptimeSeconds).toBeGreaterThanOrEqual(0);

    for (const name of ['one', 'two']) {
      const file = join(root, `${name}.yaml`);
      await writeFile(file, `apiVersion: tenancy.kcp.io/v1alpha1\nkind: Workspace\nmetadata:\n  name: ${name}\n`);
      const made = await kubectl(kubeconfig, ['create', '-f', file]);
      expect(made.exitCode, made.stderr).toBe(0);
    }
    const text = await kcpt(['status', '--root-directory', root]);
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^kcpt is running at https://127\\.0\\.0\\.1:${port} \\(pid ${before.pid}, up \\d+s, ready\\)\n`));
    expect(text.stdout).toContain('  workspaces:     2\n');
    expect(text.stdout).toContain(`  root directory: ${root}\n`);

    const yaml = await kcpt(['status', '--root-directory', root, '-o', 'yaml']);
    expect(yaml.stdout).toContain(`pid: ${before.pid}\n`);
    expect(yaml.stdout).toContain('workspaces: 2');

    const stopped = await kcpt(['stop', '--root-directory', root]);
    expect(stopped.exitCode, stopped.stderr).toBe(0);
    expect(stopped.stdout).toMatch(new RegExp(`^kcpt stopped \\(pid ${before.pid}, in \\d+ ms\\)\n?$`));
    expect(await alive(before.pid)).toBe(false);
    expect(existsSync(join(root, 'kcpt-server.json'))).toBe(false);
    expect(await readFile(join(root, 'kcpt.log'), 'utf8')).toContain('received SIGTERM, shutting down');

    const after = await kcpt(['status', '--root-directory', root, '-o', 'json']);
    expect(after.exitCode).toBe(1);
    expect(JSON.parse(after.stdout)).toEqual({ rootDirectory: root, running: false, ready: false });
    expect(after.stderr.trim()).toBe(`Error: kcpt is not running in ${root}`);
    const words = await kcpt(['status', '--root-directory', root]);
    expect([words.exitCode, words.stdout, words.stderr.trim()]).toEqual([1, '', `Error: kcpt is not running in ${root}`]);

    const again = await kcpt(['stop', '--root-directory', root]);
    expect([again.exitCode, again.stdout.trim()]).toEqual([0, `no kcpt server is running in ${root}`]);
  });

  it('reports a server that fails to start with the end of its log, and exits 1', async () => {
    const root = await newRoot();
    const blocker: Server = createServer();
    const port = await new Promise<number>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve((blocker.address() as { port: number }).port)));
    try {
      const result = await kcpt(['start', '--detach', '--root-directory', root, '--secure-port', String(port)]);
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toContain(`before it was ready; the end of ${join(root, 'kcpt.log')}:`);
      expect(result.stderr).toContain('EADDRINUSE');
      expect((await kcpt(['status', '--root-directory', root])).exitCode).toBe(1);
    } finally {
      blocker.close();
    }
  });

  it('kills a server that does not stop within --timeout, and the root directory can be started again', async () => {
    const root = await newRoot();
    const first = await startDetached(root, await freePort());
    // A stopped process cannot act on SIGTERM: the only way out is SIGKILL.
    process.kill(first.pid, 'SIGSTOP');
    const stopped = await kcpt(['stop', '--root-directory', root, '--timeout', '300ms', '-o', 'json']);
    expect(stopped.exitCode, stopped.stderr).toBe(0);
    expect(JSON.parse(stopped.stdout)).toMatchObject({ wasRunning: true, pid: first.pid, killed: true });
    expect(await alive(first.pid)).toBe(false);

    const text = await kcpt(['stop', '--root-directory', root]);
    expect(text.stdout.trim()).toBe(`no kcpt server is running in ${root}`);

    // The killed server left its lock behind; the next start takes it over.
    const second = await startDetached(root, await freePort());
    expect(second.pid).not.toBe(first.pid);
    const status = await kcpt(['status', '--root-directory', root, '-o', 'json']);
    expect(JSON.parse(status.stdout)).toMatchObject({ running: true, ready: true, pid: second.pid });
    expect((await kcpt(['stop', '--root-directory', root])).exitCode).toBe(0);
  });

  it('sees and stops a foreground kcpt start too', async () => {
    const root = await newRoot();
    const port = await freePort();
    const server = spawnKcpt(['start', '--root-directory', root, '--secure-port', String(port)], await env());
    const child = server.child;
    await printedKubeconfig(server);
    const status = await kcpt(['status', '--root-directory', root, '-o', 'json']);
    expect(JSON.parse(status.stdout)).toMatchObject({ running: true, ready: true, pid: child.pid, url: `https://127.0.0.1:${port}` });
    expect(JSON.parse(status.stdout).logFile).toBeUndefined();

    const refused = await kcpt(['start', '--detach', '--root-directory', root]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain(`kcpt is already running in ${root} (pid ${child.pid} at https://127.0.0.1:${port})`);

    const stopped = await kcpt(['stop', '--root-directory', root]);
    expect(stopped.stdout).toContain(`kcpt stopped (pid ${child.pid}`);
    expect((await child).exitCode).toBe(0);
  });

  it('does not take a stale record whose pid now belongs to another process for a server', async () => {
    const root = await newRoot();
    const started = await startDetached(root, await freePort());
    expect((await kcpt(['stop', '--root-directory', root])).exitCode).toBe(0);
    // As after a crash and a reboot: the record survived, its pid is now someone else's (this test process).
    await writeFile(join(root, 'kcpt-server.json'), JSON.stringify({ ...started, pid: process.pid, startedAt: new Date().toISOString(), detached: true }));
    const status = await kcpt(['status', '--root-directory', root]);
    expect([status.exitCode, status.stderr.trim()]).toEqual([1, `Error: kcpt is not running in ${root}`]);
    const stop = await kcpt(['stop', '--root-directory', root]);
    expect(stop.stdout.trim()).toBe(`no kcpt server is running in ${root}`);
    expect(await alive(process.pid)).toBe(true);
    expect(existsSync(join(root, 'kcpt-server.json'))).toBe(false);
  });

  it('treats the holder of the root lock as the server when it wrote no record (e.g. startServer in a test suite)', async () => {
    const root = await newRoot();
    await mkdir(root, { recursive: true });
    // Any live process stands in for an in-process server: the engine's lock holds only its pid.
    const holder = execa('sleep', ['60'], { reject: false });
    await writeFile(join(root, 'kcpt.lock'), `${holder.pid}\n`);
    const status = await kcpt(['status', '--root-directory', root]);
    expect([status.exitCode, status.stdout.trim(), status.stderr.trim()]).toEqual([
      1,
      `kcpt is running in ${root} (pid ${holder.pid})`,
      `Error: kcpt (pid ${holder.pid}) is running in ${root}, but it wrote no server record, so its address is unknown`,
    ]);
    const refused = await kcpt(['start', '--detach', '--root-directory', root]);
    expect([refused.exitCode, refused.stderr]).toEqual([1, expect.stringContaining(`kcpt is already running in ${root} (pid ${holder.pid}); stop it with`)]);
    const stopped = await kcpt(['stop', '--root-directory', root]);
    expect(stopped.stdout).toContain(`kcpt stopped (pid ${holder.pid}`);
    expect((await holder).signal).toBe('SIGTERM');
  });

  it('finds its server without --root-directory (KCPT_ROOT_DIRECTORY, status --all), follows its log, names only the flags given', async () => {
    const root = await newRoot();
    const own = { HOME: await tempDir('kcpt-detach-own-home-') };
    const viaEnv = { ...own, KCPT_ROOT_DIRECTORY: root };
    const started = await kcpt(['start', '--detach', '--secure-port', '0', '-o', 'json'], viaEnv);
    expect(started.exitCode, started.stderr).toBe(0);
    const server = JSON.parse(started.stdout) as Started;
    expect(server.rootDirectory).toBe(root);
    // ps shows what was asked for, without empty --storage or --etcd-prefix values.
    const argv = (await readFile(`/proc/${server.pid}/cmdline`, 'utf8')).split('\0').filter(Boolean);
    expect(argv.slice(argv.indexOf('start'))).toEqual(['start', '--root-directory', root, '--secure-port', '0']);

    const status = await kcpt(['status'], viaEnv);
    expect([status.exitCode, status.stdout]).toEqual([0, expect.stringContaining(`kcpt is running at ${server.url} (pid ${server.pid}`)]);
    const all = await kcpt(['status', '--all'], own);
    expect(all.exitCode, all.stderr).toBe(0);
    expect(all.stdout.split('\n')[0]!.split(/\s{2,}/)).toEqual(['ROOT DIRECTORY', 'STATUS', 'URL', 'PID', 'UP', 'WORKSPACES']);
    expect(all.stdout).toMatch(new RegExp(`\n${root}\\s+Running\\s+${server.url}\\s+${server.pid}\\s`));
    // Looking in the wrong place (the default .kcp) says where it runs.
    const elsewhere = await kcpt(['status'], own);
    expect([elsewhere.exitCode, elsewhere.stderr]).toEqual([1, expect.stringContaining(`(it runs in ${root}: pass --root-directory or set KCPT_ROOT_DIRECTORY)`)]);

    const logs = await kcpt(['logs', '--tail', '1'], viaEnv);
    expect([logs.exitCode, logs.stdout]).toEqual([0, `  export KUBECONFIG=${server.kubeconfig}`]);
    const version = await kcpt(['version', '--kubeconfig', server.kubeconfig]);
    expect(version.stdout).toMatch(new RegExp(`^Client Version: kcpt \\d+\\.\\d+\\.\\d+ \\(Node\\.js v[\\d.]+, [a-z0-9]+/[a-z0-9]+\\)\nServer Version: v1\\.32\\.\\d+\\+kcpt \\(Kubernetes 1\\.32\\) at ${server.url}$`));

    // logs -f prints what the server writes until it stops, then ends by itself.
    const following = spawnKcpt(['logs', '-f', '--tail', '1'], { ...(await env()), ...viaEnv }).child;
    // Once it printed the tail it is following.
    await new Promise((resolve) => following.stdout?.once('data', resolve));
    const stopped = await kcpt(['stop'], viaEnv);
    expect(stopped.exitCode, stopped.stderr).toBe(0);
    const followed = await following;
    expect([followed.exitCode, String(followed.stdout)]).toEqual([0, expect.stringContaining('received SIGTERM, shutting down')]);
    expect((await kcpt(['status', '--all'], own)).stdout).toMatch(new RegExp(`\n${root}\\s+Stopped\\s*(\n|$)`));
  });

  it('rejects bad flags as usage errors (exit 2)', async () => {
    const root = await newRoot();
    const badTimeout = await kcpt(['stop', '--root-directory', root, '--timeout', 'soon']);
    expect([badTimeout.exitCode, badTimeout.stderr.trim()]).toEqual([
      2,
      'Error: --timeout: "soon" is not a duration like 100ms, 30s, 5m or 1h\nSee \'kcpt stop --help\' for usage.',
    ]);
    const outputWithoutDetach = await kcpt(['start', '--root-directory', root, '-o', 'json']);
    expect(outputWithoutDetach.exitCode).toBe(2);
    expect(outputWithoutDetach.stderr).toContain('use it with --detach');
    const badFormat = await kcpt(['status', '--root-directory', root, '-o', 'table']);
    expect(badFormat.exitCode).toBe(2);
    expect(badFormat.stderr).toContain('unable to match a printer suitable for the output format "table", allowed formats are: json,jsonpath,');
  });
});
