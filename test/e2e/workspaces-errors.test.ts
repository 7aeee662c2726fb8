/**
 * Bad input around workspaces answered as kcp answers it, with kube-style errors kubectl prints: invalid workspace
 * names (schema validation), invalid and unknown paths under /clusters/, spec.cluster / spec.URL from a
 * non-privileged user (admission, 403), the CRD's CEL transition rules on update (422), unknown types, and
 * WorkspaceTypes that admission refuses.
 */
import { describe, expect, it } from 'vitest';
import { uniqueName } from '../helpers/kubectl.js';
import { escapeRegExp, expectError, lines } from '../helpers/suite.js';
import { create, createWorkspace, getJson, root, useTenancyServer, users, waitForPhase, workspace, workspaceType } from './tenancy-fixtures.js';

const e2e = useTenancyServer();
const k = e2e.at('root');

const subdomainRule =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and " +
  "end with an alphanumeric character (e.g. 'example.com', regex used for validation is " +
  "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const nameRule = "metadata.name in body should match '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$'";

/** kubectl's `error when creating "<file>": …` for a create -f that admission refused. */
const refusedCreate = (resource: string, name: string, reason: string) =>
  new RegExp(`^Error from server \\(Forbidden\\): error when creating ".*": ${escapeRegExp(`${resource} "${name}" is forbidden: ${reason}`)}$`);

describe('workspace names', () => {
  it('uppercase letters break both kube’s name rule and kcp’s schema pattern', async () => {
    const result = await create(k, workspace('Team-A'), { reject: false });
    expect(lines(result.stderr)).toEqual([
      'The Workspace "Team-A" is invalid:',
      `* metadata.name: Invalid value: "Team-A": ${subdomainRule}`,
      `* metadata.name: Invalid value: "Team-A": ${nameRule}`,
    ]);
  });

  it('dots are fine for kube but not for a workspace (it is a path segment)', async () => {
    const result = await create(k, workspace('team.a'), { reject: false });
    expectError(result, `The Workspace "team.a" is invalid: metadata.name: Invalid value: "team.a": ${nameRule}`);
  });

  it('more than 63 characters is too long', async () => {
    const name = 'a'.repeat(64);
    const result = await create(k, workspace(name), { reject: false });
    expect(lines(result.stderr)).toEqual([
      `The Workspace "${name}" is invalid:`,
      '* metadata.name: Too long: may not be more than 63 bytes',
      `* metadata.name: Invalid value: "${name}": ${nameRule}`,
    ]);
    const gone = await k(['get', 'ws', name], { reject: false });
    expectError(gone, `Error from server (NotFound): workspaces.tenancy.kcp.io "${name}" not found`);
  });
});

describe('paths under /clusters/', () => {
  it('a path that is not a path is a BadRequest', async () => {
    for (const path of ['root:Team', 'root::a', 'root:', `root:${'a'.repeat(64)}`, 'root:a_b']) {
      const result = await k(['get', '--raw', `/clusters/${path}/api/v1/namespaces`], { reject: false });
      expectError(result, `Error from server (BadRequest): invalid cluster: "${path}" does not match the regex`);
    }
  });

  it('a well-formed path to no workspace is NotFound for that workspace', async () => {
    const result = await k(['get', '--raw', '/clusters/root:nowhere:deeper/api/v1/namespaces'], { reject: false });
    expectError(result, 'Error from server (NotFound): workspaces.tenancy.kcp.io "root:nowhere:deeper" not found');
  });
});

describe('spec.cluster and spec.URL', () => {
  it('only system:masters may set them on create; kcp-admin and a token user are refused', async () => {
    // The token user may create workspaces only where they are admin: in their home.
    await getJson(e2e.asUser(users.user1.token, 'root'), ['workspace', '~']);
    for (const creator of [k, e2e.asUser(users.user1.token, `user:${users.user1.name}`)]) {
      const name = uniqueName('ws');
      const withCluster = await create(creator, workspace(name, undefined, { spec: { cluster: 'abcdefghij012345' } }), { reject: false });
      expectError(withCluster, refusedCreate('workspaces.tenancy.kcp.io', name, 'spec.Cluster can only be set by system privileged users'));
      const withUrl = await create(creator, workspace(name, undefined, { spec: { URL: 'https://example.com/clusters/x' } }), { reject: false });
      expectError(withUrl, refusedCreate('workspaces.tenancy.kcp.io', name, 'spec.URL can only be set by system privileged users'));
    }
  });

  it('the shard admin may set spec.URL, and scheduling writes the real one', async () => {
    const name = uniqueName('ws');
    await create(e2e.asShardAdmin('root'), workspace(name, undefined, { spec: { URL: 'https://example.com/clusters/x' } }));
    await waitForPhase(k, name);
    expect((await getJson(k, ['ws', name])).spec.URL).toBe(e2e.url(`root:${name}`));
  });

  it('changing them later: URL is refused by admission, cluster by the CRD’s rule, and neither can be unset', async () => {
    const name = uniqueName('ws');
    const ws = await createWorkspace(k, name);
    const url = await k(['patch', 'ws', name, '--type=merge', '-p', '{"spec":{"URL":"https://example.com/clusters/x"}}'], { reject: false });
    expectError(url, `Error from server (Forbidden): workspaces.tenancy.kcp.io "${name}" is forbidden: spec.URL can only be changed by system privileged users`);
    const cluster = await k(['patch', 'ws', name, '--type=merge', '-p', '{"spec":{"cluster":"abcdefghij012345"}}'], { reject: false });
    expectError(cluster, `The Workspace "${name}" is invalid: spec.cluster: Invalid value: "string": cluster is immutable`);
    const unset = await k(['patch', 'ws', name, '--type=json', '-p', '[{"op":"remove","path":"/spec/URL"}]'], { reject: false });
    expectError(unset, `The Workspace "${name}" is invalid: spec: Invalid value: "object": URL cannot be unset`);
    expect((await getJson(k, ['ws', name])).spec).toMatchObject({ cluster: ws.spec.cluster, URL: ws.spec.URL });
  });
});

