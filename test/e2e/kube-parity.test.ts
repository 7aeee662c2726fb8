/**
 * Answers kcp and kube-apiserver give byte for byte: the Status of an update without a resourceVersion, the refusal
 * of a workspace type the user may see but not use, /openapi/v2, and the Content-Type of every kind of response.
 * One server; each test in workspaces of its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRequest, type HttpAnswer } from '../helpers/http.js';
import { cleanupTempFiles, kubectl, kubectlBinaries, tempFile, uniqueClusterName, uniqueName } from '../helpers/kubectl.js';
import { createLogicalCluster } from '../helpers/api-setup.js';
import type { TestServer } from '../helpers/server.js';
import { e2eServer } from '../helpers/shared-server.js';
import { users } from '../helpers/users.js';
import { eventually } from '../helpers/eventually.js';

// The shared server's token users (test/helpers/users.ts); this one has rights only in the workspaces a test grants.
const user = users.user1;
let server: TestServer;
beforeAll(async () => {
  server = await e2eServer();
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

/** A Ready child workspace of root; its path. */
async function workspace(): Promise<string> {
  const name = uniqueName('ws');
  await ok(send('/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces', 'POST', { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name } }));
  await eventually(`workspace ${name} Ready`, async () => {
    const ws = (await apiRequest(server, `/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces/${name}`)).json();
    return ws.status?.phase === 'Ready';
  }, 30_000, 100);
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
    await eventually('the CRD served', async () => (await apiRequest(server, widgets)).status === 200, 30_000, 100);
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
        metadata: { name: `${user.name}-${role}` },
        roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: role },
        subjects: [{ apiGroup: rbac, kind: 'User', name: user.name }],
      }));
    await bind(provider, 'list-types');
    await bind(home, 'cluster-admin');
    const listed = await ok(apiRequest(server, `/clusters/${provider}/apis/tenancy.kcp.io/v1alpha1/workspacetypes`, { token: user.token }));
    expect(listed.items.map((t: any) => t.metadata.name)).toContain(typeName);
    const res = await send(`/clusters/${home}/apis/tenancy.kcp.io/v1alpha1/workspaces`, 'POST', {
      apiVersion: 'tenancy.kcp.io/v1alpha1',
      kind: 'Workspace',
      metadata: { name: 'r1' },
      spec: { type: { name: typeName, path: provider } },
    }, user.token);
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

