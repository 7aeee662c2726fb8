/**
 * `kcpt ws …` as a new user runs it: real processes (`node bin/run.js ws …`, no TTY) against `kcpt start`, each
 * step followed by the real kubectl using the kubeconfig kcpt rewrote, to prove `kubectl get configmaps` lands in
 * the workspace kcpt said it switched to. Every workspace gets its own marker ConfigMap (created as kcp-admin at
 * its explicit path), so a wrong switch shows up as the wrong marker. On the shared server every test works in
 * workspaces of unique names of its own (in root, in user-1's home) and asserts on its own subtree of root's tree.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { dump, load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureServingCertificates } from '../../src/engine/auth/certificates.js';
import { kubectl, uniqueName } from '../helpers/kubectl.js';
import { create, createWorkspace, eventually, root, users, useTenancyServer, workspaceType } from './tenancy-fixtures.js';
import { runKcpt } from '../helpers/cli.js';
import { adminToken } from '../helpers/http.js';

// The shared server.
const e2e = useTenancyServer();
let scratch: string;
/** An organization with a universal workspace `team` inside, each with its marker, for the tests that only read. */
const readOrg = uniqueName('org');
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'kcpt-cli-ws-'));
  await createWorkspace(e2e.at('root'), readOrg);
  await createWorkspace(e2e.at(`root:${readOrg}`), 'team', root('universal'));
  await mark(`root:${readOrg}`);
  await mark(`root:${readOrg}:team`);
}, 90_000);
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

