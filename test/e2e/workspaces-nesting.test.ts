/**
 * The workspace tree with the real kubectl: three levels (organization → team → universal, the last by the team
 * type's default child type), each reached by path, by cluster name and by a path that starts at a cluster name;
 * objects isolated between siblings; and the API set of each workspace.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../helpers/kubectl.js';
import { parseTable } from '../helpers/table.js';
import { create, createWorkspace, getJson, root, useTenancyServer, workspaceType, type Json } from './tenancy-fixtures.js';

const e2e = useTenancyServer();

/** `kubectl api-resources --api-group=<group> -o name` at a path. */
async function resourcesOf(path: string, group: string): Promise<string[]> {
  const out = await e2e.at(path)(['api-resources', `--api-group=${group}`, '-o', 'name']);
  return out.stdout.split('\n').filter(Boolean).sort();
}

describe('a tree three levels deep', () => {
  const org = uniqueName('org');
  let a: Json;
  let b: Json;
  let c: Json;
  let sibling: Json;

  beforeAll(async () => {
    a = await createWorkspace(e2e.at('root'), org);
    b = await createWorkspace(e2e.at(`root:${org}`), 'team-b', root('team'));
    c = await createWorkspace(e2e.at(`root:${org}:team-b`), 'c');
    sibling = await createWorkspace(e2e.at(`root:${org}:team-b`), 'd');
  }, 120_000);

  it('each level gets its type from the parent’s default child type or the request, and its URL from its path', async () => {
    const levels = [
      [e2e.at('root'), org, 'organization', `root:${org}`],
      [e2e.at(`root:${org}`), 'team-b', 'team', `root:${org}:team-b`],
      [e2e.at(`root:${org}:team-b`), 'c', 'universal', `root:${org}:team-b:c`],
    ] as const;
    for (const [k, name, type, path] of levels) {
      const [row] = parseTable((await k(['get', 'workspaces', name])).stdout).records;
      expect(row).toMatchObject({ NAME: name, TYPE: type, PHASE: 'Ready', URL: e2e.url(path) });
    }
    // Each workspace lists only its own children.
    const children = parseTable((await e2e.at(`root:${org}:team-b`)(['get', 'ws'])).stdout).records.map((r) => r.NAME);
    expect(children).toEqual(['c', 'd']);
    expect(parseTable((await e2e.at(`root:${org}`)(['get', 'ws'])).stdout).records.map((r) => r.NAME)).toEqual(['team-b']);
  });

  it('the deepest workspace is one cluster by path, by cluster name and by a path from its grandparent’s cluster name', async () => {
    const byPath = await getJson(e2e.at(`root:${org}:team-b:c`), ['logicalcluster', 'cluster']);
    const byName = await getJson(e2e.at(c.spec.cluster), ['logicalcluster', 'cluster']);
    const fromClusterName = await getJson(e2e.at(`${a.spec.cluster}:team-b:c`), ['logicalcluster', 'cluster']);
    for (const lc of [byPath, byName, fromClusterName]) {
      expect(lc.metadata.uid).toBe(byPath.metadata.uid);
      expect(lc.metadata.annotations).toMatchObject({
        'kcp.io/cluster': c.spec.cluster,
        'kcp.io/path': `root:${org}:team-b:c`,
        'internal.tenancy.kcp.io/type': 'root:universal',
      });
    }
    expect(byPath.spec.owner).toMatchObject({ name: 'c', cluster: b.spec.cluster });
    expect(new Set([a.spec.cluster, b.spec.cluster, c.spec.cluster, sibling.spec.cluster]).size).toBe(4);
  });

  it('a configmap in one workspace is not in its sibling, nor in the parent', async () => {
    const name = uniqueName('cm');
    const inC = e2e.at(`root:${org}:team-b:c`);
    expect((await inC(['create', 'configmap', name, '--from-literal=k=v'])).stdout).toBe(`configmap/${name} created`);
    // The same object by cluster name.
    expect((await getJson(e2e.at(c.spec.cluster), ['configmap', name])).data).toEqual({ k: 'v' });
    for (const elsewhere of [`root:${org}:team-b:d`, `root:${org}:team-b`, 'root']) {
      const got = await e2e.at(elsewhere)(['get', 'configmap', name], { reject: false });
      expect(got.stderr.trim(), elsewhere).toBe(`Error from server (NotFound): configmaps "${name}" not found`);
    }
    // A same-named object in the sibling is its own.
    await e2e.at(`root:${org}:team-b:d`)(['create', 'configmap', name, '--from-literal=k=other']);
    expect((await getJson(inC, ['configmap', name])).data).toEqual({ k: 'v' });
  });

  it('paths that do not exist answer kcp’s NotFound for the workspace', async () => {
    // kubectl's discovery fails first there, so it can only say that nothing was found.
    const missing = await e2e.at(`root:${org}:nope:c`)(['get', 'configmaps'], { reject: false });
    expect(missing.exitCode).not.toBe(0);
    expect(missing.stderr.trim().split('\n').at(-1)).toBe('Error from server (NotFound): the server could not find the requested resource');
    const raw = await e2e.at('root')(['get', '--raw', `/clusters/root:${org}:team-b:zz/api/v1/namespaces`], { reject: false });
    expect(raw.stderr.trim()).toBe(`Error from server (NotFound): workspaces.tenancy.kcp.io "root:${org}:team-b:zz" not found`);
  });
});

describe('the API set of a workspace', () => {
  it('root serves workspaces, workspacetypes and shards', async () => {
    expect(await resourcesOf('root', 'tenancy.kcp.io')).toEqual(['workspaces.tenancy.kcp.io', 'workspacetypes.tenancy.kcp.io']);
    expect(await resourcesOf('root', 'core.kcp.io')).toEqual(['logicalclusters.core.kcp.io', 'shards.core.kcp.io']);
  });

  it('a universal-derived workspace serves workspaces but not shards', async () => {
    const name = uniqueName('org');
    await createWorkspace(e2e.at('root'), name);
    const inside = e2e.at(`root:${name}`);
    expect(await resourcesOf(`root:${name}`, 'tenancy.kcp.io')).toEqual(['workspaces.tenancy.kcp.io', 'workspacetypes.tenancy.kcp.io']);
    expect(await resourcesOf(`root:${name}`, 'core.kcp.io')).toEqual(['logicalclusters.core.kcp.io']);
    const table = parseTable((await inside(['api-resources', '--api-group=tenancy.kcp.io'])).stdout);
    expect(table.header).toEqual(['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND']);
    expect(table.rows).toContainEqual(['workspaces', 'ws', 'tenancy.kcp.io/v1alpha1', 'false', 'Workspace']);
    const shards = await inside(['get', 'shards'], { reject: false });
    expect(shards.stderr.trim()).toBe('error: the server doesn\'t have a resource type "shards"');
  });

  it('a workspace whose type does not extend universal has no workspaces at all', async () => {
    const type = uniqueName('plain');
    const name = uniqueName('plain');
    await create(e2e.at('root'), workspaceType(type));
    await createWorkspace(e2e.at('root'), name, root(type));
    expect(await resourcesOf(`root:${name}`, 'tenancy.kcp.io')).toEqual([]);
    const ws = await e2e.at(`root:${name}`)(['get', 'ws'], { reject: false });
    expect(ws.stderr.trim()).toBe('error: the server doesn\'t have a resource type "ws"');
    // Nor the universal namespaces: they come with the universal initializer.
    const namespaces = await e2e.at(`root:${name}`)(['get', 'namespaces']);
    expect(namespaces.stderr.trim()).toBe('No resources found');
  });
});
