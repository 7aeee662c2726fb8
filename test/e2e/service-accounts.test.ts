/**
 * Authentication per workspace with the real kubectl: `default` ServiceAccounts everywhere, `kubectl create token`
 * tokens that are themselves in their own workspace and a foreign identity in a sibling, legacy token Secrets,
 * tokens dying with their account, `kubectl auth whoami` for every kind of user, TokenReview audiences, file
 * permissions in the root directory and --batteries-included errors. On the shared server: every workspace and
 * service account a test makes has a name of its own (the metrics-viewer battery, a start flag, is
 * service-accounts-metrics-viewer.test.ts).
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { uniqueName } from '../helpers/kubectl.js';
import { repoRoot } from '../helpers/server.js';
import { create, eventually, getJson, useTenancyServer, users, workspaceByApi, type Json } from './tenancy-fixtures.js';

const e2e = useTenancyServer();

/** kubectl with nothing but a bearer token (no admin credentials anywhere), at `/clusters/<path>` or the bare URL. */
const withToken = (token: string, path?: string) => (args: string[]) =>
  e2e.asUser(token, path ?? '')(path === undefined ? ['--server', e2e.server.url, ...args] : args, { reject: false });

/** `kubectl auth whoami -o json` → status.userInfo */
async function whoami(token: string, path?: string): Promise<Json> {
  const result = await withToken(token, path)(['auth', 'whoami', '-o', 'json']);
  if (result.exitCode !== 0) throw new Error(result.stderr);
  return (JSON.parse(result.stdout) as Json).status.userInfo;
}

async function clusterOf(path: string): Promise<string> {
  return (await getJson(e2e.at(path), ['logicalcluster', 'cluster'])).metadata.annotations['kcp.io/cluster'];
}

describe('default ServiceAccounts', () => {
  it("exist in a new workspace's namespaces, in namespaces created later, and come back when deleted", async () => {
    const ws = uniqueName('sa-defaults');
    await workspaceByApi(e2e, 'root', ws);
    const k = e2e.at(`root:${ws}`);
    const listed = await k(['get', 'serviceaccounts', '-A', '-o', 'jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name} {end}']);
    expect(listed.stdout.trim().split(' ').sort()).toEqual(['default/default', 'kube-system/default']);
    await k(['create', 'namespace', 'apps']);
    await eventually('default SA in apps', async () => ((await k(['get', 'sa', 'default', '-n', 'apps'], { reject: false })).exitCode === 0 ? true : undefined));
    const before = (await getJson(k, ['sa', 'default', '-n', 'apps'])).metadata.uid;
    await k(['delete', 'sa', 'default', '-n', 'apps']);
    const again = await eventually('default SA recreated', async () => {
      const r = await k(['get', 'sa', 'default', '-n', 'apps', '-o', 'jsonpath={.metadata.uid}'], { reject: false });
      return r.exitCode === 0 ? r.stdout : undefined;
    });
    expect(again).not.toBe(before);
  });
});

describe('kubectl create token', () => {
  it('gives a token that is the service account in its workspace and a foreign identity in a sibling', async () => {
    const [homePath, siblingPath] = [`root:${uniqueName('sa-home')}`, `root:${uniqueName('sa-sibling')}`];
    await Promise.all([homePath, siblingPath].map((path) => workspaceByApi(e2e, 'root', path.slice('root:'.length))));
    const home = e2e.at(homePath);
    await home(['create', 'serviceaccount', 'robot']);
    const uid = (await getJson(home, ['sa', 'robot'])).metadata.uid;
    const token = (await home(['create', 'token', 'robot', '--duration', '15m'])).stdout.trim();
    const cluster = await clusterOf(homePath);

    const own = await whoami(token, homePath);
    expect(own).toMatchObject({
      username: 'system:serviceaccount:default:robot',
      uid,
      groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
      extra: { 'authentication.kcp.io/cluster-name': [cluster] },
    });
    expect(own.extra['authentication.kubernetes.io/credential-id'][0]).toMatch(/^JTI=/);
    // By cluster name too, and with no /clusters/ prefix at all (in-cluster clients): its own workspace.
    expect((await whoami(token, cluster)).username).toBe('system:serviceaccount:default:robot');
    expect((await whoami(token)).username).toBe('system:serviceaccount:default:robot');
    // In its own workspace it passes straight to RBAC: nothing until a binding grants it something.
    const refused = await withToken(token, homePath)(['get', 'configmaps']);
    expect(refused.stderr).toContain('User "system:serviceaccount:default:robot" cannot list resource "configmaps"');
    await home(['create', 'rolebinding', 'robot-view', '--clusterrole', 'view', '--serviceaccount', 'default:robot']);
    expect((await withToken(token, homePath)(['get', 'configmaps'])).exitCode).toBe(0);

    // Elsewhere it is a foreign identity, let in only where its origin's group is granted access (kcp's model).
    const outside = await withToken(token, siblingPath)(['get', 'configmaps']);
    expect(outside.stderr).toContain('Error from server (Forbidden)');
    await e2e.at(siblingPath)(['create', 'clusterrolebinding', 'from-sa-home', '--clusterrole', 'system:kcp:workspace:access', '--group', `system:cluster:${cluster}`]);
    expect(await whoami(token, siblingPath)).toEqual({
      username: 'system:anonymous',
      groups: ['system:authenticated', `system:cluster:${cluster}`],
    });

    const table = await withToken(token, siblingPath)(['auth', 'whoami']);
    expect(table.stdout).toMatch(/Username\s+system:anonymous/);
  });

  it('refuses what kube refuses, and audience-bound tokens only pass TokenReview for their audience', async () => {
    const root = e2e.at('root');
    const short = await root(['create', 'token', 'default', '--duration', '5m'], { reject: false });
    expect(short.stderr).toContain('spec.expirationSeconds: Invalid value: 300: may not specify a duration less than 10 minutes');
    const missing = await root(['create', 'token', 'nobody'], { reject: false });
    expect(missing.stderr).toContain('serviceaccounts "nobody" not found');
    const bound = await root(['create', 'token', 'default', '--bound-object-kind', 'Secret', '--bound-object-name', 'nope'], { reject: false });
    expect(bound.stderr).toContain('secrets "nope" not found');

    const vaultToken = (await root(['create', 'token', 'default', '--audience', 'vault'])).stdout.trim();
    // Discovery cached first (as kcp-admin): the token's own request is what gets refused. With a cold cache kubectl
    // fails in discovery and prints client-go's generic 401 text instead of the Status' "Unauthorized".
    await root(['get', 'configmaps']);
    const refused = await withToken(vaultToken, 'root')(['get', 'configmaps']);
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain('Unauthorized');
    const reviewed = await root(['create', '--validate=false', '-o', 'json', '-f', '-'], {
      input: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: vaultToken, audiences: ['vault'] } }),
    });
    expect(JSON.parse(reviewed.stdout).status).toMatchObject({
      authenticated: true,
      audiences: ['vault'],
      user: { username: 'system:serviceaccount:default:default' },
    });
    const wrong = await root(['create', '--validate=false', '-o', 'json', '-f', '-'], {
      input: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: vaultToken } }),
    });
    expect(JSON.parse(wrong.stdout).status.authenticated).toBeUndefined();
    expect(JSON.parse(wrong.stdout).status.error).toContain('is invalid for the target audiences');
  });

  it('stops working (401) once its service account is deleted', async () => {
    const root = e2e.at('root');
    const name = uniqueName('short-lived');
    await root(['create', 'serviceaccount', name]);
    const token = (await root(['create', 'token', name])).stdout.trim();
    expect((await whoami(token, 'root')).username).toBe(`system:serviceaccount:default:${name}`);
    await root(['delete', 'serviceaccount', name]);
    const after = await withToken(token, 'root')(['get', 'namespaces']);
    expect(after.exitCode).not.toBe(0);
    expect(after.stderr).toContain('error: You must be logged in to the server (Unauthorized)');
  });
});

