/**
 * The kubectl plugin shims on PATH, linked the way `npm install -g` links package bins: the real kubectl finds
 * `kubectl-ws`, `kubectl-kcp` and `kubectl-create-workspace` and runs them with every argument after the plugin
 * name. Each navigation step runs twice, through `kubectl …` on one kubeconfig and through `kcpt …` on a copy:
 * the output must be identical, and plain `kubectl get configmaps` must land in the workspace both reported.
 * kubectl's own completion (`kubectl __complete ws …`, what its shell scripts call) reaches kcpt's through the
 * `kubectl_complete-ws` bin. On the shared server: every workspace has a unique name of the test's own.
 */
import { copyFileSync, mkdirSync, symlinkSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectl, uniqueName } from '../helpers/kubectl.js';
import { repoRoot } from '../helpers/server.js';
import { createWorkspace, root, useTenancyServer } from './tenancy-fixtures.js';
import { runKcpt } from '../helpers/cli.js';

// The shared server.
const e2e = useTenancyServer();
let scratch: string;
let pluginPath: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'kcpt-plugins-'));
  const bin = join(scratch, 'bin');
  mkdirSync(bin);
  for (const plugin of ['kubectl-ws', 'kubectl-kcp', 'kubectl-create-workspace', 'kubectl_complete-ws', 'kubectl_complete-kcp']) {
    symlinkSync(join(repoRoot, 'bin', `${plugin}.js`), join(bin, plugin));
  }
  pluginPath = [bin, process.env.PATH ?? ''].join(delimiter);
});
afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

interface Run {
  stdout: string;
  stderr: string;
  exitCode: number;
}

function copyAdmin(name: string): string {
  const file = join(scratch, name);
  copyFileSync(e2e.server.kubeconfig, file);
  return file;
}

/** The real kubectl with the shims on PATH. */
async function viaKubectl(args: string[], env: Record<string, string | undefined>): Promise<Run> {
  const r = await kubectl(e2e.server, args, { env: { PATH: pluginPath, ...env }, reject: false });
  return { stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode };
}

function viaKcpt(args: string[], env: Record<string, string | undefined>): Promise<Run> {
  return runKcpt(args, { ...e2e.server.env, ...env });
}

async function markersSeen(kubeconfig: string): Promise<string[]> {
  const r = await kubectl(e2e.server, ['get', 'configmaps', '-o', 'name'], { env: { KUBECONFIG: kubeconfig } });
  return r.stdout
    .split('\n')
    .filter((l) => l.includes('marker-'))
    .map((l) => l.replace('configmap/marker-', ''));
}

async function mark(path: string): Promise<void> {
  await e2e.at(path)(['create', 'configmap', `marker-${path.replaceAll(':', '-')}`]);
}