describe('/openapi/v2', () => {
  const PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

  it("is the workspace's complete Swagger 2.0 document, with kube-openapi's negotiation, ETag and 304", async () => {
    const cluster = await workspace();
    const group = `${uniqueName('g')}.example.com`;
    await ok(send(`/clusters/${cluster}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, 'POST', crd(group)));
    const path = `/clusters/${cluster}/openapi/v2`;
    let doc: any;
    await eventually('the CRD in the document', async () => {
      doc = (await apiRequest(server, path)).json();
      return doc.paths[`/apis/${group}/v1/namespaces/{namespace}/widgets/{name}`] !== undefined;
    }, 30_000, 100);
    expect(doc.swagger).toBe('2.0');
    expect(doc.paths['/api/v1/namespaces/{namespace}/configmaps'].post['x-kubernetes-group-version-kind']).toEqual({ group: '', version: 'v1', kind: 'ConfigMap' });
    expect(doc.paths['/apis/tenancy.kcp.io/v1alpha1/workspaces']).toBeDefined();
    expect(doc.definitions['io.k8s.api.core.v1.ConfigMap']).toBeDefined();
    expect(doc.securityDefinitions.BearerToken).toBeDefined();

    const json = await apiRequest(server, path);
    expect(json.headers['content-type']).toBe('application/json');
    expect(json.headers.vary).toBe('Accept');
    expect(json.headers.etag).toMatch(/^"[0-9A-F]{128}"$/);
    const proto = await apiRequest(server, path, { headers: { accept: PROTOBUF } });
    expect(proto.headers['content-type']).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    expect(proto.headers.etag).toBe(json.headers.etag);
    const revalidated = await apiRequest(server, path, { headers: { 'if-none-match': String(json.headers.etag) } });
    expect(revalidated.status).toBe(304);
    expect((await apiRequest(server, path, { headers: { accept: 'text/html' } })).status).toBe(406);
    // Root's document has neither the workspace's CRD nor a cost for it.
    expect((await apiRequest(server, '/clusters/root/openapi/v2')).json().paths[`/apis/${group}/v1/namespaces/{namespace}/widgets`]).toBeUndefined();
  });

  const oldest = kubectlBinaries().find((b) => b.version === '1.27');
  it.skipIf(!oldest)('kubectl 1.27 validates a List on the client side with it (gnostic protobuf)', async () => {
    const cluster = await workspace();
    const server_ = `${server.url}/clusters/${cluster}`;
    const list = (field: string) =>
      ['apiVersion: v1', 'kind: List', 'items:', '- apiVersion: v1', '  kind: ConfigMap', `  metadata: {name: ${uniqueName('cm')}}`, `  ${field}: {a: "1"}`,
        '- apiVersion: tenancy.kcp.io/v1alpha1', '  kind: Workspace', `  metadata: {name: ${uniqueName('ws')}}`, ''].join('\n');
    const good = await kubectl(server, ['--server', server_, 'create', '--validate=true', '-f', await tempFile('good.yaml', list('data'))], { binary: oldest!.path });
    expect(good.stdout).toMatch(/configmap\/cm-\S+ created/);
    const bad = await kubectl(server, ['--server', server_, 'create', '--validate=true', '-f', await tempFile('bad.yaml', list('dataa'))], { binary: oldest!.path, reject: false });
    expect(bad.exitCode).not.toBe(0);
    expect(bad.stderr).toContain('ValidationError(ConfigMap): unknown field "dataa" in io.k8s.api.core.v1.ConfigMap');
  });
});

describe('Content-Type of every kind of answer, as kube-apiserver sends it', () => {
  const AGGREGATED = (v: string) => `application/json;g=apidiscovery.k8s.io;v=${v};as=APIGroupDiscoveryList`;
  const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';
  const cases: Array<[string, string, Record<string, string>, string]> = [
    ['object', '/api/v1/namespaces/default', {}, 'application/json'],
    ['list', '/api/v1/namespaces', {}, 'application/json'],
    ['Table', '/api/v1/namespaces', { accept: TABLE }, 'application/json'],
    ['Status (404)', '/api/v1/namespaces/nope', {}, 'application/json'],
    ['Status (400)', '/api/v1/namespaces?limit=x', {}, 'application/json'],
    ['watch', '/api/v1/namespaces?watch=true&timeoutSeconds=1', {}, 'application/json'],
    ['aggregated discovery v2', '/apis', { accept: AGGREGATED('v2') }, AGGREGATED('v2')],
    ['aggregated discovery v2beta1', '/api', { accept: AGGREGATED('v2beta1') }, AGGREGATED('v2beta1')],
    ['legacy discovery', '/apis', {}, 'application/json'],
    ['legacy group-version discovery', '/apis/rbac.authorization.k8s.io/v1', {}, 'application/json'],
    ['OpenAPI v2', '/openapi/v2', {}, 'application/json'],
    ['OpenAPI v2 protobuf', '/openapi/v2', { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' }, 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf'],
    ['OpenAPI v3 index', '/openapi/v3', {}, 'application/json'],
    ['OpenAPI v3 document', '/openapi/v3/api/v1', {}, 'application/json'],
    ['version', '/version', {}, 'application/json'],
  ];
  it.each(cases)('%s', async (_label, rel, headers, contentType) => {
    const res = await apiRequest(server, `/clusters/root${rel}`, { headers });
    expect(res.headers['content-type']).toBe(contentType);
    expect(res.headers['cache-control']).toBeDefined();
  });

  it.each(['/healthz', '/livez', '/readyz'])('%s is text/plain; charset=utf-8 with nosniff', async (path) => {
    const res = await apiRequest(server, path);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });
});

describe('OpenAPI v3 at a stale hash', () => {
  it('is a 301 to the current hash, inside the same workspace, as kube-openapi redirects', async () => {
    const index = (await apiRequest(server, '/clusters/root/openapi/v3')).json<{ paths: Record<string, { serverRelativeURL: string }> }>();
    const current = index.paths['api/v1']!.serverRelativeURL;
    const stale = await apiRequest(server, '/clusters/root/openapi/v3/api/v1?hash=0123STALE');
    expect(stale.status).toBe(301);
    expect(stale.headers.location).toBe(`/clusters/root${current}`);
    const fresh = await apiRequest(server, `/clusters/root${current}`);
    expect(fresh.status).toBe(200);
    expect(fresh.headers['cache-control']).toBe('public, immutable');
    // As kube-openapi: an Expires a year ahead (client-go's disk cache reads only that, so kubectl's `create -f` and
    // `apply` stop fetching the document again), the hash as ETag, and a 304 for a client that has it.
    const expires = Date.parse(String(fresh.headers.expires));
    expect(expires - Date.now()).toBeGreaterThan(364 * 24 * 3600 * 1000);
    expect(fresh.headers.vary).toBe('Accept');
    const etag = String(fresh.headers.etag);
    expect(etag).toBe(`"${new URL(current, 'https://x').searchParams.get('hash')}"`);
    const again = await apiRequest(server, `/clusters/root${current}`, { headers: { 'if-none-match': etag } });
    expect([again.status, again.body]).toEqual([304, '']);
    const unhashed = await apiRequest(server, '/clusters/root/openapi/v3/api/v1', { headers: { 'if-none-match': etag } });
    expect(unhashed.status).toBe(304);
  });
});

describe('health endpoints', () => {
  it('list their checks with ?verbose, run one at /<endpoint>/<check>, and 404 a check that does not exist', async () => {
    const verbose = await apiRequest(server, '/readyz?verbose');
    expect(verbose.status).toBe(200);
    expect(verbose.body).toBe('[+]ping ok\n[+]poststarthook/kcpt-bootstrap ok\nreadyz check passed\n');
    const excluded = await apiRequest(server, '/livez?verbose&exclude=ping');
    expect(excluded.body).toBe('[+]ping excluded: ok\nlivez check passed\n');
    const one = await apiRequest(server, '/readyz/ping');
    expect([one.status, one.body]).toEqual([200, 'ok']);
    expect((await apiRequest(server, '/readyz/nothing')).status).toBe(404);
  });
});

describe('methods kube does not route', () => {
  // kube-apiserver's mux answers a method it has no route for with 405 MethodNotAllowed, after authentication.
  it.each([
    ['PROPFIND', '/clusters/root/api'],
    ['PROPFIND', '/clusters/root/apis'],
    ['PROPFIND', '/clusters/root/api/v1/namespaces/default/configmaps'],
    ['MKCOL', '/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces'],
    ['PROPFIND', '/services/apiexport/root/nothing/clusters/*/api/v1/configmaps'],
    ['PROPFIND', '/version'],
    ['TRACE', '/clusters/root/openapi/v2'],
  ])('%s %s is a 405 Status', async (method, path) => {
    const res = await apiRequest(server, path, { method });
    expect(res.status).toBe(405);
    expect(res.json()).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'MethodNotAllowed', code: 405 });
  });

  it('is still a 401 before authentication', async () => {
    const res = await apiRequest(server, '/clusters/root/api', { method: 'PROPFIND', token: 'no-such-token' });
    expect(res.status).toBe(401);
  });
});

describe('small answers as kube gives them', () => {
  it('an object asked for as text/html is a 406 Status', async () => {
    const res = await apiRequest(server, '/clusters/root/api/v1/namespaces/default', { headers: { accept: 'text/html' } });
    expect(res.status).toBe(406);
    expect(res.json()).toMatchObject({ kind: 'Status', reason: 'NotAcceptable', code: 406 });
  });

  it('a merge patch with kind: null keeps the object’s kind and apiVersion', async () => {
    const cluster = await workspace();
    const base = `/clusters/${cluster}/api/v1/namespaces/default/configmaps`;
    await ok(send(base, 'POST', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kindless' }, data: { a: '1' } }));
    const patched = await apiRequest(server, `${base}/kindless`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ kind: null, apiVersion: null, data: { b: '2' } }),
    });
    expect(patched.status).toBe(200);
    expect(patched.json()).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', data: { a: '1', b: '2' } });
    expect((await apiRequest(server, `${base}/kindless`)).json()).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1' });
  });
});
