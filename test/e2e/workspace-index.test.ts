/**
 * The workspace index and what `kubectl get workspaces` shows, with the real
 * kubectl for kcp-admin and two token users: in a parent, a user sees only the children they may enter; under
 * /services/workspaces/all/clusters/* a user lists and watches every workspace they may enter anywhere in the tree,
 * each with its path and URL, and the watch follows bindings as they are added and removed.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { kubectlBackground, uniqueName, type ClusterKubectl } from '../helpers/kubectl.js';
import { apiRequest } from '../helpers/http.js';
import { parseTable } from '../helpers/table.js';
import { create, createWorkspace, eventually, getJson, root, useTenancyServer, users, workspace, workspaceByApi, type Json } from './tenancy-fixtures.js';

// The shared server: every workspace of this file sits under an organisation of a unique name, and what is asserted
// of the index is asserted of paths under it (other files' workspaces share the index).
const e2e = useTenancyServer();
const org = uniqueName('idx');
const children = ['c1', 'c2', 'c3', 'c4', 'c5'];
const indexUrl = () => `${e2e.server.url}/services/workspaces/all/clusters/*`;
const asUser1 = (path: string) => e2e.asUser(users.user1.token, path);
const indexAs = (token: string): ClusterKubectl => (args, o) => e2e.atUrl(indexUrl())(['--token', token, ...args], o);

function accessBinding(name: string, user: string, role = 'system:kcp:workspace:access'): Json {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
  };
}

const names = (list: Json) => (list.items as Json[]).map((w) => w.metadata.name as string).sort();

/** An organisation `name` with the children c1..c5, where user-1 may enter the organisation, c2 and c4 only. */
async function indexedOrg(name: string): Promise<void> {
  await workspaceByApi(e2e, 'root', name, root('organization'));
  await Promise.all(children.map((c) => workspaceByApi(e2e, `root:${name}`, c)));
  // user-1 may enter the organisation and list its workspaces, and may enter c2 and c4 only.
  const inOrg = e2e.at(`root:${name}`);
  await create(inOrg, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'workspace-lister' },
    rules: [{ apiGroups: ['tenancy.kcp.io'], resources: ['workspaces'], verbs: ['get', 'list', 'watch'] }],
  });
  await create(inOrg, accessBinding('user-1-access', users.user1.name));
  await create(inOrg, accessBinding('user-1-lists', users.user1.name, 'workspace-lister'));
  for (const c of ['c2', 'c4']) await create(e2e.at(`root:${name}:${c}`), accessBinding('user-1-access', users.user1.name));
}

// The tests that only read share one organisation; a test that writes makes its own.
beforeAll(() => indexedOrg(org), 120_000);

describe('kubectl get workspaces in a parent', () => {
  it('shows a user only the children they may enter', async () => {
    const table = parseTable((await asUser1(`root:${org}`)(['get', 'workspaces'])).stdout);
    expect(table.records.map((r) => r.NAME)).toEqual(['c2', 'c4']);
    expect(names(await getJson(asUser1(`root:${org}`), ['workspaces']))).toEqual(['c2', 'c4']);
  });

  it('shows kcp-admin every child', async () => {
    expect(names(await getJson(e2e.at(`root:${org}`), ['workspaces']))).toEqual(children);
  });
});

