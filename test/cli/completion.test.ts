/**
 * Shell completion as bash runs it: the script `kcpt completion bash` prints, sourced in a real bash that finds
 * `kcpt` on PATH (this checkout's bin/run.js), asked what follows a command line. No server here (the workspace names
 * are test/e2e/kubectl-plugins.test.ts's part): commands each once, subcommands, flags, -o formats, kubeconfig contexts.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/server.js';
import { runKcpt } from '../helpers/cli.js';

let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kcpt-completion-'));
  writeFileSync(join(dir, 'kcpt'), `#!/bin/sh\nexec node ${join(repoRoot, 'bin', 'run.js')} "$@"\n`);
  chmodSync(join(dir, 'kcpt'), 0o755);
  writeFileSync(
    join(dir, 'config'),
    'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1/clusters/root:org"}}]\n' +
      'contexts: [{name: one, context: {cluster: c, user: u}}, {name: "root:other", context: {cluster: c, user: u}}]\ncurrent-context: one\n' +
      'users: [{name: u, user: {token: t}}]\n',
  );
  env = { PATH: [dir, process.env.PATH].join(delimiter), KUBECONFIG: join(dir, 'config'), HOME: dir, NO_COLOR: '1' };
  const script = await runKcpt(['completion', 'bash'], env);
  expect(script.exitCode, script.stderr).toBe(0);
  writeFileSync(join(dir, 'kcpt.bash'), script.stdout);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What bash offers after `line` (the cursor at its end), as _kcpt_complete leaves COMPREPLY. */
async function offered(line: string): Promise<string[]> {
  const r = await execa('bash', ['-c', `source ${join(dir, 'kcpt.bash')}; COMP_LINE="$1"; COMP_POINT=\${#COMP_LINE}; _kcpt_complete; printf '%s\\n' "\${COMPREPLY[@]}"`, '_', line], {
    env,
  });
  return r.stdout.split('\n').filter(Boolean);
}

describe('bash completion', () => {
  it('offers each command once, then subcommands and flags', async () => {
    const top = await offered('kcpt ');
    expect(top).toEqual([...new Set(top)]);
    expect(top).toEqual(expect.arrayContaining(['ws', 'start', 'status', 'stop', 'bind', 'export', 'completion', 'doctor', 'version', 'logs']));
    expect(await offered('kcpt st')).toEqual(['start', 'status', 'stop']);
    expect(await offered('kcpt snapshot ')).toEqual(['restore', 'save']);
    expect(await offered('kcpt ws cr')).toEqual(['create', 'create-context']);
    expect(await offered('kcpt stop --t')).toEqual(['--timeout']);
    expect(await offered('kcpt ws list -o ')).toEqual(['json', 'jsonpath-as-json=', 'jsonpath-file=', 'jsonpath=', 'name', 'wide', 'yaml']);
  });

  it('completes kubeconfig contexts, also past a colon (bash splits words there)', async () => {
    expect(await offered('kcpt ws --context ')).toEqual(['one', 'root:other']);
    expect(await offered('kcpt ws --context root:o')).toEqual(['other']);
  });

  it('offers only the subcommands when the server cannot be reached, and prints no error into the prompt', async () => {
    expect(await offered('kcpt ws ')).toEqual(['cd', 'create', 'create-context', 'current', 'list', 'tree', 'use']);
  });
});

describe('kubectl plugin completion', () => {
  it("answers kubectl_complete-ws in cobra's format", async () => {
    const r = await execa('node', [join(repoRoot, 'bin', 'kubectl_complete-ws.js'), 'cr'], { env });
    expect(r.stdout).toBe('create\ncreate-context\n:4');
    const kcp = await execa('node', [join(repoRoot, 'bin', 'kubectl_complete-kcp.js'), 'w'], { env });
    expect(kcp.stdout).toBe('workspace\nws\n:4');
  });
});
