/**
 * `kcpt kubeconfig`: standalone kubeconfigs for one workspace and one user or service account, used by the real
 * kubectl with nothing else configured (KUBECONFIG pointing at that file only, an empty HOME).
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectl, uniqueName } from '../helpers/kubectl.js';
import { useTenancyServer, users, workspaceByApi, type Json } from './tenancy-fixtures.js';
import { runKcpt } from '../helpers/cli.js';
import { adminToken } from '../helpers/http.js';

// The shared server: the file's workspaces sit under an org of its own (a unique name in root), and every name it
// creates in user-1's home is unique too.
const e2e = useTenancyServer();
const org = uniqueName('org');
const team = `root:${org}:team`;
let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'kcpt-kubeconfig-'));
  await workspaceByApi(e2e, 'root', org);
  await workspaceByApi(e2e, `root:${org}`, 'team');
  const at = e2e.at(team);
  // user-1 may enter the team workspace and manage configmaps there; user-2 gets nothing.
  await at(['create', 'clusterrolebinding', 'user-1-access', '--clusterrole=system:kcp:workspace:access', '--user=user-1']);
  await at(['create', 'rolebinding', 'user-1-edit', '--clusterrole=edit', '--user=user-1', '-n', 'default']);
  await at(['create', 'configmap', 'seed', '-n', 'default', '--from-literal=k=v']);
  await at(['create', 'serviceaccount', 'ci', '-n', 'default']);
  await at(['create', 'rolebinding', 'ci-view', '--clusterrole=view', '--serviceaccount=default:ci', '-n', 'default']);
}, 90_000);

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** kcpt with the server's env (admin.kubeconfig as KUBECONFIG) unless `env` overrides it. */
function kcpt(args: string[], env: Record<string, string | undefined> = {}) {
  return runKcpt(args, { ...e2e.server.env, ...env }, { extendEnv: false });
}

/** kubectl that knows nothing but `file`: no other kubeconfig, a HOME without ~/.kube. */
async function kubectlWith(file: string, args: string[]) {
  const home = await mkdtemp(join(scratch, 'home-'));
  return kubectl(e2e.server, args, { env: { KUBECONFIG: file, HOME: home }, reject: false });
}

