/**
 * How kcpt answers a mistyped command line, in-process through oclif (runCommand): `-h` as `--help` everywhere, one
 * `Error:` line plus `See 'kcpt … --help' for usage.` for every usage mistake (exit 2, never the whole help), "Did you
 * mean" for a mistyped command, and kubectl's words for an output format a command does not take.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from '@oclif/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/server.js';

const run = (args: string[]) => runCommand(args, { root: repoRoot });
let dir: string;
const saved = process.env.KUBECONFIG;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kcpt-usage-'));
  process.env.KUBECONFIG = join(dir, 'config');
  writeFileSync(
    process.env.KUBECONFIG,
    'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1/clusters/root:org"}}]\n' +
      'contexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\nusers: [{name: u, user: {token: t}}]\n',
  );
});
afterAll(() => {
  process.env.KUBECONFIG = saved;
  rmSync(dir, { recursive: true, force: true });
});

/** A usage mistake: exit 2, the error line, and where the help is, nothing else. */
function expectUsage(r: Awaited<ReturnType<typeof run>>, line: string, command: string): void {
  expect([r.error?.oclif?.exit, r.stderr, r.stdout]).toEqual([2, `${line}\nSee '${command} --help' for usage.\n`, '']);
}

describe('-h', () => {
  it('is --help for kcpt, its topics and every command', async () => {
    for (const args of [['-h'], ['ws', '-h'], ['ws', 'create', '-h'], ['start', '-h'], ['bind', 'x', '-h']]) {
      const r = await run(args);
      expect([args, r.error, r.stderr]).toEqual([args, undefined, '']);
      expect(r.stdout).toContain('USAGE');
    }
    expect((await run(['ws', '-h'])).stdout).toBe((await run(['ws', '--help'])).stdout);
  });
});

describe('usage mistakes', () => {
  it('say what is wrong in one line and where the help is', async () => {
    expectUsage(await run(['ws', '--bogus']), 'Error: unknown flag: --bogus', 'kcpt ws');
    expectUsage(await run(['ws', '-x']), "Error: unknown shorthand flag: 'x' in -x", 'kcpt ws');
    expectUsage(await run(['ws', 'create', 'a', 'b']), 'Error: unexpected argument "b": "kcpt ws create" takes at most 1 (NAME)', 'kcpt ws create');
    expectUsage(await run(['ws', 'tree', 'x']), 'Error: unexpected argument "x": "kcpt ws tree" takes no arguments', 'kcpt ws tree');
    expectUsage(await run(['ws', 'use']), 'Error: "kcpt ws use" requires an argument: WORKSPACE', 'kcpt ws use');
    expectUsage(await run(['start', '--secure-port', 'abc']), 'Error: invalid value for --secure-port: expected an integer but received: abc', 'kcpt start');
    expectUsage(await run(['status', '--output']), 'Error: flag needs an argument: --output', 'kcpt status');
  });

  it('a mistyped command or subcommand gets the ones meant', async () => {
    const r = await run(['wss']);
    expect([r.error?.oclif?.exit, r.stderr]).toEqual([
      2,
      'Error: unknown command "wss" for "kcpt"\n\nDid you mean this?\n\tws\n\nSee \'kcpt --help\' for usage.\n',
    ]);
    const sub = await run(['ws', 'creat', 'team']);
    expect(sub.error?.oclif?.exit).toBe(2);
    expect(sub.stderr).toContain('Did you mean this?\n\tkcpt ws create\n');
    const nothingClose = await run(['frobnicate']);
    expect([nothingClose.error?.oclif?.exit, nothingClose.stderr]).toEqual([2, 'Error: unknown command "frobnicate" for "kcpt"\nSee \'kcpt --help\' for usage.\n']);
  });
});

describe('-o', () => {
  it("refuses a format the command does not take in kubectl's words", async () => {
    expectUsage(
      await run(['ws', 'current', '-o', 'name']),
      'Error: unable to match a printer suitable for the output format "name", allowed formats are: json,jsonpath,jsonpath-as-json,jsonpath-file,yaml',
      'kcpt ws current',
    );
    expectUsage(
      await run(['ws', 'list', '-o', 'table']),
      'Error: unable to match a printer suitable for the output format "table", allowed formats are: json,jsonpath,jsonpath-as-json,jsonpath-file,name,wide,yaml',
      'kcpt ws list',
    );
    expectUsage(await run(['ws', 'current', '-o', 'jsonpath=']), 'Error: jsonpath template format specified but no template given', 'kcpt ws current');
  });

  it('takes jsonpath templates (and files of them) where it takes json', async () => {
    expect((await run(['ws', 'current', '-o', 'jsonpath={.workspace}'])).stdout).toBe('root:org');
    writeFileSync(join(dir, 'template'), '{.url}');
    expect((await run(['ws', 'current', '-o', `jsonpath-file=${join(dir, 'template')}`])).stdout).toBe('https://127.0.0.1:1/clusters/root:org');
    expect((await run(['status', '--root-directory', dir, '-o', 'jsonpath={.running}'])).stdout).toBe('false');
  });
});
