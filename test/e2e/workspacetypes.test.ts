/**
 * WorkspaceTypes with the real kubectl, as kcp's admission and controllers treat them: placement limits on parents
 * and children with kcp's messages, extension (a type is every type it extends, for limits and initializers), extra
 * labels, the default child type (not inherited), admin-defined types found by name up the parent chain, cycles and
 * missing bases, and the virtual workspace URLs published in the type's status.
 */
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../helpers/kubectl.js';
import { escapeRegExp, expectError } from '../helpers/suite.js';
import {
  condition,
  create,
  createWorkspace,
  eventually,
  getJson,
  root,
  useTenancyServer,
  workspace,
  workspaceByApi,
  workspaceType,
  type Json,
} from './tenancy-fixtures.js';

const e2e = useTenancyServer();
const k = e2e.at('root');
const universal = { extend: { with: [root('universal')] } };

const refused = (name: string, reason: string) =>
  new RegExp(`^Error from server \\(Forbidden\\): error when creating ".*": ${escapeRegExp(`workspaces.tenancy.kcp.io "${name}" is forbidden: ${reason}`)}$`);

/** Creates a type in root under a unique name and returns that name. */
async function defineType(prefix: string, spec: Json): Promise<string> {
  const name = uniqueName(prefix);
  await create(k, workspaceType(name, spec));
  return name;
}

describe('placement limits', () => {
  let org: string;
  beforeAll(async () => {
    org = uniqueName('org');
    await workspaceByApi(e2e, 'root', org);
  }, 60_000);

  it('limitAllowedParents refuses another parent with kcp’s message', async () => {
    const leaf = await defineType('leaf', { ...universal, limitAllowedParents: { types: [root('organization')] } });
    const name = uniqueName('ws');
    const result = await create(k, workspace(name, root(leaf)), { reject: false });
    expectError(
      result,
      refused(name, `workspace type root:${leaf} only allows [root:organization] parent workspaces, but parent type root:root only implements [root:root root:universal]`),
    );
    const inOrg = await createWorkspace(e2e.at(`root:${org}`), name, root(leaf));
    expect(inOrg.status.phase).toBe('Ready');
  });

  it('limitAllowedChildren refuses other children, and lets the listed type in', async () => {
    const kid = await defineType('kid', universal);
    const strict = await defineType('strict', { ...universal, limitAllowedChildren: { types: [root(kid)] } });
    const parent = uniqueName('strict');
    await createWorkspace(k, parent, root(strict));
    const inside = e2e.at(`root:${parent}`);
    // The default child type (the CRD's default: root:universal) is not allowed here.
    const result = await create(inside, workspace('plain'), { reject: false });
    expectError(
      result,
      refused('plain', `workspace type root:${strict} only allows [root:${kid}] child workspaces, but child type root:universal only implements [root:universal]`),
    );
    expect((await createWorkspace(inside, 'ok', root(kid))).spec.type).toEqual(root(kid));
  });

  it('extend.with makes a type its bases: limits apply through them and are met through them', async () => {
    const special = await defineType('special', { extend: { with: [root('organization')] } });
    const name = uniqueName('special');
    // organization may only live in root; so may a type that extends it.
    const nested = await create(e2e.at(`root:${org}`), workspace(name, root(special)), { reject: false });
    expectError(
      nested,
      refused(
        name,
        `workspace type root:${special} extends root:organization, which only allows [root:root] parent workspaces, ` +
          'but parent type root:organization only implements [root:organization root:universal]',
      ),
    );
    await createWorkspace(k, name, root(special));
    // team only allows organization (or team) parents; a special one is an organization.
    const team = await createWorkspace(e2e.at(`root:${name}`), 'team', root('team'));
    expect(team.status.phase).toBe('Ready');
    const lc = await getJson(e2e.at(`root:${name}`), ['logicalcluster', 'cluster']);
    expect(lc.metadata.annotations['internal.tenancy.kcp.io/type']).toBe(`root:${special}`);
  });
});

