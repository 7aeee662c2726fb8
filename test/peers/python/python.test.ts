/**
 * The official Python client (`kubernetes`) and a kopf operator against `kcpt start`, as pytest runs them (the tests
 * are the .py files beside this one). Each server gets the workspaces root and root:py:nested, a kubeconfig for each
 * from `kcpt kubeconfig`, and one pytest run over both; every pytest test becomes one case here per workspace, so a
 * failure names what broke. SQLite runs every test; etcd the watch tests (files marked `pytestmark = pytest.mark.watch`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Workspace } from '../../../src/client/workspace-api.js';
import { root, workspace } from '../../e2e/tenancy-fixtures.js';
import { createWorkspaceByApi } from '../../helpers/api-setup.js';
import { runKcpt } from '../../helpers/cli.js';
import { etcdVersion } from '../../helpers/etcd-binary.js';
import { peersDir, preparePython } from '../../helpers/peers.js';
import { startServer, type TestServer } from '../../helpers/server.js';

const prepared = preparePython('Python peers');
const here = join(peersDir, 'python');

/** pytest's test functions per file, read from the sources (the vitest cases must exist before pytest runs). */
const testFiles = readdirSync(here)
  .filter((f) => /^test_.*\.py$/.test(f))
  .sort()
  .map((file) => {
    const source = readFileSync(join(here, file), 'utf8');
    const tests = [...source.matchAll(/^def (test_\w+)\(/gm)].map((m) => m[1]!);
    return { file, tests, watch: /^pytestmark = pytest\.mark\.watch$/m.test(source) };
  });

const workspaces = [
  { id: 'root', path: 'root' },
  { id: 'nested', path: 'root:py:nested' },
];

interface Outcome {
  outcome: 'passed' | 'failed' | 'skipped' | 'xfailed' | 'xpassed';
  message: string;
}

// Without etcd a local run leaves its half out (vitest.config.ts says so once); CI has etcd.
const storages = [
  { label: 'SQLite', etcd: false, files: testFiles },
  ...(etcdVersion() !== undefined || process.env.CI ? [{ label: 'etcd', etcd: true, files: testFiles.filter((f) => f.watch) }] : []),
];

describe.skipIf(!prepared.ready).each(storages)('Python kubernetes client and kopf on $label', ({ etcd, files }) => {
  let server: TestServer | undefined;
  let scratch: string;
  let outcomes: Record<string, Outcome> = {};
  let pytestOutput = '';

  beforeAll(async () => {
    server = await startServer({ etcd });
    scratch = await mkdtemp(join(tmpdir(), 'kcpt-peers-python-'));
    await createWorkspaceByApi(server, 'root', workspace('py', root('universal')) as Workspace);
    await createWorkspaceByApi(server, 'root:py', workspace('nested', root('universal')) as Workspace);
    const targets = [];
    for (const ws of workspaces) {
      const kubeconfig = join(scratch, `${ws.id}.kubeconfig`);
      const made = await runKcpt(['kubeconfig', ws.path, '-o', kubeconfig], server.env);
      if (made.exitCode !== 0) throw new Error(`kcpt kubeconfig ${ws.path} failed: ${made.stderr}`);
      targets.push({ ...ws, kubeconfig });
    }
    const report = join(scratch, 'report.json');
    const run = await execa(
      (prepared as { python: string }).python,
      ['-m', 'pytest', '-q', ...files.map((f) => f.file)],
      {
        cwd: here,
        env: { ...server.env, KCPT_PEER_TARGETS: JSON.stringify(targets), KCPT_PEER_REPORT: report, PYTHONDONTWRITEBYTECODE: '1' },
        stdin: 'ignore',
        reject: false,
        all: true,
        timeout: 8 * 60_000,
      },
    );
    pytestOutput = String(run.all ?? '');
    // Exit codes 0 (all passed) and 1 (some failed) leave a report; anything else (usage, collection) is the file's error.
    if (run.exitCode !== 0 && run.exitCode !== 1) throw new Error(`pytest exited with ${String(run.exitCode)}:\n${pytestOutput}`);
    outcomes = JSON.parse(await readFile(report, 'utf8')) as Record<string, Outcome>;
  }, 10 * 60_000);

  afterAll(async () => {
    await server?.stop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }, 60_000);

  for (const ws of workspaces) {
    for (const { file, tests } of files) {
      for (const test of tests) {
        const id = `${file}::${test}[${ws.id}]`;
        it(`${ws.id}: ${file}::${test}`, (ctx) => {
          const got = outcomes[id];
          if (!got) expect.fail(`pytest did not report ${id}:\n${pytestOutput}`);
          // A test marked to wait for a server fix (pytest.mark.xfail, with the fix named) shows as skipped until it passes.
          if (got.outcome === 'xfailed') ctx.skip(got.message);
          expect(got.outcome, got.message || pytestOutput).toBe('passed');
        });
      }
    }
  }
});
