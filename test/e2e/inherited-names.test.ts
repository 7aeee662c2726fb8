/**
 * Keys a JavaScript object inherits (`constructor`, `toString`, `hasOwnProperty`, `valueOf`, `__proto__`) are
 * ordinary names to a Kubernetes client: unknown fields under those names are pruned (and refused under
 * fieldValidation=Strict) like any other, and where a map takes any key (ConfigMap data, labels, annotations,
 * preserved custom resource fields) they are stored and served back exactly. Sent through every write path: create,
 * update, each patch type, server-side apply and the status subresource; and selected by label selectors.
 * One server; each test in a fresh logical cluster.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRequest, type HttpAnswer } from '../helpers/http.js';
import { uniqueClusterName } from '../helpers/kubectl.js';
import { createLogicalCluster } from '../helpers/api-setup.js';
import { startServer, type TestServer } from '../helpers/server.js';

const INHERITED = ['constructor', 'toString', 'hasOwnProperty', 'valueOf'];
const json = { 'content-type': 'application/json' };
const GROUP = 'inherited.example.com';

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ storage: 'memory://' });
}, 90_000);

afterAll(async () => {
  await server?.stop();
});

/** A fresh logical cluster with the Gizmo CRD (a structural schema: spec.size, status.state, spec.free preserved). */
async function freshCluster(): Promise<string> {
  const cluster = uniqueClusterName();
  await createLogicalCluster(server, cluster);
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `gizmos.${GROUP}` },
    spec: {
      group: GROUP,
      names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo' },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: { size: { type: 'string' }, free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
                },
                status: { type: 'object', properties: { state: { type: 'string' } } },
              },
            },
          },
        },
      ],
    },
  };
  const made = await apiRequest(server, `/clusters/${cluster}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, { method: 'POST', headers: json, body: JSON.stringify(crd) });
  expect(made.status, made.body).toBe(201);
  for (let i = 0; (await apiRequest(server, gizmos(cluster))).status !== 200; i++) {
    if (i > 100) throw new Error('the gizmos CRD was never served');
    await new Promise((r) => setTimeout(r, 100));
  }
  return cluster;
}

const configmaps = (cluster: string) => `/clusters/${cluster}/api/v1/namespaces/default/configmaps`;
const gizmos = (cluster: string) => `/clusters/${cluster}/apis/${GROUP}/v1/namespaces/default/gizmos`;

function send(path: string, method: string, body: unknown, contentType = 'application/json'): Promise<HttpAnswer> {
  return apiRequest(server, path, { method, headers: { 'content-type': contentType }, body: typeof body === 'string' ? body : JSON.stringify(body) });
}

/** The JSON text of an object with one extra top-level key (JSON.stringify would drop or mangle `__proto__`). */
function withTopLevel(obj: Record<string, unknown>, key: string, value: unknown): string {
  const head = JSON.stringify(obj).slice(0, -1);
  return `${head}${head === '{' ? '' : ','}${JSON.stringify(key)}:${JSON.stringify(value)}}`;
}

function ownKeys(text: string, ...path: string[]): string[] {
  let node: any = JSON.parse(text);
  for (const p of path) node = node?.[p];
  return node && typeof node === 'object' ? Object.keys(node) : [];
}

async function stored(path: string): Promise<string> {
  const res = await apiRequest(server, path);
  expect(res.status, res.body).toBe(200);
  return res.body;
}

function expectRefused(res: HttpAnswer, key: string) {
  expect([400, 422], res.body).toContain(res.status);
  expect(res.json()).toMatchObject({ kind: 'Status', code: res.status });
  expect(res.json().message).toContain(`unknown field "${key}"`);
}

describe.each([...INHERITED, '__proto__'])('the inherited name %s', (name) => {
  it('is an unknown top-level field of a ConfigMap on create, update and every patch type', { timeout: 60_000 }, async () => {
    const cluster = await freshCluster();
    const cms = configmaps(cluster);
    const cm = (n: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: n }, data: { a: '1' } });

    expectRefused(await send(`${cms}?fieldValidation=Strict`, 'POST', withTopLevel(cm('strict'), name, 'x')), name);
    const created = await send(cms, 'POST', withTopLevel(cm('warned'), name, 'x'));
    expect(created.status, created.body).toBe(201);
    expect(String(created.headers.warning)).toContain(`unknown field \\"${name}\\"`);
    expect(ownKeys(created.body)).not.toContain(name);
    expect(ownKeys(await stored(`${cms}/warned`))).not.toContain(name);

    const current = JSON.parse(await stored(`${cms}/warned`));
    expectRefused(await send(`${cms}/warned?fieldValidation=Strict`, 'PUT', withTopLevel(current, name, 'x')), name);
    const patches: Array<[string, string]> = [
      ['application/merge-patch+json', withTopLevel({}, name, 'x')],
      ['application/strategic-merge-patch+json', withTopLevel({}, name, 'x')],
      ['application/json-patch+json', JSON.stringify([{ op: 'add', path: `/${name}`, value: 'x' }])],
    ];
    for (const [type, body] of patches) {
      if (type === 'application/json-patch+json' && name === '__proto__') {
        expect((await send(`${cms}/warned`, 'PATCH', body, type)).status).toBe(400);
        continue;
      }
      expectRefused(await send(`${cms}/warned?fieldValidation=Strict`, 'PATCH', body, type), name);
      const warned = await send(`${cms}/warned`, 'PATCH', body, type);
      expect(warned.status, `${type}: ${warned.body}`).toBe(200);
      expect(ownKeys(warned.body)).not.toContain(name);
    }
    // Server-side apply refuses a field its schema does not declare, whatever fieldValidation says.
    const applied = await send(`${cms}/warned?fieldManager=t`, 'PATCH', withTopLevel({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'warned' } }, name, 'x'), 'application/apply-patch+yaml');
    expect(applied.status, applied.body).toBe(400);
    expect(applied.json().message).toContain(name);
    expect(ownKeys(await stored(`${cms}/warned`))).not.toContain(name);
    expect(JSON.parse(await stored(`${cms}/warned`)).data).toEqual({ a: '1' });
  });

  it('is an unknown field of a custom resource, at the top, in spec and in status', { timeout: 60_000 }, async () => {
    const cluster = await freshCluster();
    const gz = gizmos(cluster);
    const gizmo = (n: string, spec: string) => `{"apiVersion":"${GROUP}/v1","kind":"Gizmo","metadata":{"name":"${n}"},"spec":${spec}}`;
    const specWith = `{"size":"s",${JSON.stringify(name)}:"x"}`;

    expectRefused(await send(`${gz}?fieldValidation=Strict`, 'POST', gizmo('strict', specWith)), `spec.${name}`);
    expectRefused(await send(`${gz}?fieldValidation=Strict`, 'POST', withTopLevel(JSON.parse(gizmo('strict', '{}')), name, 'x')), name);
    const created = await send(gz, 'POST', gizmo('pruned', specWith));
    expect(created.status, created.body).toBe(201);
    expect(ownKeys(await stored(`${gz}/pruned`), 'spec')).toEqual(['size']);

    for (const [type, body] of [
      ['application/merge-patch+json', `{"spec":${specWith}}`],
      ['application/json-patch+json', JSON.stringify([{ op: 'add', path: `/spec/${name}`, value: 'x' }])],
    ] as const) {
      if (type === 'application/json-patch+json' && name === '__proto__') {
        // A JSON patch path through `__proto__` is refused outright, whatever fieldValidation says.
        for (const q of ['?fieldValidation=Strict', '']) {
          const res = await send(`${gz}/pruned${q}`, 'PATCH', body, type);
          expect(res.status, res.body).toBe(400);
          expect(res.json().message).toContain('may not contain "__proto__"');
        }
      } else {
        expectRefused(await send(`${gz}/pruned?fieldValidation=Strict`, 'PATCH', body, type), `spec.${name}`);
        expect((await send(`${gz}/pruned`, 'PATCH', body, type)).status).toBe(200);
      }
      expect(ownKeys(await stored(`${gz}/pruned`), 'spec')).toEqual(['size']);
    }
    const status = await send(`${gz}/pruned/status?fieldValidation=Strict`, 'PATCH', `{"status":{"state":"ok",${JSON.stringify(name)}:"x"}}`, 'application/merge-patch+json');
    expectRefused(status, `status.${name}`);
    expect((await send(`${gz}/pruned/status`, 'PATCH', `{"status":{"state":"ok",${JSON.stringify(name)}:"x"}}`, 'application/merge-patch+json')).status).toBe(200);
    expect(ownKeys(await stored(`${gz}/pruned`), 'status')).toEqual(['state']);

    const applied = await send(`${gz}/pruned?fieldManager=t`, 'PATCH', `{"apiVersion":"${GROUP}/v1","kind":"Gizmo","metadata":{"name":"pruned"},"spec":${specWith}}`, 'application/apply-patch+yaml');
    expect(applied.status, applied.body).toBe(400);
    expect(ownKeys(await stored(`${gz}/pruned`), 'spec')).toEqual(['size']);
  });
});

describe.each(INHERITED)('the inherited name %s as a key of a map that takes any key', (name) => {
  it('is stored and served back in ConfigMap data, labels and annotations, and in preserved fields', { timeout: 60_000 }, async () => {
    const cluster = await freshCluster();
    const cms = configmaps(cluster);
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'keys', labels: { [name]: 'v' }, annotations: { [name]: 'a' } }, data: { [name]: 'd' } };
    const created = await send(`${cms}?fieldValidation=Strict`, 'POST', body);
    expect(created.status, created.body).toBe(201);
    const got = JSON.parse(await stored(`${cms}/keys`));
    expect(got.data).toEqual({ [name]: 'd' });
    expect(got.metadata.labels).toEqual({ [name]: 'v' });
    expect(got.metadata.annotations[name]).toBe('a');

    // A patch of each type changes the value under that key, and nothing else.
    const patched = await send(`${cms}/keys?fieldValidation=Strict`, 'PATCH', { data: { [name]: 'merged' } }, 'application/merge-patch+json');
    expect(patched.status, patched.body).toBe(200);
    expect((await send(`${cms}/keys`, 'PATCH', { data: { [name]: 'strategic' } }, 'application/strategic-merge-patch+json')).status).toBe(200);
    expect((await send(`${cms}/keys`, 'PATCH', [{ op: 'replace', path: `/data/${name}`, value: 'json' }], 'application/json-patch+json')).status).toBe(200);
    const applied = await send(`${cms}/keys?fieldManager=t&force=true`, 'PATCH', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'keys' }, data: { [name]: 'applied' } }, 'application/apply-patch+yaml');
    expect(applied.status, applied.body).toBe(200);
    expect(JSON.parse(await stored(`${cms}/keys`)).data).toEqual({ [name]: 'applied' });

    // A label selector on that key selects exactly the object that has it.
    expect((await send(cms, 'POST', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other' } })).status).toBe(201);
    // (kube-root-ca.crt, which every namespace holds, is left out of the comparison.)
    for (const [selector, names] of [
      [name, ['keys']],
      [`!${name}`, ['other']],
      [`${name}=v`, ['keys']],
      [`${name}!=v`, ['other']],
      [`${name} in (v,w)`, ['keys']],
    ] as const) {
      const list = await apiRequest(server, `${cms}?labelSelector=${encodeURIComponent(selector)}`);
      expect(list.status, `${selector}: ${list.body}`).toBe(200);
      const listed = (list.json().items as any[]).map((i) => i.metadata.name as string).filter((n) => n !== 'kube-root-ca.crt');
      expect(listed.sort(), selector).toEqual([...names]);
    }

    const gz = gizmos(cluster);
    const free = `{"apiVersion":"${GROUP}/v1","kind":"Gizmo","metadata":{"name":"free"},"spec":{"free":{${JSON.stringify(name)}:{"x":1}}}}`;
    expect((await send(`${gz}?fieldValidation=Strict`, 'POST', free)).status).toBe(201);
    expect(JSON.parse(await stored(`${gz}/free`)).spec.free).toEqual({ [name]: { x: 1 } });
  });
});

describe('inherited names in request headers', () => {
  it('are ordinary impersonation extra keys', async () => {
    for (const name of [...INHERITED, '__proto__']) {
      const res = await apiRequest(server, '/clusters/root/api/v1/namespaces', {
        headers: { 'impersonate-user': 'someone', [`impersonate-extra-${name.toLowerCase()}`]: 'x' },
      });
      // kcp-admin may impersonate; the impersonated user may not list namespaces: a 403 that names them.
      expect(res.status, `${name}: ${res.body}`).toBe(403);
      expect(res.json().message).toContain('User "someone" cannot list resource "namespaces"');
    }
  });
});