describe('kcpt kubeconfig', () => {
  it('writes a kubeconfig for a token user that kubectl uses with no other config', async () => {
    const file = join(scratch, 'team.kubeconfig');
    const made = await kcpt(['kubeconfig', team, '--user', 'user-1', '--token', users.user1.token, '-o', file]);
    expect(made.exitCode, made.stderr).toBe(0);
    expect(made.stdout.trim()).toBe(`Wrote kubeconfig for user "user-1" in workspace "${team}" to ${file}.`);
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    const config = load(await readFile(file, 'utf8')) as Json;
    expect(config).toMatchObject({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': team,
      clusters: [{ name: team, cluster: { server: e2e.url(team) } }],
      contexts: [{ name: team, context: { cluster: team, user: 'user-1' } }],
      users: [{ name: 'user-1', user: { token: users.user1.token } }],
    });
    const ca = await readFile(join(e2e.server.rootDir, 'ca.crt'), 'utf8');
    expect(Buffer.from(config.clusters[0].cluster['certificate-authority-data'], 'base64').toString('utf8')).toBe(ca);

    const whoami = await kubectlWith(file, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
    expect(whoami.stdout, whoami.stderr).toBe('user-1');
    const created = await kubectlWith(file, ['create', 'configmap', 'from-ci', '-n', 'default', '--from-literal=a=1']);
    expect(created.exitCode, created.stderr).toBe(0);
    // It landed in root:org:team, nowhere else.
    const there = await e2e.at(team)(['get', 'configmap', 'from-ci', '-n', 'default', '-o', 'jsonpath={.data.a}']);
    expect(there.stdout).toBe('1');
    const root = await e2e.at('root')(['get', 'configmap', 'from-ci', '-n', 'default'], { reject: false });
    expect(root.stderr).toContain('NotFound');
  });

  it('takes the user and token from the current kubeconfig, and resolves relative paths from the current workspace', async () => {
    const file = join(scratch, 'admin-team.kubeconfig');
    const made = await kcpt(['kubeconfig', `${org}:team`, '--server', e2e.url('root'), '-o', file]);
    expect(made.exitCode, made.stderr).toBe(0);
    expect(made.stdout).toContain(`for user "kcp-admin" in workspace "${team}"`);
    const config = load(await readFile(file, 'utf8')) as Json;
    expect(config.users).toEqual([{ name: 'kcp-admin', user: { token: adminToken(e2e.server.kubeconfig) } }]);
    const ns = await kubectlWith(file, ['get', 'namespace', 'kube-system', '-o', 'name']);
    expect(ns.stdout.trim(), ns.stderr).toBe('namespace/kube-system');

    const shard = await kcpt(['kubeconfig', `root:${org}`, '--user', 'shard-admin', '-o', 'yaml']);
    expect(shard.exitCode, shard.stderr).toBe(0);
    expect((load(shard.stdout) as Json).users[0].name).toBe('shard-admin');
  });

  it('issues a service-account token with TokenRequest, for the set duration', async () => {
    const file = join(scratch, 'sa.kubeconfig');
    const before = Date.now();
    const made = await kcpt(['kubeconfig', `:${team}`, '--service-account', 'default/ci', '--duration', '2h', '-o', file]);
    expect(made.exitCode, made.stderr).toBe(0);
    const until = /token valid until (\S+)\.$/.exec(made.stdout.trim())?.[1];
    expect(until, made.stdout).toBeDefined();
    const lifetimeS = (Date.parse(until!) - before) / 1000;
    expect(lifetimeS).toBeGreaterThan(7200 - 60);
    expect(lifetimeS).toBeLessThan(7200 + 60);

    const config = load(await readFile(file, 'utf8')) as Json;
    expect(config.contexts[0].context).toEqual({ cluster: team, namespace: 'default', user: 'system:serviceaccount:default:ci' });
    const whoami = await kubectlWith(file, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
    expect(whoami.stdout, whoami.stderr).toBe('system:serviceaccount:default:ci');
    // The context's namespace is the service account's, where it may read.
    const list = await kubectlWith(file, ['get', 'configmaps', '-o', 'name']);
    expect(list.exitCode, list.stderr).toBe(0);
    expect(list.stdout).toContain('configmap/seed');
    const denied = await kubectlWith(file, ['create', 'configmap', 'by-sa']);
    expect(denied.stderr).toContain('User "system:serviceaccount:default:ci" cannot create resource "configmaps"');
  });

  it('works with no kubeconfig at all, given --server, --certificate-authority and a token', async () => {
    const file = join(scratch, 'bare.kubeconfig');
    const home = await mkdtemp(join(scratch, 'bare-home-'));
    const made = await kcpt(
      [
        'kubeconfig',
        team,
        '--server',
        e2e.server.url,
        '--certificate-authority',
        join(e2e.server.rootDir, 'ca.crt'),
        '--user',
        'user-1',
        '--token',
        users.user1.token,
        '-o',
        file,
      ],
      { KUBECONFIG: undefined, HOME: home },
    );
    expect(made.exitCode, made.stderr).toBe(0);
    const got = await kubectlWith(file, ['get', 'configmap', 'seed', '-n', 'default', '-o', 'name']);
    expect(got.stdout.trim(), got.stderr).toBe('configmap/seed');
  });

  it('takes ~ (also as the shell expands it) and user:<name> for a home workspace, as kcpt ws does', async () => {
    const home = 'root:users:bi:ie:user-1';
    const file = join(scratch, 'home.kubeconfig');
    const made = await kcpt(['kubeconfig', '~', '--user', 'user-1', '--token', users.user1.token, '-o', file]);
    expect(made.exitCode, made.stderr).toBe(0);
    expect(made.stdout.trim()).toBe(`Wrote kubeconfig for user "user-1" in workspace "${home}" to ${file}.`);
    const atHome = uniqueName('at-home');
    const created = await kubectlWith(file, ['create', 'configmap', atHome, '-n', 'default']);
    expect(created.exitCode, created.stderr).toBe(0);
    const there = await e2e.at(home)(['get', 'configmap', atHome, '-n', 'default', '-o', 'name']);
    expect(there.stdout).toBe(`configmap/${atHome}`);

    // An unquoted ~ reaches kcpt as $HOME; the admin names user-1's home with kcp's alias, a child of it with :sub.
    const expanded = await kcpt(['kubeconfig', e2e.server.env.HOME!, '--user', 'user-1', '--token', users.user1.token, '-o', 'json']);
    expect(JSON.parse(expanded.stdout).clusters[0].cluster.server, expanded.stderr).toBe(e2e.url(home));
    const alias = await kcpt(['kubeconfig', 'user:user-1', '-o', 'json']);
    expect(JSON.parse(alias.stdout).clusters, alias.stderr).toMatchObject([{ name: home, cluster: { server: e2e.url(home) } }]);
    const sub = uniqueName('ci');
    await workspaceByApi(e2e, home, sub);
    const child = await kcpt(['kubeconfig', `:user:user-1:${sub}`, '-o', 'json']);
    expect(JSON.parse(child.stdout)['current-context'], child.stderr).toBe(`${home}:${sub}`);

    const nobody = await kcpt(['kubeconfig', 'user:nobody', '-o', 'json']);
    expect([nobody.exitCode, nobody.stdout, nobody.stderr.trim()]).toEqual([
      1,
      '',
      'Error: no home workspace of user "nobody" that these credentials may use (user:nobody); a home exists once its user has entered it with "kcpt ws ~"',
    ]);
  });

  it('prints the kubeconfig as yaml by default and as json with -o json', async () => {
    const yaml = await kcpt(['kubeconfig', team, '--user', 'user-1', '--token', users.user1.token]);
    expect(yaml.exitCode, yaml.stderr).toBe(0);
    expect(yaml.stdout).toMatch(/^apiVersion: v1\nclusters:\n- cluster:\n/);
    const json = await kcpt(['kubeconfig', team, '--user', 'user-1', '--token', users.user1.token, '-o', 'json']);
    expect(JSON.parse(json.stdout)).toEqual(load(yaml.stdout));
  });

  it('checks the credentials against the workspace before writing anything', async () => {
    const file = join(scratch, 'never.kubeconfig');
    const cases: [string[], number, string][] = [
      [[team, '--user', 'user-2', '--token', users.user2.token], 1, `Error: user "user-2" may not use workspace "${team}" (Forbidden): `],
      [[team, '--user', 'mallory', '--token', 'not-a-token'], 1, 'Error: the server does not accept the credentials of user "mallory" (Unauthorized): check the token'],
      [[`root:${org}:nope`], 1, `Error from server (NotFound): workspaces.tenancy.kcp.io "root:${org}:nope" not found`],
      [[team, '--user', 'bob'], 2, 'Error: user "bob" is not in the kubeconfig: pass the user\'s token with --token'],
      [[team, '--service-account', 'default/nobody'], 1, 'Error from server (NotFound): serviceaccounts "nobody" not found'],
      [[team, '--service-account', 'ci'], 2, 'Error: --service-account: "ci" is not NAMESPACE/NAME, e.g. default/ci'],
      [[team, '--service-account', 'default/ci', '--duration', '1m'], 1, 'Error from server (Invalid): '],
      [[team, '--service-account', 'default/ci', '--duration', 'long'], 2, 'Error: --duration: "long" is not a duration'],
      [[team, '--duration', '1h'], 2, "Error: --duration sets the lifetime of a --service-account token"],
      [['root:..:..'], 1, 'Error: cannot go above the root workspace'],
      [['Not_A_Path'], 2, 'Error: invalid workspace path: Not_A_Path'],
    ];
    for (const [args, code, message] of cases) {
      const result = await kcpt(['kubeconfig', ...args, '-o', file]);
      expect([args.join(' '), result.exitCode, result.stderr.trim()]).toEqual([args.join(' '), code, expect.stringContaining(message)]);
      // One line; a usage mistake adds where the help is.
      expect(result.stderr.trim().split('\n').slice(1)).toEqual(code === 2 ? ["See 'kcpt kubeconfig --help' for usage."] : []);
    }
    await expect(stat(file)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
