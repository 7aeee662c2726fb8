/**
 * Answers kcp and kube-apiserver give byte for byte: the Status of an update without a resourceVersion, the refusal
 * of a workspace type the user may see but not use, and the Content-Type of every kind of response. One server;
 * each test in workspaces of its own.
 */
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRequest, type HttpAnswer } from '../helpers/http.js';
import { cleanupTempFiles, createLogicalCluster, sleep, uniqueClusterName, uniqueName } from '../helpers/kubectl.js';
import { startServer, type TestServer } from '../helpers/server.js';

const USER_TOKEN = 'parity-user-token';
let server: TestServer;
beforeAll(async () => {
  const tokens = join(tmpdir(), `kcpt-parity-tokens-${process.pid}.csv`);
  await writeFile(tokens, `${USER_TOKEN},pat,2001,\n`);
  server = await startServer({ extraArgs: ['--token-auth-file', tokens] });
}, 90_000);
afterAll(async () => {
  await server?.stop();
  await cleanupTempFiles();
}, 30_000);

const json = { 'content-type': 'application/json' };

async function send(path: string, method: string, body: unknown, token?: string): Promise<HttpAnswer> {
  return apiRequest(server, path, { method, headers: json, body: JSON.stringify(body), ...(token ? { token } : {}) });
}

async function ok(answer: Promise<HttpAnswer>): Promise<any> {
  const res = await answer;
  if (res.status >= 300) throw new Error(`${res.status}: ${res.body}`);
  return res.json();
}

async function eventually(what: string, probe: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** A Ready child workspace of root; its path. */
async function workspace(): Promise<string> {
  const name = uniqueName('ws');
  await ok(send('/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces', 'POST', { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name } }));
  await eventually(`workspace ${name} Ready`, async () => {
    const ws = (await apiRequest(server, `/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces/${name}`)).json();
    return ws.status?.phase === 'Ready';
  });
  return `root:${name}`;
}

const crd = (group: string) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `widgets.${group}` },
  spec: {
    group,
    names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
    scope: 'Namespaced',
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
});

describe('an update without metadata.resourceVersion', () => {
  it.each(['root', 'nested'])('of a custom resource is kube’s 422 (in a %s workspace); a ConfigMap is replaced unconditionally', async (where) => {
    const cluster = where === 'root' ? uniqueClusterName() : await workspace();
    if (where === 'root') await createLogicalCluster(server, cluster);
    const group = `${uniqueName('g')}.example.com`;
    await ok(send(`/clusters/${cluster}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, 'POST', crd(group)));
    const widgets = `/clusters/${cluster}/apis/${group}/v1/namespaces/default/widgets`;
    await eventually('the CRD served', async () => (await apiRequest(server, widgets)).status === 200);
    await ok(send(widgets, 'POST', { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec: { a: 1 } }));
    for (const resourceVersion of [undefined, '', '0']) {
      const res = await send(`${widgets}/w`, 'PUT', { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w', resourceVersion }, spec: { a: 2 } });
      expect(res.status).toBe(422);
      expect(res.json()).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `widgets.${group} "w" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update`,
        reason: 'Invalid',
        details: {
          name: 'w',
          group,
          kind: 'widgets',
          causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: 0x0: must be specified for an update', field: 'metadata.resourceVersion' }],
        },
        code: 422,
      });
    }
    expect((await ok(apiRequest(server, `${widgets}/w`))).spec).toEqual({ a: 1 });
    // CRDs themselves are custom-resource-like in kube: no unconditional update either.
    const stored = await ok(apiRequest(server, `/clusters/${cluster}/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`));
    delete stored.metadata.resourceVersion;
    const crdPut = await send(`/clusters/${cluster}/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`, 'PUT', stored);
    expect(crdPut.status).toBe(422);
    expect(crdPut.json().message).toBe(`customresourcedefinitions.apiextensions.k8s.io "widgets.${group}" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update`);
    // Built-ins that allow unconditional update keep allowing it.
    const cms = `/clusters/${cluster}/api/v1/namespaces/default/configmaps`;
    await ok(send(cms, 'POST', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }));
    const replaced = await ok(send(`${cms}/c`, 'PUT', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'b' } }));
    expect(replaced.data).toEqual({ a: 'b' });
  });
});

describe('a workspace type the user may see but not use', () => {
  it('is refused with kcp’s message, not “not found”', async () => {
    const provider = await workspace();
    const home = await workspace();
    const typeName = uniqueName('restricted');
    await ok(send(`/clusters/${provider}/apis/tenancy.kcp.io/v1alpha1/workspacetypes`, 'POST', {
      apiVersion: 'tenancy.kcp.io/v1alpha1',
      kind: 'WorkspaceType',
      metadata: { name: typeName },
      spec: { extend: { with: [{ name: 'universal', path: 'root' }] } },
    }));
    // The user may list (not get, not use) workspace types in the provider, and is admin of their own workspace.
    const rbac = 'rbac.authorization.k8s.io';
    await ok(send(`/clusters/${provider}/apis/${rbac}/v1/clusterroles`, 'POST', {
      apiVersion: `${rbac}/v1`,
      kind: 'ClusterRole',
      metadata: { name: 'list-types' },
      rules: [{ apiGroups: ['tenancy.kcp.io'], resources: ['workspacetypes'], verbs: ['list'] }, { nonResourceURLs: ['/'], verbs: ['access'] }],
    }));
    const bind = (cluster: string, role: string) =>
      ok(send(`/clusters/${cluster}/apis/${rbac}/v1/clusterrolebindings`, 'POST', {
        apiVersion: `${rbac}/v1`,
        kind: 'ClusterRoleBinding',
        metadata: { name: `pat-${role}` },
        roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: role },
        subjects: [{ apiGroup: rbac, kind: 'User', name: 'pat' }],
      }));
    await bind(provider, 'list-types');
    await bind(home, 'cluster-admin');
    const listed = await ok(apiRequest(server, `/clusters/${provider}/apis/tenancy.kcp.io/v1alpha1/workspacetypes`, { token: USER_TOKEN }));
    expect(listed.items.map((t: any) => t.metadata.name)).toContain(typeName);
    const res = await send(`/clusters/${home}/apis/tenancy.kcp.io/v1alpha1/workspaces`, 'POST', {
      apiVersion: 'tenancy.kcp.io/v1alpha1',
      kind: 'Workspace',
      metadata: { name: 'r1' },
      spec: { type: { name: typeName, path: provider } },
    }, USER_TOKEN);
    expect(res.status).toBe(403);
    expect(res.json()).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Forbidden',
      code: 403,
      message: `workspaces.tenancy.kcp.io "r1" is forbidden: unable to use workspace type ${provider}:${typeName}: missing verb='use' permission on workspacetype`,
      details: { name: 'r1', group: 'tenancy.kcp.io', kind: 'workspaces' },
    });
  });
});