describe('what a type gives its workspaces', () => {
  it('additionalWorkspaceLabels are added on create, without overwriting the user’s labels', async () => {
    const labelled = await defineType('labelled', { ...universal, additionalWorkspaceLabels: { env: 'dev', tier: 'gold' } });
    const name = uniqueName('ws');
    await create(k, workspace(name, root(labelled), { metadata: { labels: { tier: 'mine' } } }));
    const ws = await getJson(k, ['ws', name]);
    expect(ws.metadata.labels).toMatchObject({ env: 'dev', tier: 'mine' });
    // And the labels select workspaces as any label does.
    expect((await k(['get', 'ws', '-l', 'env=dev', '-o', 'name'])).stdout).toBe(`workspace.tenancy.kcp.io/${name}`);
  });

  it('defaultChildWorkspaceType applies to children, and is not inherited through extend', async () => {
    const kid = await defineType('kid', universal);
    const base = await defineType('base', { ...universal, defaultChildWorkspaceType: root(kid) });
    const derived = await defineType('derived', { extend: { with: [root(base)] } });
    const b = uniqueName('b');
    const d = uniqueName('d');
    await createWorkspace(k, b, root(base));
    await createWorkspace(k, d, root(derived));
    expect((await createWorkspace(e2e.at(`root:${b}`), 'child')).spec.type).toEqual(root(kid));
    expect((await createWorkspace(e2e.at(`root:${d}`), 'child')).spec.type).toEqual(root('universal'));
  });

  it('initializers of a type and its bases, bases first, on the LogicalCluster and the Workspace', async () => {
    const first = await defineType('first', { ...universal, initializer: true });
    const second = await defineType('second', { extend: { with: [root(first)] }, initializer: true, terminator: true });
    const name = uniqueName('ws');
    await create(k, workspace(name, root(second)));
    const ws = await eventually('an Initializing workspace', async () => {
      const got = await getJson(k, ['ws', name]);
      return got.status.phase === 'Initializing' ? got : undefined;
    });
    const expected = [`root:${first}`, `root:${second}`];
    expect(ws.status.initializers).toEqual(expected);
    expect(ws.status.terminators).toEqual([`root:${second}`]);
    expect(condition(ws, 'WorkspaceInitialized')).toBe(`False InitializerExists Initializers still exist: [${expected.join(' ')}]`);
    const lc = await getJson(e2e.at(`root:${name}`), ['logicalcluster', 'cluster']);
    expect(lc.spec.initializers).toEqual(expected);
    expect(lc.status).toMatchObject({ phase: 'Initializing', initializers: expected, terminators: [`root:${second}`] });
    // What the initializing virtual workspace selects on: the phase and one hashed label per initializer (the key
    // holds as much of the hash as fits 63 characters with the prefix, the value all of it).
    const hash = (s: string) => createHash('sha224').update(s).digest('hex');
    expect(lc.metadata.labels).toEqual({
      'tenancy.kcp.io/phase': 'Initializing',
      ...Object.fromEntries(expected.map((i) => [`initializer.internal.kcp.io/${hash(i).slice(0, 35)}`, hash(i)])),
    });
    // The creator's full UserInfo stays until the workspace is Ready.
    expect(JSON.parse(ws.metadata.annotations['experimental.tenancy.kcp.io/owner'])).toMatchObject({
      username: 'kcp-admin',
      groups: expect.arrayContaining(['system:kcp:admin']),
    });
  });
});

describe('resolving types', () => {
  it('a type defined in an organization is found by name from that organization and from below it', async () => {
    const org = uniqueName('org');
    await createWorkspace(k, org);
    const inOrg = e2e.at(`root:${org}`);
    await create(inOrg, workspaceType('local', universal));
    expect((await getJson(inOrg, ['workspacetype', 'local'])).metadata.annotations['kcp.io/path']).toBe(`root:${org}`);
    expect((await inOrg(['get', 'workspacetypes', '-o', 'name'])).stdout).toBe('workspacetype.tenancy.kcp.io/local');
    const w1 = await createWorkspace(inOrg, 'w1', { name: 'local' });
    expect(w1.spec.type).toEqual({ name: 'local', path: `root:${org}` });
    // Two levels down, the name is looked up in w1 (none there), then in the organization.
    const w2 = await createWorkspace(e2e.at(`root:${org}:w1`), 'w2', { name: 'local' });
    expect(w2.spec.type).toEqual({ name: 'local', path: `root:${org}` });
    const lc = await getJson(e2e.at(`root:${org}:w1:w2`), ['logicalcluster', 'cluster']);
    expect(lc.metadata.annotations['internal.tenancy.kcp.io/type']).toBe(`root:${org}:local`);
    // From root, the organization's type is not visible by name.
    const name = uniqueName('ws');
    expectError(await create(k, workspace(name, { name: 'local' }), { reject: false }), refused(name, 'workspace type "local" cannot be resolved'));
  });

  it('a cycle in extend is refused when the type is used', async () => {
    const a = uniqueName('cyc-a');
    const b = uniqueName('cyc-b');
    await create(k, workspaceType(a, { extend: { with: [root(b)] } }));
    await create(k, workspaceType(b, { extend: { with: [root(a)] } }));
    const name = uniqueName('ws');
    const result = await create(k, workspace(name, root(a)), { reject: false });
    expectError(result, refused(name, `circular dependency detected in workspace type root:${a}: root:${a} -> root:${b}`));
  });

  it('a missing base is refused when the type is used', async () => {
    const orphan = await defineType('orphan', { extend: { with: [root('missing')] } });
    const name = uniqueName('ws');
    const result = await create(k, workspace(name, root(orphan)), { reject: false });
    expectError(result, refused(name, 'unable to find inherited workspace type root:missing'));
  });
});

describe('status', () => {
  it('publishes the initializing and terminating virtual workspace URLs of every type', async () => {
    const plain = await defineType('plain', {});
    const wst = await eventually('virtual workspace URLs', async () => {
      const got = await getJson(k, ['workspacetype', plain]);
      return got.status?.virtualWorkspaces ? got : undefined;
    });
    expect(wst.status.virtualWorkspaces).toEqual([
      { url: `${e2e.server.url}/services/initializingworkspaces/root:${plain}` },
      { url: `${e2e.server.url}/services/terminatingworkspaces/root:${plain}` },
    ]);
    expect(wst.status.conditions.map((c: Json) => [c.type, c.status])).toEqual([
      ['Ready', 'True'],
      ['VirtualWorkspaceURLsReady', 'True'],
    ]);
    const universalType = await getJson(k, ['workspacetype', 'universal']);
    expect(universalType.status.virtualWorkspaces[0].url).toBe(`${e2e.server.url}/services/initializingworkspaces/root:universal`);
  });
});
