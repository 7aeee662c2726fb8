/**
 * The merged workspace index finds a non-admin's workspace whose Workspace object and LogicalCluster sit on different
 * shards: root:team is placed on shard-1 (so its children's Workspace objects are stored there), its
 * children on shard-2, and user-2 is let in only inside a child. Shard-2 knows the access, shard-1 the Workspace; the
 * proxy joins them. Checked as user-2 with the real kubectl through the proxy (list, Table columns, JSON, a watch
 * that sees a workspace become reachable and one deleted) and with `kcpt ws list` / `kcpt ws tree`. On the project's
 * shared cluster: the workspaces have names of the file's own, and what is asserted of user-2's index is asserted of
 * them (other files let user-2 into workspaces of theirs).
 */
import { writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { runKcpt, useScratchDirectory } from '../helpers/cli.js';
import { kubectl, kubectlBackground, uniqueName } from '../helpers/kubectl.js';
import { create, eventually, getJson, useTenancyServer, users, type Json } from '../e2e/tenancy-fixtures.js';

const e2e = useTenancyServer({ sharded: true });
const [team, app, api, own] = ['team', 'app', 'api', 'own'].map(uniqueName) as [string, string, string, string];
const scratch = useScratchDirectory('kcpt-xshard-index-');
const indexUrl = () => `${e2e.server.url}/services/workspaces/all/clusters/*`;

/** `kcpt ws create` as kcp-admin in `parent`, placed on `shard`, once Ready. */
async function placed(parent: string, name: string, shard: string): Promise<Json> {
  const run = await runKcpt(['ws', 'create', name, '--location-selector', `name=${shard}`, '-w', `:${parent}`], {
    ...e2e.server.env,
    KUBECONFIG: e2e.server.kubeconfig,
  });
  expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
  return eventually(`${parent}:${name} Ready`, async () => {
    const got = await getJson(e2e.at(parent), ['workspace', name]);
    return got.status?.phase === 'Ready' ? got : undefined;
  }, 60_000);
}

/** Lets user-2 enter `path` (kcp's `access` on `/`) and list workspaces there, and nothing else. */
async function letUser2In(path: string): Promise<void> {
  await create(e2e.at(path), {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'enter-and-list' },
    rules: [
      { nonResourceURLs: ['/'], verbs: ['access'] },
      { apiGroups: ['tenancy.kcp.io'], resources: ['workspaces'], verbs: ['get', 'list', 'watch'] },
    ],
  });
  await e2e.at(path)(['create', 'clusterrolebinding', 'user-2-enter', '--clusterrole=enter-and-list', `--user=${users.user2.name}`]);
}

/** kubectl as user-2 at the workspace index through the proxy. */
const asUser2 = (args: string[]) => kubectl(e2e.server, ['--context', 'root', '--token', users.user2.token, '--server', indexUrl(), ...args]);

/** A kubeconfig of user-2's own pointing at `path` through the proxy (what `kcpt ws` reads and rewrites). */
function user2Kubeconfig(path: string): string {
  const admin = parseYaml(readFileSync(e2e.server.kubeconfig, 'utf8')) as { clusters: { cluster: Json }[] };
  const file = join(scratch.path, `user-2-${path.replaceAll(':', '-')}`);
  writeFileSync(
    file,
    toYaml({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'kcp', cluster: { server: `${e2e.server.url}/clusters/${path}`, 'certificate-authority-data': admin.clusters[0]!.cluster['certificate-authority-data'] } }],
      users: [{ name: 'user-2', user: { token: users.user2.token } }],
      contexts: [{ name: 'kcp', context: { cluster: 'kcp', user: 'user-2' } }],
      'current-context': 'kcp',
    }),
  );
  return file;
}

