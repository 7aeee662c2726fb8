/**
 * The npm `kubernetes-client` (v9, godaddy's) against kcpt: it builds its whole API from the server's
 * `/openapi/v2` (`loadSpec()`), so this is the Swagger 2.0 document's test by a real consumer. Only the client's
 * public API is used: CRUD of ConfigMaps, a CRD's resources after loading the spec again, and a watch stream, in root
 * and in a nested workspace (each test in a namespace or workspace of its own).
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, apiRequest } from '../helpers/http.js';
import { readKubeconfig } from '../helpers/http.js';
import { cleanupTempFiles, uniqueName } from '../helpers/kubectl.js';
import type { TestServer } from '../helpers/server.js';
import { e2eServer } from '../helpers/shared-server.js';
import { eventually } from '../helpers/eventually.js';

// A CommonJS package without types of its own for the backends; its API is dynamic (built from the spec).
const require = createRequire(import.meta.url);
const { Client, KubeConfig } = require('kubernetes-client') as { Client: any; KubeConfig: any };
const Request = require('kubernetes-client/backends/request') as any;

let server: TestServer;
beforeAll(async () => {
  server = await e2eServer();
}, 90_000);
afterAll(async () => {
  await server?.stop();
  await cleanupTempFiles();
}, 30_000);

/** A client for `/clusters/<path>`, configured from kcpt's admin.kubeconfig as a user would (server URL with the path). */
async function clientFor(path: string): Promise<any> {
  const file = readKubeconfig(server);
  const root = file.clusters.find((c) => c.name === 'root')!.cluster;
  const kubeconfig = new KubeConfig();
  kubeconfig.loadFromOptions({
    clusters: [{ name: 'ws', server: `${server.url}/clusters/${path}`, caData: root['certificate-authority-data'] }],
    users: [{ name: 'admin', token: adminToken(server.kubeconfig) }],
    contexts: [{ name: 'ws', cluster: 'ws', user: 'admin' }],
    currentContext: 'ws',
  });
  const client = new Client({ backend: new Request({ kubeconfig }) });
  await client.loadSpec();
  return client;
}

async function nestedWorkspace(): Promise<string> {
  const name = uniqueName('kc');
  const created = await apiRequest(server, '/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name } }),
  });
  expect(created.status).toBe(201);
  await eventually(`workspace ${name} Ready`, async () => {
    const ws = (await apiRequest(server, `/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces/${name}`)).json();
    return ws.status?.phase === 'Ready';
  }, 30_000, 100);
  return `root:${name}`;
}

describe.each(['root', 'a nested workspace'])('kubernetes-client@9 in %s', (where) => {
  it('loads the API from /openapi/v2 and creates, reads, patches, replaces, lists and deletes ConfigMaps', async () => {
    const client = await clientFor(where === 'root' ? 'root' : await nestedWorkspace());
    expect(client.api).toBeDefined();
    const ns = uniqueName('ns');
    await client.api.v1.namespaces.post({ body: { metadata: { name: ns } } });
    const cms = client.api.v1.namespaces(ns).configmaps;
    const created = await cms.post({ body: { metadata: { name: 'one' }, data: { a: '1' } } });
    expect(created.statusCode).toBe(201);
    expect((await cms('one').get()).body.data).toEqual({ a: '1' });
    const patched = await cms('one').patch({ body: { data: { b: '2' } } });
    expect(patched.body.data).toEqual({ a: '1', b: '2' });
    const replaced = await cms('one').put({ body: { ...patched.body, data: { c: '3' } } });
    expect(replaced.body.data).toEqual({ c: '3' });
    const listed = await cms.get({ qs: { labelSelector: '' } });
    expect(listed.body.items.map((i: any) => i.metadata.name)).toEqual(['one']);
    expect((await cms('one').delete()).statusCode).toBe(200);
    await expect(cms('one').get()).rejects.toMatchObject({ statusCode: 404 });
  });

  it("streams a watch through the spec's watch paths", async () => {
    const client = await clientFor(where === 'root' ? 'root' : await nestedWorkspace());
    const ns = uniqueName('ns');
    await client.api.v1.namespaces.post({ body: { metadata: { name: ns } } });
    const events: Array<{ type: string; object: any }> = [];
    const stream = await client.api.v1.watch.namespaces(ns).configmaps.getObjectStream({ qs: { timeoutSeconds: 30 } });
    stream.on('data', (event: { type: string; object: any }) => events.push(event));
    try {
      await client.api.v1.namespaces(ns).configmaps.post({ body: { metadata: { name: 'watched' } } });
      await eventually('the ADDED event', () => events.some((e) => e.type === 'ADDED' && e.object.metadata.name === 'watched'), 30_000, 100);
      await client.api.v1.namespaces(ns).configmaps('watched').delete();
      await eventually('the DELETED event', () => events.some((e) => e.type === 'DELETED' && e.object.metadata.name === 'watched'), 30_000, 100);
    } finally {
      stream.destroy();
    }
  });

  it("finds a CRD's resources in the spec once it is served", async () => {
    const path = where === 'root' ? 'root' : await nestedWorkspace();
    const client = await clientFor(path);
    const group = `${uniqueName('g')}.example.com`;
    await client.apis['apiextensions.k8s.io'].v1.customresourcedefinitions.post({
      body: {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: `widgets.${group}` },
        spec: {
          group,
          names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
          scope: 'Namespaced',
          versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } } }],
        },
      },
    });
    await eventually('the CRD in /openapi/v2', async () => {
      await client.loadSpec();
      return Boolean(client.apis[group]?.v1);
    }, 30_000, 100);
    const widgets = client.apis[group].v1.namespaces('default').widgets;
    await widgets.post({ body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec: { size: 3 } } });
    expect((await widgets('w').get()).body.spec).toEqual({ size: 3 });
    expect((await widgets.get()).body.items).toHaveLength(1);
  });
});