describe('spec.type', () => {
  it('is immutable: kcp’s CEL rules answer first', async () => {
    const name = uniqueName('ws');
    await createWorkspace(k, name);
    const renamed = await k(['patch', 'ws', name, '--type=merge', '-p', '{"spec":{"type":{"name":"team"}}}'], { reject: false });
    expectError(renamed, `The Workspace "${name}" is invalid: spec.type: Invalid value: "object": name is immutable`);
    const moved = await k(['patch', 'ws', name, '--type=merge', '-p', '{"spec":{"type":{"path":"root:other"}}}'], { reject: false });
    expectError(moved, `The Workspace "${name}" is invalid: spec.type: Invalid value: "object": path is immutable`);
    // Dropping the type passes the CEL rules (they compare old and new only when both exist); admission refuses.
    const dropped = await k(['patch', 'ws', name, '--type=json', '-p', '[{"op":"remove","path":"/spec/type"}]'], { reject: false });
    expectError(dropped, `Error from server (Forbidden): workspaces.tenancy.kcp.io "${name}" is forbidden: spec.type is immutable`);
    expect((await getJson(k, ['ws', name])).spec.type).toEqual(root('organization'));
  });

  it('an unknown type cannot be resolved; with a path it is not found', async () => {
    const name = uniqueName('ws');
    const bare = await create(k, workspace(name, { name: 'nope' }), { reject: false });
    expectError(bare, refusedCreate('workspaces.tenancy.kcp.io', name, 'workspace type "nope" cannot be resolved'));
    const withPath = await create(k, workspace(name, root('nope')), { reject: false });
    expectError(
      withPath,
      refusedCreate('workspaces.tenancy.kcp.io', name, 'Internal error occurred: workspacetypes.tenancy.kcp.io "root:nope" not found'),
    );
  });
});

describe('WorkspaceTypes admission refuses', () => {
  it('a type named root outside root', async () => {
    const org = uniqueName('org');
    await createWorkspace(k, org);
    const result = await create(e2e.at(`root:${org}`), workspaceType('root'), { reject: false });
    expectError(result, refusedCreate('workspacetypes.tenancy.kcp.io', 'root', 'root workspace type can only be created in root cluster'));
  });

  it('references without a path in the default child type and the limits', async () => {
    const cases = [
      [{ defaultChildWorkspaceType: { name: 'universal' } }, '.spec.defaultChildWorkspaceType.path must be set'],
      [{ limitAllowedChildren: { types: [root('universal'), { name: 'team' }] } }, '.spec.limitAllowedChildren.types[1].path must be set'],
      [{ limitAllowedParents: { types: [{ name: 'root' }] } }, '.spec.limitAllowedParents.types[0].path must be set'],
    ] as const;
    for (const [spec, message] of cases) {
      const name = uniqueName('wst');
      const result = await create(k, workspaceType(name, spec), { reject: false });
      expectError(result, refusedCreate('workspacetypes.tenancy.kcp.io', name, message));
    }
  });

  it('an update that drops a path, too', async () => {
    const name = uniqueName('wst');
    await create(k, workspaceType(name, { limitAllowedParents: { types: [root('root')] } }));
    const result = await k(['patch', 'workspacetype', name, '--type=merge', '-p', '{"spec":{"limitAllowedParents":{"types":[{"name":"root"}]}}}'], {
      reject: false,
    });
    expectError(
      result,
      `Error from server (Forbidden): workspacetypes.tenancy.kcp.io "${name}" is forbidden: .spec.limitAllowedParents.types[0].path must be set`,
    );
  });
});