describe('kubectl plugin shims on PATH', () => {
  it('runs a workspace session through kubectl create workspace and kubectl ws, with kcpt’s exact output', async () => {
    const viaPlugin = copyAdmin('plugin.kubeconfig');
    const viaCli = copyAdmin('cli.kubeconfig');
    const org = uniqueName('org');

    const created = await viaKubectl(['create', 'workspace', org, '--enter'], { KUBECONFIG: viaPlugin });
    expect(created.exitCode, created.stderr).toBe(0);
    expect(created.stdout).toBe(
      [
        `Workspace "${org}" (type root:organization) created. Waiting for it to be ready...`,
        `Workspace "${org}" (type root:organization) is ready to use.`,
        `Current workspace is 'root:${org}' (type root:organization).`,
      ].join('\n'),
    );
    await mark(`root:${org}`);
    expect(await markersSeen(viaPlugin)).toEqual([`root-${org}`]);

    const team = await viaKubectl(['create', 'workspace', 'team', '--type', 'universal', '--enter'], { KUBECONFIG: viaPlugin });
    expect(team.stdout, team.stderr).toContain(`Current workspace is 'root:${org}:team' (type root:universal).`);
    await mark(`root:${org}:team`);
    expect(await markersSeen(viaPlugin)).toEqual([`root-${org}-team`]);

    // The kcpt side walks to the same place first, so both kubeconfigs have the same current and previous.
    await viaKcpt(['ws', `:root:${org}`], { KUBECONFIG: viaCli });
    await viaKcpt(['ws', 'team'], { KUBECONFIG: viaCli });

    const [inOrg, inTeam] = [`root-${org}`, `root-${org}-team`];
    const steps: { args: string[]; lands: string }[] = [
      { args: ['..'], lands: inOrg },
      { args: ['-'], lands: inTeam },
      { args: ['.'], lands: inTeam },
      { args: [':'], lands: 'root' },
      { args: ['use', `:root:${org}:team`], lands: inTeam },
      { args: ['cd', '..'], lands: inOrg },
      { args: ['current', '--short'], lands: inOrg },
      { args: ['tree'], lands: inOrg },
      // An absolute -w path (root's whole tree holds other files' workspaces, which may change between the two runs).
      { args: ['tree', '--full', '-w', `:root:${org}`], lands: inOrg },
      { args: ['nope'], lands: inOrg },
    ];
    for (const { args, lands } of steps) {
      // The two sides use their own kubeconfigs: kcpt's step runs beside the plugin's step and its kubectl check.
      const [[plugin, seen], cli] = await Promise.all([
        viaKubectl(['ws', ...args], { KUBECONFIG: viaPlugin }).then(async (r) => [r, await markersSeen(viaPlugin)] as const),
        viaKcpt(['ws', ...args], { KUBECONFIG: viaCli }),
      ]);
      expect({ args, ...plugin }).toEqual({ args, ...cli });
      expect({ args, seen }).toEqual({ args, seen: lands === 'root' ? [] : [lands] });
    }
    expect((await viaKubectl(['ws', 'nope'], { KUBECONFIG: viaPlugin })).stderr.trim()).toBe(`Error: workspace "root:${org}:nope" not found`);

    // kubectl kcp ws|workspace|workspaces is the same command.
    const expected = await viaKcpt(['ws', '.'], { KUBECONFIG: viaCli });
    for (const word of ['ws', 'workspace', 'workspaces']) {
      expect(await viaKubectl(['kcp', word, '.'], { KUBECONFIG: viaPlugin })).toEqual(expected);
    }
    // About 40 node and kubectl processes one after the other: on a busy machine that outlasts the default minute.
  }, 120_000);

  it('completes workspace names for kcpt ws and kubectl ws <TAB>, children of the path typed so far', async () => {
    const file = copyAdmin('complete.kubeconfig');
    // Names of this test's own, so that completing their common prefix offers exactly them.
    const comp = uniqueName('comp');
    const [compa, compb] = [`${comp}a`, `${comp}b`];
    for (const name of [compa, compb]) expect((await viaKcpt(['ws', 'create', name], { KUBECONFIG: file })).exitCode).toBe(0);
    expect((await viaKcpt(['ws', 'create', 'kid', '-w', `:root:${compa}`], { KUBECONFIG: file })).exitCode).toBe(0);
    const env = { KUBECONFIG: file };
    const lines = (r: Run) => r.stdout.split('\n').filter(Boolean);

    expect(lines(await viaKcpt(['__complete', 'ws', comp], env))).toEqual([compa, compb, ':4']);
    expect(lines(await viaKcpt(['__complete', 'ws', `${compa}:`], env))).toEqual([`${compa}:kid`, ':4']);
    expect(lines(await viaKcpt(['__complete', 'ws', `:root:${compa}:k`], env))).toEqual([`:root:${compa}:kid`, ':4']);
    expect(lines(await viaKcpt(['__complete', 'ws', 'tree', '-w', compb], env))).toEqual([compb, ':4']);
    // Subcommands and workspaces together where both fit.
    const both = lines(await viaKcpt(['__complete', 'ws', ''], env));
    expect(both).toEqual(expect.arrayContaining([compa, compb, 'create', 'tree', '..', '~', '-', ':4']));
    expect(both).toEqual([...new Set(both)]);

    // kubectl's completion runs kubectl_complete-ws from PATH and offers what it answers.
    const viaKubectlCompletion = await viaKubectl(['__complete', 'ws', `${compa}:`], env);
    expect(lines(viaKubectlCompletion)[0]).toBe(`${compa}:kid`);
    expect(lines(await viaKubectl(['__complete', 'kcp', 'ws', comp], env)).slice(0, 2)).toEqual([compa, compb]);
  });

  it('takes kubectl’s connection flags and a shell-expanded ~', async () => {
    const file = copyAdmin('flags.kubeconfig');
    // An organization with a universal workspace inside, each with its marker.
    const org = uniqueName('org');
    await createWorkspace(e2e.at('root'), org);
    await createWorkspace(e2e.at(`root:${org}`), 'team', root('universal'));
    await mark(`root:${org}`);
    await mark(`root:${org}:team`);
    // kubectl refuses flags before the plugin name, so they follow it; KUBECONFIG is unset.
    const entered = await viaKubectl(['ws', 'use', `:root:${org}`, '--kubeconfig', file], { KUBECONFIG: undefined });
    expect(entered.stdout, entered.stderr).toBe(`Current workspace is 'root:${org}' (type root:organization).`);
    const viaContext = await viaKubectl(['ws', '.', '--kubeconfig', file, '--context', 'system:admin'], { KUBECONFIG: undefined });
    expect(viaContext.stdout, viaContext.stderr).toBe("Current workspace is 'system:admin'.");

    // Connection flags before the subcommand, as kcp's persistent cobra flags allow (kubectl ws --context x use y).
    const before = await viaKubectl(['ws', '--kubeconfig', file, 'use', `:root:${org}:team`], { KUBECONFIG: undefined });
    expect(before.stdout, before.stderr).toBe(`Current workspace is 'root:${org}:team' (type root:universal).`);
    expect(await markersSeen(file)).toEqual([`root-${org}-team`]);
    const short = await viaKubectl(['ws', '--kubeconfig', file, '--context', 'system:admin', 'current', '--short'], { KUBECONFIG: undefined });
    expect([short.exitCode, short.stdout, short.stderr]).toEqual([0, 'system:admin', '']);
    const rootTree = await viaKubectl(['ws', '--server', e2e.url(`root:${org}`), 'tree', '--full'], { KUBECONFIG: file });
    expect(rootTree.stdout, rootTree.stderr).toBe(`.\n└── root:${org}\n    └── root:${org}:team\n`);
    const kcp = await viaKubectl(['kcp', '--kubeconfig', file, 'ws', '--context', 'system:admin', '.'], { KUBECONFIG: undefined });
    expect(kcp.stdout, kcp.stderr).toBe("Current workspace is 'system:admin'.");
    expect(await viaKcpt(['ws', '--kubeconfig', file, 'cd', '..'], { KUBECONFIG: undefined })).toEqual({
      stdout: `Current workspace is 'root:${org}' (type root:organization).`,
      stderr: '',
      exitCode: 0,
    });
    expect(await markersSeen(file)).toEqual([`root-${org}`]);

    // `kubectl ws ~` unquoted reaches the plugin as $HOME; it means home, as it does for kcpt.
    const home = e2e.server.env.HOME!;
    const plugin = await viaKubectl(['ws', home], { KUBECONFIG: file });
    expect(plugin.exitCode, plugin.stderr).toBe(0);
    expect(plugin.stdout).toMatch(/^Current workspace is 'root:users:[a-z0-9]{2}:[a-z0-9]{2}:kcp-admin'/);
    expect((await markersSeen(file)).length).toBe(0);
    const tree = await viaKubectl(['ws', `${home}/..`], { KUBECONFIG: file });
    expect(tree.stdout).toMatch(/^Current workspace is 'root:users:[a-z0-9]{2}:[a-z0-9]{2}'/);
  });

  it('runs kubectl kcp crd snapshot and checks kubectl kcp bind apiexport’s argument like kcp; claims is not yet served (exit 2)', async () => {
    const env = { KUBECONFIG: e2e.server.kubeconfig };
    const crd = join(scratch, 'crd.yaml');
    copyFileSync(join(repoRoot, 'templates', 'api-provider', 'crd.yaml'), crd);
    const snapshot = await viaKubectl(['kcp', 'crd', 'snapshot', '-f', crd, '--prefix', 'v1'], env);
    expect(snapshot.exitCode, snapshot.stderr).toBe(0);
    expect(snapshot.stdout).toMatch(/^apiVersion: apis.kcp.io\/v1alpha1\nkind: APIResourceSchema\nmetadata:\n  name: v1.widgets.demo.kcpt.dev\n/);
    expect(snapshot.stdout.endsWith('\n---')).toBe(true);
    expect(snapshot.stdout).toBe((await viaKcpt(['export', 'snapshot', '-f', crd, '--prefix', 'v1'], env)).stdout);
    const noPrefix = await viaKubectl(['kcp', 'crd', 'snapshot', '-f', crd], env);
    expect([noPrefix.exitCode, noPrefix.stderr.trim()]).toEqual([2, "Error: --prefix is required\nSee 'kcpt export snapshot --help' for usage."]);

    const bind = await viaKubectl(['kcp', 'bind', 'apiexport', 'cowboys'], env);
    expect([bind.exitCode, bind.stdout, bind.stderr.trim()]).toEqual([
      2,
      '',
      "Error: fully qualified reference to workspace where APIExport exists is required. The format is `<logical-cluster-name>:<apiexport>` or `<full>:<path>:<to>:<apiexport>`\nSee 'kcpt bind --help' for usage.",
    ]);
    const claims = await viaKubectl(['kcp', 'claims', 'get', 'apibinding'], env);
    expect([claims.exitCode, claims.stderr.trim()]).toEqual([
      2,
      'Error: "kubectl kcp claims" is not yet available in kcpt; "kubectl kcp ws", "bind" and "crd" are. See "kubectl kcp --help".',
    ]);
    const help = await viaKubectl(['kcp'], env);
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toContain('kubectl kcp workspace|ws [command] [flags]');
    expect(help.stdout).toContain('kubectl kcp bind apiexport <path>:<export> [flags]');
  });
});
