/**
 * oclif's side of the ws commands, in-process with runCommand: flag parsing, usage errors (exit 2), failures
 * (exit 1, one line on stderr) and -o json/yaml for the commands that need only a kubeconfig.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from '@oclif/test';
import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/server.js';

let dir: string;
let kubeconfig: string;
const saved = process.env.KUBECONFIG;

const config = (server: string) => `apiVersion: v1
kind: Config
clusters:
- name: ws
  cluster:
    server: ${server}
contexts:
- name: ws
  context:
    cluster: ws
    user: u
current-context: ws
users:
- name: u
  user:
    token: t
`;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kcpt-ws-flags-'));
  kubeconfig = join(dir, 'config');
  writeFileSync(kubeconfig, config('https://127.0.0.1:1/clusters/root:org'));
  process.env.KUBECONFIG = kubeconfig;
});
afterAll(() => {
  process.env.KUBECONFIG = saved;
  rmSync(dir, { recursive: true, force: true });
});

const run = (args: string[]) => runCommand(args, { root: repoRoot });

describe('ws commands through oclif', () => {
  it('prints the current workspace, --short, -o json and -o yaml', async () => {
    expect((await run(['ws', 'current'])).stdout).toBe("Current workspace is 'root:org'.\n");
    expect((await run(['ws', '.'])).stdout).toBe("Current workspace is 'root:org'.\n");
    expect((await run(['ws', 'current', '--short'])).stdout).toBe('root:org\n');
    expect(JSON.parse((await run(['ws', 'current', '-o', 'json'])).stdout)).toEqual({
      workspace: 'root:org',
      url: 'https://127.0.0.1:1/clusters/root:org',
    });
    expect(load((await run(['ws', 'current', '--output', 'yaml'])).stdout)).toEqual({
      workspace: 'root:org',
      url: 'https://127.0.0.1:1/clusters/root:org',
    });
  });

  it('reads --kubeconfig and --context instead of KUBECONFIG', async () => {
    const other = join(dir, 'other');
    writeFileSync(other, config('https://127.0.0.1:1/clusters/root:other').replace('current-context: ws', 'current-context: nope'));
    expect((await run(['ws', 'current', '--short', '--kubeconfig', other, '--context', 'ws'])).stdout).toBe('root:other\n');
    const r = await run(['ws', 'current', '--context', 'missing']);
    expect(r.error?.oclif?.exit).toBe(1);
    expect(r.stderr).toBe('Error: context "missing" does not exist\n');
  });

  it('a URL without /clusters/ is reported like kcp, and --short prints nothing', async () => {
    expect((await run(['ws', 'current', '--server', 'https://127.0.0.1:1'])).stdout).toBe('Current workspace is the URL "https://127.0.0.1:1".\n');
    expect((await run(['ws', 'current', '--short', '--server', 'https://127.0.0.1:1'])).stdout).toBe('');
  });

  it('usage mistakes exit 2: unknown flag, bad -o, missing argument, missing name without a terminal', async () => {
    expect((await run(['ws', 'current', '--bogus'])).error?.oclif?.exit).toBe(2);
    expect((await run(['ws', 'current', '-o', 'table'])).error?.oclif?.exit).toBe(2);
    expect((await run(['ws', 'use'])).error?.oclif?.exit).toBe(2);
    const create = await run(['ws', 'create']);
    expect(create.error?.oclif?.exit).toBe(2);
    expect(create.stderr).toBe("Error: workspace name (argument NAME) is required\nSee 'kcpt ws create --help' for usage.\n");
  });

  it('an unreachable server is one line on stderr and exit 1', async () => {
    const r = await run(['ws', 'tree']);
    expect(r.error?.oclif?.exit).toBe(1);
    expect(r.stderr).toBe('Error: Unable to connect to the server: dial tcp 127.0.0.1:1: connect: connection refused\n');
  });

  it('create-context names the context after the workspace, then refuses to overwrite without --overwrite', async () => {
    const r = await run(['ws', 'create-context']);
    expect(r.stdout).toBe('Created context "root:org" and switched to it.\n');
    expect((load(readFileSync(kubeconfig, 'utf8')) as { 'current-context': string })['current-context']).toBe('root:org');
    const again = await run(['ws', 'create-context', 'root:org']);
    expect([again.error?.oclif?.exit, again.stderr]).toEqual([1, 'Error: context "root:org" already exists in kubeconfig, use --overwrite to update it\n']);
    expect((await run(['ws', 'create-context', 'root:org', '--overwrite'])).stdout).toBe('Updated context "root:org".\n');
  });

  it('- without a previous workspace fails like kcp', async () => {
    const r = await run(['ws', '-']);
    expect([r.error?.oclif?.exit, r.stderr]).toEqual([1, 'Error: no previous workspace found in kubeconfig\n']);
  });
});