describe('the workspace index across shards, for a user let in only below', () => {
  it('lists, prints, watches and navigates a child whose Workspace is on another shard than its cluster', async () => {
    const teamWs = await placed('root', team, 'shard-1');
    expect(teamWs.metadata.annotations['core.kcp.io/shard']).toBe('shard-1');
    const appWs = await placed(`root:${team}`, app, 'shard-2');
    expect(appWs.metadata.annotations['core.kcp.io/shard']).toBe('shard-2');
    const ours = (names: string) => names.split('\n').filter((l) => [team, app, api].some((n) => l === `workspace.tenancy.kcp.io/${n}`));

    // Before any grant, user-2 reaches nothing here.
    expect(ours((await asUser2(['get', 'workspaces', '-o', 'name'])).stdout)).toEqual([]);
    await letUser2In(`root:${team}:${app}`);

    // The Table the server prints: name, type, phase and URL of the Workspace stored on shard-1.
    const table = await eventually('app in user-2’s index', async () => {
      const out = (await asUser2(['get', 'workspaces'])).stdout;
      return new RegExp(`^${app}\\s`, 'm').test(out) ? out : undefined;
    });
    expect(table.split('\n')[0]).toMatch(/^NAME\s+TYPE\s+REGION\s+PHASE\s+URL\s+AGE/);
    const row = table.split('\n').find((l) => l.startsWith(`${app} `))!;
    // No region: the cells after the type are the phase and the URL.
    expect(row.split(/\s+/).slice(0, 4)).toEqual([app, 'universal', 'Ready', appWs.spec.URL]);
    expect(table).not.toMatch(new RegExp(`^${team}\\s`, 'm'));

    // JSON: the real Workspace object, with its path.
    const items = JSON.parse((await asUser2(['get', 'workspaces', '-o', 'json'])).stdout).items as Json[];
    const listed = items.filter((w) => w.metadata.name === app);
    expect(listed).toHaveLength(1);
    expect(listed[0]!.kind).toBe('Workspace');
    expect(listed[0]!.metadata.uid).toBe(appWs.metadata.uid);
    expect(listed[0]!.metadata.annotations['kcp.io/path']).toBe(`root:${team}:${app}`);
    expect(listed[0]!.metadata.annotations['kcp.io/cluster']).toBe(teamWs.spec.cluster);
    expect(listed[0]!.spec).toMatchObject({ cluster: appWs.spec.cluster, URL: appWs.spec.URL });
    expect(listed[0]!.status.phase).toBe('Ready');

    // kcpt ws as user-2: list finds it through the index; tree draws it from inside.
    const env = { ...e2e.server.env, KUBECONFIG: user2Kubeconfig(`root:${team}:${app}`) };
    const list = await runKcpt(['ws', 'list', '-o', 'json'], env);
    expect(list.exitCode, list.stderr).toBe(0);
    const listedItems = (JSON.parse(list.stdout) as { items: { metadata: { annotations: Record<string, string> }; status: { phase: string } }[] }).items;
    const pathAndPhase = listedItems.map((w) => [w.metadata.annotations['kcp.io/path'] ?? '', w.status.phase]);
    expect(pathAndPhase.filter(([path]) => path === `root:${team}` || path!.startsWith(`root:${team}:`))).toEqual([[`root:${team}:${app}`, 'Ready']]);
    const tree = await runKcpt(['ws', 'tree'], env);
    expect([tree.exitCode, tree.stdout, tree.stderr]).toEqual([0, `.\n└── ${app}\n`, '']);

    // A watch (list, then watch from the list's resourceVersion): app ADDED; a second child let in later ADDED; app
    // deleted by the admin DELETED.
    const watch = kubectlBackground(e2e.server, [
      '--context', 'root', '--token', users.user2.token, '--server', indexUrl(), 'get', 'workspaces', '-w', '--output-watch-events',
    ]);
    const event = (type: string, name: string, phase: string) => new RegExp(`^${type}\\s+${name}\\s+universal\\s+${phase}\\s+\\S+/clusters/root:${team}:${name}\\s`);
    try {
      await watch.waitForLine(event('ADDED', app, 'Ready'), 30_000);
      await placed(`root:${team}`, api, 'shard-2');
      await letUser2In(`root:${team}:${api}`);
      await watch.waitForLine(event('ADDED', api, 'Ready'), 30_000);
      await e2e.at(`root:${team}`)(['delete', 'workspace', app, '--wait=false']);
      await watch.waitForLine(event('MODIFIED', app, 'Deleting'), 60_000);
      await watch.waitForLine(event('DELETED', app, 'Deleting'), 60_000);
      expect(watch.exited()).toBe(false);
    } finally {
      await watch.stop();
    }
    // Each once: the list's resourceVersion resumes the references where the list read them.
    const added = watch.lines().filter((l) => /^ADDED\s/.test(l)).map((l) => l.split(/\s+/)[1]);
    expect(added.filter((name) => [team, app, api].includes(name!))).toEqual([app, api]);
    expect(ours((await asUser2(['get', 'workspaces', '-o', 'name'])).stdout)).toEqual([`workspace.tenancy.kcp.io/${api}`]);
  }, 300_000);

  it('reads no Workspace for a reference whose LogicalCluster owner was rewritten to point at it', async () => {
    // user-2's own workspace on shard-2 (their home is on root): they are its cluster-admin, but its LogicalCluster's
    // owner is the system's (refused); the shard admin may rewrite it. Pointed at root's `team`, shard-2 answers a
    // reference to root/team, which the proxy reads with its own identity: it must not show team, whose Workspace
    // does not lead to user-2's cluster.
    const home = await getJson(e2e.asUser(users.user2.token, 'root'), ['workspace', '~']);
    const homePath = new URL(home.spec.URL).pathname.replace('/clusters/', '');
    const run = await runKcpt(['ws', 'create', own, '--location-selector', 'name=shard-2'], { ...e2e.server.env, KUBECONFIG: user2Kubeconfig(homePath) });
    expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
    const listed = async () => (JSON.parse((await asUser2(['get', 'workspaces', '-o', 'json'])).stdout).items as Json[]).map((w) => `${w.metadata.annotations['kcp.io/path']}=${w.metadata.name}`);
    expect(await listed()).toContain(`${homePath}:${own}=${own}`);
    const patch = JSON.stringify({ spec: { owner: { cluster: 'root', name: team } } });
    const refused = await e2e.asUser(users.user2.token, `${homePath}:${own}`)(['patch', 'logicalcluster', 'cluster', '--type=merge', '-p', patch], { reject: false });
    expect(refused.stderr).toContain('spec.owner can only be changed by system privileged users');
    await e2e.asShardAdmin(`${homePath}:${own}`)(['patch', 'logicalcluster', 'cluster', '--type=merge', '-p', patch]);
    const after = await listed();
    expect(after.filter((w) => w.endsWith(`=${team}`) || w.endsWith(`=${own}`))).toEqual([]);
  }, 120_000);
});
