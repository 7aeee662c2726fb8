/**
 * Home workspaces with the real kubectl for two users, kcp-admin from the admin
 * kubeconfig and user-1 from a --token-auth-file: `kubectl get workspace '~'` creates the home on demand under its
 * buckets and answers it once Ready, `user:<name>` reaches the same cluster, and the home belongs to its user.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../helpers/kubectl.js';
import { expectError } from '../helpers/suite.js';
import { parseTable } from '../helpers/table.js';
import { createWorkspace, getJson, root, useTenancyServer, users, type Json } from './tenancy-fixtures.js';

// The shared server: the homes of the token users are everyone's there, so the tests assert on the homes they reach
// and on the buckets above them, never on all of root:users.
const e2e = useTenancyServer();

const homes = [
  { label: 'kcp-admin', username: 'kcp-admin', path: 'root:users:zu:yc:kcp-admin', k: () => e2e.at('root') },
  { label: 'a token user', username: users.user1.name, path: 'root:users:bi:ie:user-1', k: () => e2e.asUser(users.user1.token, 'root') },
];

describe.each(homes)('the home of $label', ({ username, path, k }) => {
  let home: Json;
  beforeAll(async () => {
    home = await getJson(k(), ['workspace', '~']);
  }, 60_000);

  it('get workspace ~ answers the Ready home at its bucket path', async () => {
    expect(home.metadata.name).toBe(username);
    expect(home.spec).toEqual({ cluster: home.spec.cluster, URL: e2e.url(path), type: root('home') });
    expect(home.spec.cluster).toMatch(/^[0-9a-z]{16}$/);
    expect(home.status.phase).toBe('Ready');
    expect(home.metadata.annotations['experimental.tenancy.kcp.io/owner']).toBe(JSON.stringify({ username }));
    // The table a user sees, and the same home the second time.
    const [row] = parseTable((await k()(['get', 'workspace', '~'])).stdout).records;
    expect(row).toMatchObject({ NAME: username, TYPE: 'home', PHASE: 'Ready', URL: e2e.url(path) });
    expect((await getJson(k(), ['workspace', '~'])).metadata.uid).toBe(home.metadata.uid);
  });

  it('user:<name>, the path and the cluster name are one workspace, owned by the user', async () => {
    const viaAlias = await getJson(e2e.at(`user:${username}`), ['logicalcluster', 'cluster']);
    const viaPath = await getJson(e2e.at(path), ['logicalcluster', 'cluster']);
    const viaName = await getJson(e2e.at(home.spec.cluster), ['logicalcluster', 'cluster']);
    expect(new Set([viaAlias, viaPath, viaName].map((lc) => lc.metadata.uid)).size).toBe(1);
    expect(viaAlias.metadata.annotations).toMatchObject({
      'kcp.io/cluster': home.spec.cluster,
      'kcp.io/path': path,
      'internal.tenancy.kcp.io/type': 'root:home',
    });
    expect(viaAlias.spec.createdBy.username).toBe(username);
    expect(viaAlias.status.URL).toBe(e2e.url(home.spec.cluster));
    const crb = await getJson(e2e.at(`user:${username}`), ['clusterrolebinding', 'workspace-admin']);
    expect(crb.roleRef.name).toBe('cluster-admin');
    expect(crb.subjects).toEqual([{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: username }]);
  });

  it('is a universal workspace the user can fill and nest in', async () => {
    const name = uniqueName('cm');
    await k()(['--server', e2e.url(`user:${username}`), 'create', 'configmap', name, '-n', 'default']);
    expect((await getJson(e2e.at(path), ['configmap', name, '-n', 'default'])).metadata.annotations['kcp.io/cluster']).toBe(
      home.spec.cluster,
    );
    const child = await createWorkspace(e2e.at(`user:${username}`), uniqueName('child'));
    expect(child.spec.type).toEqual(root('universal'));
    expect(child.spec.URL).toBe(e2e.url(`${path}:${child.metadata.name}`));
    const byAlias = await getJson(e2e.at(`user:${username}:${child.metadata.name}`), ['logicalcluster', 'cluster']);
    expect(byAlias.metadata.annotations['kcp.io/cluster']).toBe(child.spec.cluster);
  });
});

describe('the buckets above the homes', () => {
  it('are workspaces of the home types, created on demand', async () => {
    // Both homes exist once asked for.
    await getJson(e2e.at('root'), ['workspace', '~']);
    await getJson(e2e.asUser(users.user1.token, 'root'), ['workspace', '~']);
    const types = async (at: string) =>
      Object.fromEntries(parseTable((await e2e.at(at)(['get', 'workspaces'])).stdout).records.map((r) => [r.NAME, r.TYPE]));
    /** The children of `at`: those named, and every one of them of that type (other users' homes may be there too). */
    const expectChildren = async (at: string, named: Record<string, string>, type: string) => {
      const children = await types(at);
      expect(children).toMatchObject(named);
      expect(new Set(Object.values(children))).toEqual(new Set([type]));
    };
    expect(await types('root')).toMatchObject({ users: 'homeroot' });
    await expectChildren('root:users', { bi: 'homebucket', zu: 'homebucket' }, 'homebucket');
    await expectChildren('root:users:zu', { yc: 'homebucket' }, 'homebucket');
    await expectChildren('root:users:zu:yc', { 'kcp-admin': 'home' }, 'home');
    await expectChildren('root:users:bi:ie', { 'user-1': 'home' }, 'home');
  });

  it('a second user gets a home of their own', async () => {
    const other = await getJson(e2e.asUser(users.user2.token, 'root'), ['workspace', '~']);
    const mine = await getJson(e2e.asUser(users.user1.token, 'root'), ['workspace', '~']);
    expect(other.metadata.name).toBe('user-2');
    expect(other.spec.cluster).not.toBe(mine.spec.cluster);
    expect(other.spec.URL).toMatch(new RegExp(`^${e2e.server.url}/clusters/root:users:[a-z]{2}:[a-z]{2}:user-2$`));
  });

  it('~ is only special in root', async () => {
    const org = uniqueName('org');
    await createWorkspace(e2e.at('root'), org);
    const result = await e2e.at(`root:${org}`)(['get', 'workspace', '~'], { reject: false });
    expectError(result, 'Error from server (NotFound): workspaces.tenancy.kcp.io "~" not found');
  });
});
