/**
 * kcp's own kubectl plugins (kubectl-ws, kubectl-create-workspace, kubectl-kcp from github.com/kcp-dev/kcp/cli
 * v0.27.1, the newest version the Go module proxy serves; built from test/peers/tools/kcp-plugins/go.mod) through the
 * real kubectl, first on PATH: the session of test/e2e/cli-ws.test.ts, as kcp's CLI prints it against kcp. After each
 * switch plain `kubectl get configmaps` must land in the workspace the plugin named (a marker ConfigMap per workspace).
 * Where kcpt's own `kcpt ws` improves on kcp's plugin (`-w`, `ws tree` of another workspace, a NotFound for a missing
 * workspace), this file expects what kcp's plugin does.
 */
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { execa } from 'execa';
import { dump } from 'js-yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { readKubeconfig } from '../../helpers/http.js';
import { prepareGoTools } from '../../helpers/peers.js';
import { create, createWorkspace, users, useTenancyServer } from '../../e2e/tenancy-fixtures.js';

const prepared = prepareGoTools("kcp's kubectl plugins", 'kcp-plugins');

interface Run {
  command: string;
  stdout: string;
  stderr: string;
  exitCode: number;
}

describe.skipIf(!prepared.ready)("kcp's kubectl plugins (kcp-dev/kcp/cli v0.27.1) against kcpt", () => {
  const e2e = useTenancyServer();
  const scratch = mkdtempSync(join(tmpdir(), 'kcpt-peers-kcp-plugins-'));
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  /** The real kubectl with kcp's plugins first on PATH and KUBECONFIG=`kubeconfig`; output as printed (final newline kept). */
  const run = async (kubeconfig: string, args: string[], input?: string): Promise<Run> => {
    const r = await execa('kubectl', args, {
      env: { ...e2e.server.env, KUBECONFIG: kubeconfig, PATH: `${(prepared as { bin: string }).bin}${delimiter}${process.env.PATH ?? ''}` },
      input,
      stdin: input === undefined ? 'ignore' : undefined,
      reject: false,
      stripFinalNewline: false,
      timeout: 90_000,
    });
    return { command: `kubectl ${args.join(' ')}`, stdout: String(r.stdout), stderr: String(r.stderr), exitCode: r.exitCode ?? -1 };
  };
  const ok = async (kubeconfig: string, args: string[], input?: string): Promise<string> => {
    const r = await run(kubeconfig, args, input);
    expect(r.exitCode, `${r.command}\n${r.stdout}\n${r.stderr}`).toBe(0);
    return r.stdout;
  };
  const copyAdmin = (name: string) => {
    const file = join(scratch, name);
    copyFileSync(e2e.server.kubeconfig, file);
    return file;
  };
  const mark = (path: string) => e2e.at(path)(['create', 'configmap', `marker-${path.replaceAll(':', '-')}`]);
  const markersSeen = async (kubeconfig: string) =>
    (await ok(kubeconfig, ['get', 'configmaps', '-o', 'name']))
      .split('\n')
      .filter((l) => l.includes('marker-'))
      .map((l) => l.replace('configmap/marker-', ''));

  it("is kcp's plugin that kubectl runs", async () => {
    const kubeconfig = copyAdmin('which');
    expect(await ok(kubeconfig, ['ws', '--help'])).toMatch(/^Manages KCP workspaces\n/);
    expect(await ok(kubeconfig, ['kcp', '--help'])).toContain('bind        Bind different types into current workspace.');
  });

  it('creates, enters and navigates workspaces, and kubectl follows every switch', async () => {
    const kc = copyAdmin('admin-a');
    // No --type: the plugin sends `"type":{"name":""}` and the server picks root's default child type.
    const created = await run(kc, ['ws', 'create', 'org', '--enter']);
    expect([created.exitCode, created.stdout]).toEqual([
      0,
      [
        'Workspace "org" (type root:organization) created. Waiting for it to be ready...',
        'Workspace "org" (type root:organization) is ready to use.',
        "Current workspace is 'root:org' (type root:organization).",
        '',
      ].join('\n'),
    ]);
    expect(created.stderr).toContain(`Command "create" is deprecated, install the 'kubectl create workspace' plugin instead`);
    await mark('root:org');
    expect(await markersSeen(kc)).toEqual(['root-org']);

    // The separate kubectl-create-workspace plugin.
    expect(await ok(kc, ['create', 'workspace', 'team', '--type', 'universal', '--enter'])).toBe(
      [
        'Workspace "team" (type root:universal) created. Waiting for it to be ready...',
        'Workspace "team" (type root:universal) is ready to use.',
        "Current workspace is 'root:org:team' (type root:universal).",
        '',
      ].join('\n'),
    );
    await mark('root:org:team');
    expect(await markersSeen(kc)).toEqual(['root-org-team']);

    // kcp's plugin looks the type up as the Workspace named ".." (it splits the path before resolving the dots), so
    // it prints none after `ws ..`, against kcp as here.
    expect(await ok(kc, ['ws', '..'])).toBe("Current workspace is 'root:org'.\n");
    expect(await markersSeen(kc)).toEqual(['root-org']);
    expect(await ok(kc, ['ws', '-'])).toBe("Current workspace is 'root:org:team'.\n");
    expect(await markersSeen(kc)).toEqual(['root-org-team']);
    expect(await ok(kc, ['ws', '.'])).toBe("Current workspace is 'root:org:team'.\n");
    expect(await ok(kc, ['ws', 'current', '--short'])).toBe('root:org:team\n');
    expect(await ok(kc, ['ws', 'use', ':root:org'])).toBe("Current workspace is 'root:org' (type root:organization).\n");
    expect(await ok(kc, ['ws', 'tree', '--full'])).toBe('.\n└── root:org\n    └── root:org:team\n\n');

    expect(await ok(kc, ['ws', ':'])).toBe("Current workspace is 'root'.\n");
    expect(await ok(kc, ['ws', 'tree'])).toBe('.\n└── root\n    └── org\n        └── team\n\n');

    const legacy = await run(kc, ['ws', 'root:org']);
    expect(legacy.exitCode).toBe(0);
    expect(legacy.stderr).toContain("Note: Using 'root:' to define an absolute path is no longer supported.");
    expect(await markersSeen(kc)).toEqual(['root-org']);

    // A workspace that does not exist: kcp's plugin reports the 404 of discovery at the path as it comes, as it
    // does against a kcp shard, which answers `workspaces.tenancy.kcp.io "root:org:nope" not found` there too.
    const missing = await run(kc, ['ws', 'nope']);
    expect([missing.exitCode, missing.stderr]).toEqual([1, 'Error: the server could not find the requested resource\n']);
    expect(await markersSeen(kc)).toEqual(['root-org']);
    const tooHigh = await run(kc, ['ws', '..:..:..']);
    expect([tooHigh.exitCode, tooHigh.stderr]).toEqual([1, 'Error: cannot go up from root\n']);
  });

  it('takes a token-file user home with ~, creates there, and is denied elsewhere', async () => {
    const kc = join(scratch, 'user-1');
    const admin = readKubeconfig(e2e.server);
    const ca = admin.clusters.find((c) => c.name === 'root')!.cluster['certificate-authority-data']!;
    writeFileSync(
      kc,
      dump({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'kcp', cluster: { server: e2e.url('root'), 'certificate-authority-data': ca } }],
        users: [{ name: 'user-1', user: { token: users.user1.token } }],
        contexts: [{ name: 'kcp', context: { cluster: 'kcp', user: 'user-1' } }],
        'current-context': 'kcp',
      }),
    );
    const home = 'root:users:bi:ie:user-1';
    // No type: the user may not read their home's Workspace in its bucket.
    expect(await ok(kc, ['ws', '~'])).toBe(`Current workspace is '${home}'.\n`);
    await mark(home);
    expect(await markersSeen(kc)).toEqual([home.replaceAll(':', '-')]);
    expect(await ok(kc, ['create', 'workspace', 'scratch', '--enter'])).toContain(`Current workspace is '${home}:scratch' (type root:universal).`);
    expect(await ok(kc, ['ws', '..'])).toBe(`Current workspace is '${home}'.\n`);
    expect(await ok(kc, ['ws', 'tree'])).toBe('.\n└── user-1\n    └── scratch\n\n');

    await createWorkspace(e2e.at('root'), 'private');
    const denied = await run(kc, ['ws', ':root:private']);
    expect([denied.exitCode, denied.stderr]).toEqual([1, 'Error: access to workspace "root:private" denied\n']);
  });

  it('creates a context for the current workspace', async () => {
    const kc = copyAdmin('admin-ctx');
    await ok(kc, ['ws', 'create', 'ctx', '--type', 'universal', '--enter']);
    expect(await ok(kc, ['ws', 'create-context', 'mine'])).toBe('Created context "mine" and switched to it.\n');
    expect((await ok(kc, ['config', 'current-context'])).trim()).toBe('mine');
    expect(await ok(kc, ['ws', '.'])).toBe("Current workspace is 'root:ctx'.\n");
    await mark('root:ctx');
    expect(await markersSeen(kc)).toEqual(['root-ctx']);
  });

  it('snapshots a CRD into an APIResourceSchema, and binds the APIExport with `kubectl kcp bind apiexport`', async () => {
    const kc = copyAdmin('admin-api');
    const crd = dump({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.plugins.kcpt.io' },
      spec: {
        group: 'plugins.kcpt.io',
        names: { kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget' },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } },
          },
        ],
      },
    });
    const schema = await ok(kc, ['kcp', 'crd', 'snapshot', '-f', '-', '--prefix', 'v1'], crd);
    expect(schema).toContain('kind: APIResourceSchema\n');
    expect(schema).toContain('name: v1.widgets.plugins.kcpt.io\n');

    await ok(kc, ['ws', 'create', 'provider', '--type', 'universal', '--enter']);
    await ok(kc, ['apply', '-f', '-'], schema);
    await create(e2e.at('root:provider'), {
      apiVersion: 'apis.kcp.io/v1alpha1',
      kind: 'APIExport',
      metadata: { name: 'widgets.plugins.kcpt.io' },
      spec: { latestResourceSchemas: ['v1.widgets.plugins.kcpt.io'] },
    });
    await ok(kc, ['ws', ':root']);
    await ok(kc, ['ws', 'create', 'consumer', '--type', 'universal', '--enter']);
    expect(await ok(kc, ['kcp', 'bind', 'apiexport', 'root:provider:widgets.plugins.kcpt.io', '--name', 'widgets'])).toBe(
      'apibinding widgets created. Waiting to successfully bind ...\nwidgets created and bound.\n',
    );
    await ok(kc, ['create', '-f', '-'], dump({ apiVersion: 'plugins.kcpt.io/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default' }, spec: { size: 3 } }));
    expect((await ok(kc, ['get', 'widgets', '-o', 'jsonpath={.items[*].spec.size}'])).trim()).toBe('3');
  });
});