describe('legacy service-account token Secrets', () => {
  it('are filled by the tokens controller, usable, and invalid once deleted', async () => {
    const ws = `root:${uniqueName('sa-legacy')}`;
    await workspaceByApi(e2e, 'root', ws.slice('root:'.length));
    const k = e2e.at(ws);
    await k(['create', 'serviceaccount', 'builder']);
    const sa = await getJson(k, ['sa', 'builder']);
    await create(k, {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'kubernetes.io/service-account-token',
      metadata: { name: 'builder-token', annotations: { 'kubernetes.io/service-account.name': 'builder' } },
    });
    const secret = await eventually('token filled in', async () => {
      const s = await getJson(k, ['secret', 'builder-token']);
      return s.data?.token ? s : undefined;
    });
    const decode = (v: string) => Buffer.from(v, 'base64').toString('utf8');
    expect(decode(secret.data.namespace)).toBe('default');
    expect(decode(secret.data['ca.crt'])).toContain('-----BEGIN CERTIFICATE-----');
    expect(secret.metadata.annotations['kubernetes.io/service-account.uid']).toBe(sa.metadata.uid);
    const token = decode(secret.data.token);
    expect((await whoami(token, ws)).username).toBe('system:serviceaccount:default:builder');

    await k(['delete', 'secret', 'builder-token']);
    expect((await withToken(token, ws)(['get', 'sa'])).stderr).toContain('Unauthorized');
  });
});

describe('kubectl auth whoami', () => {
  it('shows the admin and token-file users as kube does', async () => {
    const admin = (await e2e.at('root')(['auth', 'whoami', '-o', 'json'])).stdout;
    expect(JSON.parse(admin).status.userInfo).toMatchObject({ username: 'kcp-admin', groups: ['system:kcp:admin', 'system:authenticated'] });
    expect(await whoami(users.user1.token, 'root')).toEqual({
      username: 'user-1',
      uid: users.user1.uid,
      groups: ['team-1', 'system:authenticated'],
    });
    const bad = await withToken('not-a-token', 'root')(['auth', 'whoami']);
    expect(bad.stderr).toContain('Unauthorized');
  });
});

describe('the root directory', () => {
  it('is private, and so are the files holding secrets', async () => {
    const mode = async (name: string) => (await stat(join(e2e.server.rootDir, name))).mode & 0o777;
    expect(await mode('.')).toBe(0o700);
    // On etcd (KCPT_E2E_STORAGE=etcd) there is no kcpt.db: the objects are in etcd.
    const store = e2e.server.etcd ? [] : ['kcpt.db'];
    for (const file of ['sa.key', ...store, '.admin-token-store', 'admin.kubeconfig']) expect([file, await mode(file)]).toEqual([file, 0o600]);
  });
});

describe('--batteries-included', () => {
  it("refuses mixed lists, unknown batteries and user without admin with kcp's messages", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kcpt-batteries-'));
    try {
      const start = (value: string) =>
        execa('node', [join(repoRoot, 'bin', 'run.js'), 'start', '--root-directory', dir, '--secure-port', '0', '--batteries-included', value], {
          reject: false,
          timeout: 30_000,
        });
      const mixed = await start('admin,+user');
      expect(mixed.exitCode).toBe(2);
      expect(mixed.stderr).toContain('--batteries-included must all be prefixed with + or - or none');
      expect((await start('admin,rocket')).stderr).toContain('unknown battery: rocket');
      expect((await start('user')).stderr).toContain('battery user enabled which requires admin as well');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