describe('the workspace index virtual workspace', () => {
  it('lists exactly the workspaces a user may enter across the tree, with path and URL', async () => {
    const list = await getJson(indexAs(users.user1.token), ['workspaces']);
    const mine = (list.items as Json[]).filter((w) => w.metadata.annotations['kcp.io/path'].startsWith(`root:${org}`));
    expect(mine.map((w) => w.metadata.annotations['kcp.io/path']).sort()).toEqual([`root:${org}`, `root:${org}:c2`, `root:${org}:c4`]);
    for (const w of mine) expect(w.spec.URL).toBe(e2e.url(w.metadata.annotations['kcp.io/path']));
    // One consistent read: the list carries the revision a watch resumes from.
    const raw = JSON.parse((await indexAs(users.user1.token)(['get', '--raw', '/services/workspaces/all/clusters/*/apis/tenancy.kcp.io/v1alpha1/workspaces'])).stdout);
    expect(raw.kind).toBe('WorkspaceList');
    expect(raw.metadata.resourceVersion).toMatch(/^\d+$/);
    // The table kubectl prints, as in a parent.
    const table = parseTable((await indexAs(users.user1.token)(['get', 'workspaces'])).stdout);
    const rows = table.records.filter((r) => r.URL.startsWith(e2e.url(`root:${org}`)));
    expect(rows.map((r) => [r.NAME, r.URL]).sort()).toEqual(
      [org, `${org}:c2`, `${org}:c4`].map((p) => [p.split(':').pop(), e2e.url(`root:${p}`)]).sort(),
    );
  });

  it('shows another user none of them, and kcp-admin all of them', async () => {
    const user2 = await getJson(indexAs(users.user2.token), ['workspaces']);
    expect((user2.items as Json[]).filter((w) => String(w.metadata.annotations['kcp.io/path']).startsWith(`root:${org}`))).toEqual([]);
    const admin = await getJson(e2e.atUrl(indexUrl()), ['workspaces']);
    const paths = (admin.items as Json[]).map((w) => w.metadata.annotations['kcp.io/path']);
    expect(paths).toEqual(expect.arrayContaining(children.map((c) => `root:${org}:${c}`)));
  });

  it('is watched live: a new binding adds a workspace, a removed one deletes it', async () => {
    const own = uniqueName('idx-watch');
    await indexedOrg(own);
    const at = (e: Json, path: string) => e.object.metadata.annotations?.['kcp.io/path'] === `root:${own}:${path}`;
    const watch = kubectlBackground(e2e.server, [
      '--context', 'root', '--token', users.user1.token, '--server', indexUrl(),
      'get', 'workspaces', '--watch', '--output-watch-events', '-o', 'json',
    ]);
    try {
      await eventually('c4 listed', async () => (events(watch.stdout()).some((e) => at(e, 'c4')) ? true : undefined), 30_000);
      expect(events(watch.stdout()).some((e) => at(e, 'c5'))).toBe(false);
      await create(e2e.at(`root:${own}:c5`), accessBinding('user-1-access', users.user1.name));
      await eventually('c5 ADDED', async () => (events(watch.stdout()).some((e) => e.type === 'ADDED' && at(e, 'c5')) ? true : undefined));
      await e2e.at(`root:${own}:c2`)(['delete', 'clusterrolebinding', 'user-1-access']);
      await eventually('c2 DELETED', async () => (events(watch.stdout()).some((e) => e.type === 'DELETED' && at(e, 'c2')) ? true : undefined));
      const added = events(watch.stdout()).find((e) => e.type === 'ADDED' && at(e, 'c5'))!;
      expect(added.object.metadata.name).toBe('c5');
    } finally {
      await watch.stop();
    }
    expect(names(await getJson(asUser1(`root:${own}`), ['workspaces']))).toEqual(['c4', 'c5']);
  }, 120_000);

  it('prints a Table whose rows carry the path but not managedFields, with the index scope header', async () => {
    const path = '/services/workspaces/all/clusters/*/apis/tenancy.kcp.io/v1alpha1/workspaces';
    const accept = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
    const answer = await apiRequest(e2e.server, `${path}?includeObject=Metadata`, { headers: accept });
    expect(answer.status).toBe(200);
    expect(answer.headers['kcpt-workspace-index-scope']).toBe('every-workspace');
    const table = answer.json();
    expect(table.kind).toBe('Table');
    const columns = (table.columnDefinitions as Json[]).map((c) => c.name as string);
    expect(columns).toEqual(['Name', 'Type', 'Region', 'Phase', 'URL', 'Age']);
    const row = (table.rows as Json[]).find((r) => r.object.metadata.annotations['kcp.io/path'] === `root:${org}:c4`)!;
    expect(row.object.kind).toBe('PartialObjectMetadata');
    expect(row.object.metadata.name).toBe('c4');
    expect(row.object.metadata.managedFields).toBeUndefined();
    expect(row.cells[columns.indexOf('Phase')]).toBe('Ready');
    expect(row.cells[columns.indexOf('URL')]).toBe(e2e.url(`root:${org}:c4`));
    // The full list still has them (server-side apply's record), and includeObject=None leaves the objects out.
    const full = await apiRequest(e2e.server, path);
    expect((full.json().items as Json[]).every((w) => Array.isArray(w.metadata.managedFields))).toBe(true);
    const bare = (await apiRequest(e2e.server, `${path}?includeObject=None`, { headers: accept })).json();
    expect((bare.rows as Json[]).every((r) => r.object === undefined)).toBe(true);
    // A user limited to what they may enter gets a Table of those alone, without the scope header.
    const limited = await apiRequest(e2e.server, path, { headers: accept, token: users.user1.token });
    expect(limited.headers['kcpt-workspace-index-scope']).toBeUndefined();
    const limitedPaths = (limited.json().rows as Json[]).map((r) => r.object.metadata.annotations['kcp.io/path']);
    expect(limitedPaths).toEqual(expect.arrayContaining([`root:${org}:c2`, `root:${org}:c4`]));
    expect(limitedPaths).not.toContain(`root:${org}:c1`);
  });

  it('shows every write to a Workspace in the next Table (rows are kept between requests)', async () => {
    const path = '/services/workspaces/all/clusters/*/apis/tenancy.kcp.io/v1alpha1/workspaces?includeObject=Metadata';
    const accept = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
    const parent = uniqueName('idx-rows');
    await workspaceByApi(e2e, 'root', parent, root('organization'));
    const rowOf = async (name: string) => {
      const table = (await apiRequest(e2e.server, path, { headers: accept })).json();
      return (table.rows as Json[]).find((r) => r.object.metadata.annotations['kcp.io/path'] === `root:${parent}:${name}`);
    };
    const inOrg = e2e.at(`root:${parent}`);
    expect(await rowOf('kept')).toBeUndefined();
    await createWorkspace(inOrg, 'kept');
    expect((await rowOf('kept'))?.cells[0]).toBe('kept');
    // Twice in a row with nothing written in between, then right after a label is set and a deletion begun.
    expect((await rowOf('kept'))?.object.metadata.labels?.tier).toBeUndefined();
    await inOrg(['label', 'workspace', 'kept', 'tier=gold']);
    expect((await rowOf('kept'))?.object.metadata.labels?.tier).toBe('gold');
    await inOrg(['delete', 'workspace', 'kept', '--wait=false']);
    const deleting = await rowOf('kept');
    if (deleting) expect(deleting.object.metadata.deletionTimestamp).toBeTruthy();
    await eventually('the deleted workspace to leave the index', async () => ((await rowOf('kept')) ? undefined : true));
  });

  it('shows no Workspace a LogicalCluster’s owner is pointed at unless that Workspace leads back to it', async () => {
    // user-2 is cluster-admin of a workspace of their own, yet its LogicalCluster's spec is the system's: refused.
    // The shard admin may rewrite it; the index must still not trust it.
    const home = await getJson(e2e.asUser(users.user2.token, 'root'), ['workspace', '~']);
    const homePath = new URL(home.spec.URL).pathname.replace('/clusters/', '');
    const own = uniqueName('own');
    await create(e2e.asUser(users.user2.token, homePath), workspace(own));
    await eventually('own Ready', async () => ((await getJson(e2e.asUser(users.user2.token, homePath), ['workspace', own])).status?.phase === 'Ready' ? true : undefined));
    const orgCluster = (await getJson(e2e.at('root'), ['workspace', org])).spec.cluster as string;
    const listed = async () =>
      ((await getJson(indexAs(users.user2.token), ['workspaces'])).items as Json[]).map((w) => `${w.metadata.annotations['kcp.io/cluster']}/${w.metadata.name}`);
    expect(await listed()).toContain(`${home.spec.cluster}/${own}`);
    const owner = JSON.stringify({ spec: { owner: { cluster: orgCluster, name: 'c1' } } });
    const refused = await e2e.asUser(users.user2.token, `${homePath}:${own}`)(['patch', 'logicalcluster', 'cluster', '--type=merge', '-p', owner], { reject: false });
    expect(refused.stderr).toContain('logicalclusters.core.kcp.io "cluster" is forbidden: spec.owner can only be changed by system privileged users');
    await e2e.asShardAdmin(`${homePath}:${own}`)(['patch', 'logicalcluster', 'cluster', '--type=merge', '-p', owner]);
    // The index finds own's Workspace through that owner: c1 now, which does not lead to own's cluster.
    expect(await listed()).not.toContain(`${orgCluster}/c1`);
    expect(await listed()).not.toContain(`${home.spec.cluster}/${own}`);
  });

  it('answers only list and watch, and only at the wildcard', async () => {
    const get = await indexAs(users.user1.token)(['get', 'workspace', 'c4'], { reject: false });
    expect(get.exitCode).not.toBe(0);
    const elsewhere = await e2e.atUrl(`${e2e.server.url}/services/workspaces/all/clusters/root`)(['get', 'workspaces'], { reject: false });
    expect(elsewhere.exitCode).not.toBe(0);
  });
});

/** kubectl's `-o json --output-watch-events` prints one JSON document per event. */
function events(stdout: string): Json[] {
  const out: Json[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < stdout.length; i++) {
    const ch = stdout[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{') {
      if (depth++ === 0) start = i;
    } else if (ch === '}' && --depth === 0) out.push(JSON.parse(stdout.slice(start, i + 1)));
  }
  return out;
}
