/**
 * End-to-end proof against the real kubectl on PATH: a throwaway node:http server serves /version, legacy
 * discovery, /openapi/v3 and our api/v1 document, plus just enough of a ConfigMap store for create and apply.
 * This checks what kubectl needs of our OpenAPI: explain works from our schemas, create/apply pass the
 * fieldValidation capability check (and send fieldValidation=Strict), and client-side apply builds its strategic
 * merge patch from our v3 schema without falling back.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { buildOpenAPISet, builtinSchemas, groupVersionKey } from './index.js';
import { cronTabSchema, fakeResources } from './test-fixtures.js';

const kubectlOnPath = await new Promise<boolean>((resolve) => {
  execFile('kubectl', ['version', '--client'], { timeout: 20_000 }, (err) => resolve(!err));
});

interface Seen {
  method: string;
  url: string;
  contentType?: string;
  body: string;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

/** A minimal apiserver: legacy discovery and OpenAPI from our builders for the fixture catalog. */
function startServer(seen: Seen[]): Promise<Server> {
  const set = buildOpenAPISet(fakeResources, { ...builtinSchemas, 'com.example.stable.v1.CronTab': cronTabSchema });
  const configmaps = new Map<string, Record<string, unknown>>();
  const gvs = new Map<string, { group: string; version: string }>();
  for (const r of fakeResources) gvs.set(groupVersionKey(r), { group: r.group, version: r.version });
  const apiGroups = [...gvs.values()]
    .filter((gv) => gv.group !== '')
    .map(({ group, version }) => {
      const v = { groupVersion: `${group}/${version}`, version };
      return { name: group, versions: [v], preferredVersion: v };
    });
  const resourceList = (gv: { group: string; version: string }) => ({
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: gv.group ? `${gv.group}/${gv.version}` : gv.version,
    resources: fakeResources
      .filter((r) => r.group === gv.group && r.version === gv.version)
      .map((r) => ({
        name: r.resource,
        singularName: r.kind.toLowerCase(),
        namespaced: r.namespaced,
        kind: r.kind,
        verbs: r.verbs,
      })),
  });
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://x');
    seen.push({ method: req.method ?? '', url: req.url ?? '', contentType: req.headers['content-type'], body });
    const send = (code: number, obj: unknown) => {
      res.writeHead(code, { 'Content-Type': 'application/json' });
      res.end(typeof obj === 'string' ? obj : JSON.stringify(obj));
    };
    const notFound = (message = 'the server could not find the requested resource') =>
      send(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', message, reason: 'NotFound', code: 404 });
    // Serve the same APIs under /clusters/<name> too, like kcpt does per logical cluster.
    const p = url.pathname.replace(/^\/clusters\/[^/]+/, '');
    if (p === '/version') return send(200, { major: '1', minor: '32', gitVersion: 'v1.32.4' });
    if (p === '/api') return send(200, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] });
    if (p === '/apis') return send(200, { kind: 'APIGroupList', apiVersion: 'v1', groups: apiGroups });
    const gv = gvs.get(p.slice(1));
    if (gv) return send(200, resourceList(gv));
    if (p === '/openapi/v3') return send(200, set.indexJSON);
    if (p.startsWith('/openapi/v3/')) {
      const doc = set.documents.get(p.slice('/openapi/v3/'.length));
      return doc ? send(200, doc.json) : notFound();
    }
    const m = /^\/api\/v1\/namespaces\/([^/]+)\/configmaps(?:\/([^/]+))?$/.exec(p);
    if (!m) return notFound();
    const [, ns, name] = m;
    if (req.method === 'POST') {
      const obj = JSON.parse(body) as { metadata: Record<string, unknown> };
      obj.metadata = { ...obj.metadata, namespace: ns, resourceVersion: '1', uid: 'u-1' };
      configmaps.set(`${ns}/${String(obj.metadata.name)}`, obj);
      return send(201, obj);
    }
    const obj = configmaps.get(`${ns}/${name}`);
    if (!obj) return notFound(`configmaps "${name}" not found`);
    return send(200, obj); // GET and PATCH (the test only inspects what kubectl sent)
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe.skipIf(!kubectlOnPath)('real kubectl against our OpenAPI v3 documents', () => {
  const seen: Seen[] = [];
  let server: Server;
  let dir: string;
  let port: number;
  let kubectl: (...args: string[]) => Promise<{ code: number; stdout: string; stderr: string }>;

  beforeAll(async () => {
    server = await startServer(seen);
    dir = mkdtempSync(join(tmpdir(), 'kcpt-openapi-'));
    port = (server.address() as AddressInfo).port;
    kubectl = (...args) =>
      new Promise((resolve) => {
        const env = { ...process.env, HOME: dir, KUBECACHEDIR: join(dir, 'cache'), KUBECONFIG: join(dir, 'none') };
        const serverFlag = args[0]?.startsWith('--server=') ? [] : [`--server=http://127.0.0.1:${port}`];
        execFile('kubectl', [...serverFlag, ...args], { env, timeout: 60_000 }, (err, stdout, stderr) =>
          resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        );
      });
  });

  afterAll(() => {
    server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('explains configmap.data as map[string]string', async () => {
    const r = await kubectl('explain', 'configmap.data');
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('KIND:       ConfigMap');
    expect(r.stdout).toMatch(/FIELD:\s+data <map\[string\]string>/);
  });

  it('explains configmaps with its fields', async () => {
    const r = await kubectl('explain', 'configmaps');
    expect(r.code).toBe(0);
    const fields = ['binaryData\t<map[string]string>', 'data\t<map[string]string>', 'immutable\t<boolean>'];
    for (const f of [...fields, 'metadata\t<ObjectMeta>']) expect(r.stdout).toContain(f);
  });

  it('explains every kind of every group-version, recursively', async () => {
    for (const r of fakeResources) {
      const res = `${r.resource} (${r.group}/${r.version})`;
      const apiVersion = r.group ? `${r.group}/${r.version}` : r.version;
      const out = await kubectl('explain', r.resource, `--api-version=${apiVersion}`, '--recursive');
      expect(out.stderr, res).toBe('');
      expect(out.stdout, res).toContain(`KIND:       ${r.kind}`);
    }
    const lc = await kubectl('explain', 'logicalclusters.status.conditions');
    expect(lc.stdout).toMatch(/FIELD:\s+conditions <\[\]Condition>/);
    const crb = await kubectl('explain', 'clusterroles.rules.verbs');
    expect(crb.stdout).toMatch(/FIELD:\s+verbs <\[\]string>/);
  });

  it('follows serverRelativeURL under a /clusters/<name> prefix (client-go prepends its base path)', async () => {
    const before = seen.length;
    const r = await kubectl(`--server=http://127.0.0.1:${port}/clusters/root:org`, 'explain', 'configmap.data');
    expect(r.stdout).toMatch(/FIELD:\s+data <map\[string\]string>/);
    const urls = seen.slice(before).map((s) => s.url);
    expect(urls.some((u) => u.startsWith('/clusters/root:org/openapi/v3/api/v1?hash='))).toBe(true);
    expect(urls.every((u) => u.startsWith('/clusters/root:org/'))).toBe(true);
  });

  it('create -f and apply -f pass validation and apply builds a strategic merge patch from our schema', async () => {
    const file = join(dir, 'cm.yaml');
    const manifest = (value: string, finalizers: string) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm1\n  namespace: default\n  finalizers: ${finalizers}\n` +
      `data:\n  k: ${value}\n`;
    writeFileSync(file, manifest('one', '[a]'));
    const created = await kubectl('apply', '-f', file);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const post = seen.find((s) => s.method === 'POST');
    expect(post?.url).toContain('fieldValidation=Strict');

    writeFileSync(file, manifest('two', '[a, b]'));
    const applied = await kubectl('apply', '-f', file);
    expect(applied.stderr).toBe('');
    const patch = seen.find((s) => s.method === 'PATCH');
    expect(patch?.contentType).toBe('application/strategic-merge-patch+json');
    expect(patch?.url).toContain('fieldValidation=Strict');
    // The merge directives prove kubectl read our ObjectMeta markers (finalizers: patch strategy merge); without
    // them it would send the whole list.
    expect(JSON.parse(patch?.body ?? '{}')).toMatchObject({
      data: { k: 'two' },
      metadata: { finalizers: ['b'], '$setElementOrder/finalizers': ['a', 'b'] },
    });
  });
});