interface Run {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** `node bin/run.js <args>` with stdin not a TTY; `env` replaces KUBECONFIG etc. */
function kcpt(args: string[], env: Record<string, string | undefined>): Promise<Run> {
  return runKcpt(args, { ...e2e.server.env, ...env }, { stripFinalNewline: false });
}

async function ok(args: string[], env: Record<string, string | undefined>): Promise<string> {
  const r = await kcpt(args, env);
  expect(r.exitCode, `kcpt ${args.join(' ')}\n${r.stdout}\n${r.stderr}`).toBe(0);
  return r.stdout;
}

/** A marker ConfigMap named after the workspace, created as kcp-admin at the workspace's path. */
async function mark(path: string): Promise<void> {
  await e2e.at(path)(['create', 'configmap', `marker-${path.replaceAll(':', '-')}`]);
}

/** What plain `kubectl get configmaps` sees through a kubeconfig (no --server, no --context). */
async function markersSeen(env: Record<string, string>): Promise<string[]> {
  const r = await kubectl(e2e.server, ['get', 'configmaps', '-o', 'name'], { env });
  return r.stdout
    .split('\n')
    .filter((l) => l.includes('marker-'))
    .map((l) => l.replace('configmap/marker-', ''));
}

const copyAdmin = (name: string) => {
  const file = join(scratch, name);
  copyFileSync(e2e.server.kubeconfig, file);
  return file;
};

describe('kcpt ws as a user runs it (real processes, non-TTY)', () => {
  it('creates, enters and navigates workspaces with KUBECONFIG, and kubectl follows every switch', async () => {
    const env = { KUBECONFIG: copyAdmin('admin-a') };
    const org = uniqueName('org');
    expect(await ok(['ws', 'create', org, '--enter'], env)).toBe(
      [
        `Workspace "${org}" (type root:organization) created. Waiting for it to be ready...`,
        `Workspace "${org}" (type root:organization) is ready to use.`,
        `Current workspace is 'root:${org}' (type root:organization).`,
        '',
      ].join('\n'),
    );
    await mark(`root:${org}`);
    expect(await markersSeen(env)).toEqual([`root-${org}`]);

    expect(await ok(['ws', 'create', 'team', '--type', 'universal', '--enter'], env)).toContain(
      `Current workspace is 'root:${org}:team' (type root:universal).`,
    );
    await mark(`root:${org}:team`);
    expect(await markersSeen(env)).toEqual([`root-${org}-team`]);

    expect(await ok(['ws', '..'], env)).toBe(`Current workspace is 'root:${org}' (type root:organization).\n`);
    expect(await markersSeen(env)).toEqual([`root-${org}`]);

    // Every form names the type, as `ws ..` does (kcp's plugin shows it only after a switch by path).
    expect(await ok(['ws', '-'], env)).toBe(`Current workspace is 'root:${org}:team' (type root:universal).\n`);
    expect(await markersSeen(env)).toEqual([`root-${org}-team`]);

    expect(await ok(['ws', '.'], env)).toBe(`Current workspace is 'root:${org}:team' (type root:universal).\n`);
    expect(await ok(['ws', 'current', '--short'], env)).toBe(`root:${org}:team\n`);

    expect(await ok(['ws', ':'], env)).toBe("Current workspace is 'root' (type root).\n");
    // treeprint's drawing, printed with Println as kcp does (so it ends with an empty line). Root's tree holds other
    // files' workspaces too: this org's branch is drawn in it, with its one child, among root's children.
    const rootTree = await ok(['ws', 'tree'], env);
    expect(rootTree.startsWith('.\n└── root\n')).toBe(true);
    expect(rootTree.endsWith('\n\n')).toBe(true);
    expect(rootTree).toMatch(new RegExp(`\n    (├── ${org}\n    │   └── team|└── ${org}\n        └── team)\n`));
    expect(await ok(['ws', 'tree', '-w', org, '--full'], env)).toBe(`.\n└── root:${org}\n    └── root:${org}:team\n\n`);
    // A workspace that does not exist has no tree: the server's NotFound, not a one-line tree.
    const noTree = await kcpt(['ws', 'tree', '-w', ':root:does-not-exist'], env);
    expect(noTree.exitCode).toBe(1);
    expect(noTree.stdout).toBe('');
    expect(noTree.stderr).toContain('Error from server (NotFound): workspaces.tenancy.kcp.io "root:does-not-exist" not found');

    // A path starting at root is absolute, as in every command that takes a workspace (no note about it).
    const legacy = await kcpt(['ws', `root:${org}`], env);
    expect([legacy.exitCode, legacy.stderr]).toEqual([0, '']);
    expect(await markersSeen(env)).toEqual([`root-${org}`]);

    const missing = await kcpt(['ws', 'nope'], env);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toBe(`Error: workspace "root:${org}:nope" not found\n`);
    const tooHigh = await kcpt(['ws', '..:..:..'], env);
    expect([tooHigh.exitCode, tooHigh.stderr]).toEqual([1, 'Error: cannot go up from root\n']);
  });

  it('works the same with --kubeconfig (kcp #3594) and writes back to the file that defined the context', async () => {
    const file = copyAdmin('admin-b');
    const env = { KUBECONFIG: undefined };
    expect(await ok(['ws', `:root:${readOrg}`, '--kubeconfig', file], env)).toBe(`Current workspace is 'root:${readOrg}' (type root:organization).\n`);
    expect(await ok(['ws', '.', '--kubeconfig', file], env)).toBe(`Current workspace is 'root:${readOrg}' (type root:organization).\n`);
    expect(await markersSeen({ KUBECONFIG: file })).toEqual([`root-${readOrg}`]);

    // Two files: the first only chooses the context, the second defines it. New entries land in the first.
    const chooser = join(scratch, 'chooser');
    writeFileSync(chooser, dump({ apiVersion: 'v1', kind: 'Config', 'current-context': 'root' }));
    const list = { KUBECONFIG: [chooser, copyAdmin('admin-c')].join(delimiter) };
    expect(await ok(['ws', `${readOrg}:team`], list)).toBe(`Current workspace is 'root:${readOrg}:team' (type root:universal).\n`);
    expect(await markersSeen(list)).toEqual([`root-${readOrg}-team`]);
    const written = load(readFileSync(chooser, 'utf8')) as { 'current-context': string; contexts: { name: string }[] };
    expect(written['current-context']).toBe('workspace.kcp.io/current');
    expect(written.contexts.map((c) => c.name).sort()).toEqual(['workspace.kcp.io/current', 'workspace.kcp.io/previous']);
  });

  it('takes a token-file user home with ~ and lists what they can reach', async () => {
    const env = { KUBECONFIG: user1Kubeconfig('user-1', 'root') };
    // The user may not read their home's Workspace object in its bucket: the type comes from the home's LogicalCluster.
    expect(await ok(['ws', '~'], env)).toBe("Current workspace is 'root:users:bi:ie:user-1' (type root:home).\n");
    // The home is everyone's on the shared server (other files make workspaces and objects there): this test works
    // in a workspace of its own inside it, and its marker has a name of its own.
    const home = 'root:users:bi:ie:user-1';
    const own = uniqueName('mine');
    const marker = uniqueName('home');
    await e2e.at(home)(['create', 'configmap', `marker-${marker}`]);
    expect(await markersSeen(env)).toContain(marker);
    expect(await ok(['ws', 'create', own, '--enter'], env)).toContain(`Current workspace is '${home}:${own}'`);
    await ok(['ws', 'create', 'scratch'], env);

    // The home as a shell expands an unquoted ~ (HOME/…) and with no argument at all (without kcp's note about it).
    expect(await ok(['ws', e2e.server.env.HOME!], env)).toContain("Current workspace is 'root:users:bi:ie:user-1'");
    const bare = await kcpt(['ws'], env);
    expect([bare.stdout, bare.stderr]).toEqual(["Current workspace is 'root:users:bi:ie:user-1' (type root:home).\n", '']);

    // kubectl's List of the Workspaces, each with its path; -o name and -o jsonpath as kubectl prints them.
    const listed = JSON.parse(await ok(['ws', 'list', '-o', 'json'], env)) as {
      apiVersion: string;
      kind: string;
      items: { kind: string; metadata: { annotations: Record<string, string>; managedFields?: unknown }; spec: { type: { path: string } }; status: { phase: string } }[];
    };
    expect([listed.apiVersion, listed.kind]).toEqual(['v1', 'List']);
    // What user-1 reaches on the shared server includes other files' workspaces: this test's are the home and its own.
    const isOurs = (path: string) => path === home || path === `${home}:${own}` || path.startsWith(`${home}:${own}:`);
    const paths = listed.items.map((w) => w.metadata.annotations['kcp.io/path']);
    const ours = paths.filter(isOurs);
    expect([...ours].sort()).toEqual([home, `${home}:${own}`, `${home}:${own}:scratch`]);
    expect(paths).not.toContain(`root:${readOrg}`);
    expect(listed.items.every((w) => w.kind === 'Workspace' && !w.metadata.managedFields)).toBe(true);
    // Other files' workspaces may be of their own types (defined in their organizations); this test's are root's.
    const ourItems = listed.items.filter((w) => isOurs(w.metadata.annotations['kcp.io/path']));
    expect(ourItems.every((w) => w.spec.type.path === 'root' && w.status.phase === 'Ready')).toBe(true);
    expect((await ok(['ws', 'list', '-o', 'name'], env)).split('\n')).toContain('workspace.tenancy.kcp.io/scratch');
    const jsonpath = await ok(['ws', 'list', '-o', 'jsonpath={range .items[*]}{.metadata.annotations.kcp\\.io/path}{"\\n"}{end}'], env);
    expect(jsonpath.endsWith('\n')).toBe(true);
    expect(jsonpath.split('\n').filter(isOurs)).toEqual(ours);
    const wide = await ok(['ws', 'list', '-o', 'wide'], env);
    expect(wide.split('\n')[0]!.split(/\s+/)).toEqual(['PATH', 'TYPE', 'PHASE', 'URL']);
    expect(wide).toContain(e2e.url(`${home}:${own}:scratch`));

    const denied = await kcpt(['ws', `:root:${readOrg}`], env);
    expect([denied.exitCode, denied.stderr]).toEqual([1, `Error: access to workspace "root:${readOrg}" denied\n`]);
  });

  it('tree shows a workspace the user may list but no longer enter (level by level), and admins the same tree (one index request)', async () => {
    const env = { KUBECONFIG: user1Kubeconfig('user-1-tree', 'root:users:bi:ie:user-1') };
    // Under a workspace of this test's own in the home (other files make workspaces in user-1's home).
    const base = uniqueName('tree');
    const home = `root:users:bi:ie:user-1:${base}`;
    await ok(['ws', '~'], env);
    await ok(['ws', 'create', base, '--enter'], env);
    await ok(['ws', 'create', 'tree-locked'], env);
    await ok(['ws', 'create', 'tree-open'], env);
    await ok(['ws', 'create', 'deeper', '-w', 'tree-open'], env);
    type Node = { path: string; children: Node[] };
    const paths = (n: Node): string[] => [n.path, ...n.children.flatMap(paths)];
    const admin = { KUBECONFIG: copyAdmin('admin-tree') };
    const mine = JSON.parse(await ok(['ws', 'tree', '-o', 'json'], env)) as Node;
    expect(paths(mine)).toEqual(expect.arrayContaining([home, `${home}:tree-locked`, `${home}:tree-open`, `${home}:tree-open:deeper`]));
    expect(paths(mine)).toHaveLength(4);
    expect(paths(JSON.parse(await ok(['ws', 'tree', '-w', `:${home}`, '-o', 'json'], admin)) as Node)).toEqual(paths(mine));
    expect(await ok(['ws', 'tree', '-w', `:${home}:tree-open`, '--full', '--wide'], admin)).toBe(
      `.\n└── ${home}:tree-open\tws=-\tlc=Ready\n    └── ${home}:tree-open:deeper\tws=Ready\tlc=Ready\n\n`,
    );

    // Without its workspace-admin binding the creator cannot enter tree-locked any more: the workspace index leaves it
    // out for them, but listing its parent still shows it (they created it). Their tree must not silently drop it: it
    // is listed level by level and fails on that level as kcp's plugin does; the admin's one-request tree shows it.
    await e2e.at(`${home}:tree-locked`)(['delete', 'clusterrolebinding', 'workspace-admin']);
    const locked = await kcpt(['ws', 'tree'], env);
    expect([locked.exitCode, locked.stderr]).toEqual([1, expect.stringContaining('User "user-1" cannot list resource "workspaces"')]);
    expect(paths(JSON.parse(await ok(['ws', 'tree', '-w', `:${home}`, '-o', 'json'], admin)) as Node)).toEqual(paths(mine));
  });

  it('tree leaves out a workspace being deleted, in text and structured output', async () => {
    const env = { KUBECONFIG: copyAdmin('admin-tree-deleting') };
    await ok(['ws', ':root'], env);
    const del = uniqueName('tree-del');
    await ok(['ws', 'create', del], env);
    for (const name of ['staying', 'going']) await ok(['ws', 'create', name, '-w', del], env);
    const inParent = e2e.at(`root:${del}`);
    // A finalizer of someone else's holds the deleted workspace in the index (and its phase at Deleting) meanwhile.
    await inParent(['patch', 'workspace', 'going', '--type=json', '-p', '[{"op":"add","path":"/metadata/finalizers/-","value":"example.com/hold"}]']);
    await inParent(['delete', 'workspace', 'going', '--wait=false']);
    expect(await ok(['ws', 'tree', '-w', `:root:${del}`], env)).toBe(`.\n└── ${del}\n    └── staying\n\n`);
    expect(await ok(['ws', 'tree', '-w', `:root:${del}`, '--wide'], env)).toBe(`.\n└── ${del}\tws=-\tlc=Ready\n    └── staying\tws=Ready\tlc=Ready\n\n`);
    type Node = { path: string; children: Node[] };
    const tree = JSON.parse(await ok(['ws', 'tree', '-w', `:root:${del}`, '-o', 'json'], env)) as Node;
    expect(tree.children.map((c) => c.path)).toEqual([`root:${del}:staying`]);
    // Once its logical cluster is gone only our finalizer is left; removing it lets the workspace go.
    await eventually('only example.com/hold left on the deleted workspace', async () => {
      const got = await inParent(['get', 'workspace', 'going', '-o', 'jsonpath={.metadata.finalizers}']);
      return got.stdout === '["example.com/hold"]' ? true : undefined;
    });
    await inParent(['patch', 'workspace', 'going', '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers/0"}]']);
  });

  it('ws create waits while the workspace initializes and returns once its initializer is done', async () => {
    const env = { KUBECONFIG: copyAdmin('admin-init') };
    const admin = e2e.at('root');
    const type = uniqueName('slow-init');
    const patient = uniqueName('patient');
    await create(admin, workspaceType(type, { extend: { with: [root('universal')] }, initializer: true }));
    const creating = kcpt(['ws', 'create', patient, '--type', `root:${type}`, '--enter'], env);
    // The workspace sits in Initializing (the command keeps waiting) until the initializer removes itself.
    const cluster = await eventually(`workspace "${patient}" in phase Initializing`, async () => {
      const got = await admin(['get', 'workspace', patient, '-o', 'json'], { reject: false });
      const ws = got.exitCode === 0 ? JSON.parse(got.stdout) : undefined;
      return ws?.status?.phase === 'Initializing' ? (ws.spec.cluster as string) : undefined;
    });
    const vw = `${e2e.server.url}/services/initializingworkspaces/root:${type}/clusters/${cluster}`;
    await eventually('the workspace in the initializing virtual workspace', async () =>
      (await e2e.atUrl(vw)(['get', 'logicalcluster', 'cluster'], { reject: false })).exitCode === 0 ? true : undefined,
    );
    await e2e.atUrl(vw)(['patch', 'logicalcluster', 'cluster', '--subresource=status', '--type=json', '-p', '[{"op":"remove","path":"/status/initializers/0"}]']);
    const done = await creating;
    expect(done.exitCode, done.stderr).toBe(0);
    expect(done.stdout).toBe(
      [
        `Workspace "${patient}" (type root:${type}) created. Waiting for it to be ready...`,
        `Workspace "${patient}" (type root:${type}) is ready to use.`,
        `Current workspace is 'root:${patient}' (type root:${type}).`,
        '',
      ].join('\n'),
    );
    await mark(`root:${patient}`);
    expect(await markersSeen(env)).toEqual([`root-${patient}`]);
  });

  it('verifies the server as kubectl does: another CA or server name fails, --tls-server-name and --insecure-skip-tls-verify work', async () => {
    const env = { KUBECONFIG: copyAdmin('admin-tls') };
    const elsewhere = join(scratch, 'other-pki');
    mkdirSync(elsewhere);
    await ensureServingCertificates(elsewhere, { hosts: [] });
    const otherCa = await kcpt(['ws', 'tree', '-w', `:root:${readOrg}`, '--certificate-authority', join(elsewhere, 'ca.crt')], env);
    expect([otherCa.exitCode, otherCa.stdout]).toEqual([1, '']);
    expect(otherCa.stderr).toMatch(/^Error: Unable to connect to the server: tls: failed to verify certificate: x509: certificate signed by unknown authority/);
    const otherName = await kcpt(['ws', 'tree', '-w', `:root:${readOrg}`, '--tls-server-name', 'kcp.invalid'], env);
    expect([otherName.exitCode, otherName.stdout]).toEqual([1, '']);
    expect(otherName.stderr).toContain("Host: kcp.invalid. is not in the cert's altnames");

    const tree = `.\n└── ${readOrg}\n    └── team\n\n`;
    expect(await ok(['ws', 'tree', '-w', `:root:${readOrg}`, '--tls-server-name', 'localhost'], env)).toBe(tree);
    const token = adminToken(e2e.server.kubeconfig);
    const bare = { KUBECONFIG: join(scratch, 'no-such-kubeconfig') };
    const flags = ['--server', e2e.url(`root:${readOrg}`), '--token', token];
    expect(await ok(['ws', 'tree', ...flags, '--insecure-skip-tls-verify'], bare)).toBe(tree);
    // Without a CA (none in a kubeconfig, none given) the server's own CA is unknown to Node's roots.
    const noCa = await kcpt(['ws', 'tree', ...flags], bare);
    expect([noCa.exitCode, noCa.stderr]).toEqual([1, expect.stringContaining('Error: Unable to connect to the server: ')]);
  });

  it('reads user:NAME and :user:NAME as that user\'s home everywhere, and .. goes up from there', async () => {
    await ok(['ws', '~'], { KUBECONFIG: user1Kubeconfig('user-1-alias', 'root') });
    const env = { KUBECONFIG: copyAdmin('admin-alias') };
    const home = 'root:users:bi:ie:user-1';
    expect(await ok(['ws', 'user:user-1'], env)).toBe(`Current workspace is '${home}' (type root:home).\n`);
    expect(await ok(['ws', '..'], env)).toBe("Current workspace is 'root:users:bi:ie' (type root:homebucket).\n");
    expect(await ok(['ws', ':user:user-1:..', '--short'], env)).toBe('root:users:bi:ie\n');
    expect(await ok(['ws', 'tree', '-w', 'user:user-1', '--full'], env)).toContain(`└── ${home}`);
    expect(await ok(['ws', '.', '-o', 'jsonpath={.type}'], env)).toBe('root:homebucket');
    const kubeconfig = load(await ok(['kubeconfig', ':user:user-1'], env)) as { clusters: { cluster: { server: string } }[] };
    expect(kubeconfig.clusters[0]!.cluster.server).toBe(e2e.url(home));
    const nobody = await kcpt(['ws', 'user:nobody'], env);
    expect([nobody.exitCode, nobody.stderr]).toEqual([1, expect.stringContaining('Error: no home workspace of user "nobody"')]);
  });

  it('prints data as JSON with -o json, and never prompts without a terminal', async () => {
    const env = { KUBECONFIG: copyAdmin('admin-d') };
    const [jsonws, namews] = [uniqueName('jsonws'), uniqueName('namews')];
    const createdText = await ok(['ws', 'create', jsonws, '-o', 'json'], env);
    const created = JSON.parse(createdText) as { metadata: { name: string; managedFields?: unknown }; status: { phase: string } };
    expect([created.metadata.name, created.status.phase, created.metadata.managedFields]).toEqual([jsonws, 'Ready', undefined]);
    // Keys as kubectl prints an object: sorted, as Go marshals a map.
    expect(Object.keys(created)).toEqual(['apiVersion', 'kind', 'metadata', 'spec', 'status']);
    expect(Object.keys(created.metadata)).toEqual([...Object.keys(created.metadata)].sort());
    expect(await ok(['ws', 'create', namews, '-o', 'name'], env)).toBe(`workspace.tenancy.kcp.io/${namews}\n`);
    const current = JSON.parse(await ok(['ws', 'use', jsonws, '-o', 'json'], env)) as Record<string, string>;
    expect(current).toEqual({ workspace: `root:${jsonws}`, type: 'root:organization', url: e2e.url(`root:${jsonws}`) });
    const tree = JSON.parse(await ok(['ws', 'tree', '-w', `:root:${readOrg}`, '-o', 'json'], env)) as { path: string; children: { path: string }[] };
    expect([tree.path, tree.children.map((c) => c.path)]).toEqual([`root:${readOrg}`, [`root:${readOrg}:team`]]);
    const ctx = JSON.parse(await ok(['ws', 'create-context', 'mine', '-o', 'json'], env)) as Record<string, unknown>;
    expect(ctx).toEqual({ context: 'mine', created: true, switched: true });

    const noName = await kcpt(['ws', 'create'], env);
    expect([noName.exitCode, noName.stderr]).toEqual([2, "Error: workspace name (argument NAME) is required\nSee 'kcpt ws create --help' for usage.\n"]);
  });
});

/** A kubeconfig of its own for the token-file user user-1, pointing at `path`. */
function user1Kubeconfig(name: string, path: string): string {
  const file = join(scratch, name);
  writeFileSync(
    file,
    dump({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'kcp', cluster: { server: e2e.url(path), 'certificate-authority-data': caData() } }],
      users: [{ name: 'user-1', user: { token: users.user1.token } }],
      contexts: [{ name: 'kcp', context: { cluster: 'kcp', user: 'user-1' } }],
      'current-context': 'kcp',
    }),
  );
  return file;
}

function caData(): string {
  const admin = load(readFileSync(e2e.server.kubeconfig, 'utf8')) as { clusters: { cluster: { 'certificate-authority-data': string } }[] };
  return admin.clusters[0]!.cluster['certificate-authority-data'];
}
