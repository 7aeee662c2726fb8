/**
 * oclif's side of start --detach, stop, status and kubeconfig, in-process with runCommand: usage errors (exit 2),
 * failures (exit 1, one line on stderr), and -o json|yaml where no server is needed.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from '@oclif/test';
import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/server.js';

let dir: string;
let empty: string;
const saved = { KUBECONFIG: process.env.KUBECONFIG, XDG_STATE_HOME: process.env.XDG_STATE_HOME };

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kcpt-ops-flags-'));
  // No servers this user runs elsewhere (status would name them).
  process.env.XDG_STATE_HOME = join(dir, 'state');
  empty = join(dir, 'empty-root');
  const kubeconfig = join(dir, 'config');
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{name: c, cluster: {server: "https://127.0.0.1:1/clusters/root:org"}}]',
      'contexts: [{name: c, context: {cluster: c, user: u}}]',
      'current-context: c',
      'users: [{name: u, user: {token: t}}]',
      '',
    ].join('\n'),
  );
  process.env.KUBECONFIG = kubeconfig;
});
afterAll(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  rmSync(dir, { recursive: true, force: true });
});

const run = (args: string[]) => runCommand(args, { root: repoRoot });

describe('server lifecycle commands through oclif', () => {
  it('status of a root directory without a server: exit 1, data on stdout with -o, one error line', async () => {
    const words = await run(['status', '--root-directory', empty]);
    expect([words.error?.oclif?.exit, words.stdout, words.stderr]).toEqual([1, '', `Error: kcpt is not running in ${empty}\n`]);
    const json = await run(['status', '--root-directory', empty, '-o', 'json']);
    expect(JSON.parse(json.stdout)).toEqual({ rootDirectory: empty, running: false, ready: false });
    expect(json.error?.oclif?.exit).toBe(1);
  });

  it('stop with nothing running succeeds, in words or as yaml', async () => {
    expect((await run(['stop', '--root-directory', empty])).stdout).toBe(`no kcpt server is running in ${empty}\n`);
    const yaml = await run(['stop', '--root-directory', empty, '-o', 'yaml']);
    expect(yaml.error).toBeUndefined();
    expect(load(yaml.stdout)).toEqual({ rootDirectory: empty, wasRunning: false });
  });

  it('usage mistakes exit 2', async () => {
    const timeout = await run(['stop', '--root-directory', empty, '--timeout', 'soon']);
    expect([timeout.error?.oclif?.exit, timeout.stderr]).toEqual([2, 'Error: --timeout: "soon" is not a duration like 100ms, 30s, 5m or 1h\nSee \'kcpt stop --help\' for usage.\n']);
    expect((await run(['status', '-o', 'table'])).error?.oclif?.exit).toBe(2);
    expect((await run(['stop', '--bogus'])).error?.oclif?.exit).toBe(2);
    const output = await run(['start', '--root-directory', empty, '-o', 'json']);
    expect(output.error?.oclif?.exit).toBe(2);
    expect(output.stderr).toBe("Error: -o/--output prints where a detached server runs: use it with --detach\nSee 'kcpt start --help' for usage.\n");
  });
});

describe('kubeconfig through oclif', () => {
  it('rejects bad flags and arguments with exit 2 before touching the network', async () => {
    const cases: [string[], string][] = [
      [['kubeconfig', '--service-account', 'ci'], 'Error: --service-account: "ci" is not NAMESPACE/NAME, e.g. default/ci\n'],
      [['kubeconfig', '--duration', '1h'], "Error: --duration sets the lifetime of a --service-account token; a user's token is used as it is\n"],
      [['kubeconfig', '--service-account', 'default/ci', '--duration', 'eventually'], 'Error: --duration: "eventually" is not a duration like 100ms, 30s, 5m or 1h\n'],
      [['kubeconfig', '--user', 'nobody'], 'Error: user "nobody" is not in the kubeconfig: pass the user\'s token with --token\n'],
      [['kubeconfig', 'team', '--server', 'https://127.0.0.1:1'], 'Error: "team" is relative, but the server URL https://127.0.0.1:1 points at no workspace: give an absolute path like root:org\n'],
      [['kubeconfig', 'UPPER'], 'Error: invalid workspace path: UPPER\n'],
    ];
    for (const [args, stderr] of cases) {
      const r = await run(args);
      expect([args, r.error?.oclif?.exit, r.stderr]).toEqual([args, 2, `${stderr}See 'kcpt kubeconfig --help' for usage.\n`]);
    }
  });

  it('an unreachable server is one line on stderr and exit 1, and nothing is written', async () => {
    const file = join(dir, 'out.kubeconfig');
    const r = await run(['kubeconfig', 'team', '-o', file]);
    expect([r.error?.oclif?.exit, r.stderr]).toEqual([1, 'Error: Unable to connect to the server: dial tcp 127.0.0.1:1: connect: connection refused\n']);
    expect(existsSync(file)).toBe(false);
    expect(r.stdout).toBe('');
  });
});
