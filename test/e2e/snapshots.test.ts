/**
 * `kcpt snapshot save/restore` as a user runs them against `kcpt start`, checked with the real kubectl: a workspace
 * tree with a CRD, custom resources, an APIExport bound from another workspace, ConfigMaps and Secrets is saved and
 * restored beside itself under a new path; and a whole store saved while the server runs, restored into a fresh root
 * directory and served again keeps every object and resourceVersion (SQLite and memory storage). The subtree
 * tests run on the project's shared server; the whole-store ones stop and restore servers of their own.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { stringify as toYaml } from 'yaml';
import { runKcpt as kcpt, useScratchDirectory } from '../helpers/cli.js';
import { createWorkspaceByApi } from '../helpers/api-setup.js';
import { kubectl, uniqueName, type ClusterKubectl, type KubectlOptions } from '../helpers/kubectl.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { e2eServer } from '../helpers/shared-server.js';
import { apiBinding, apiExport, resourceSchema } from './apis-fixtures.js';
import { crdObject } from './crds-fixtures.js';

type Json = Record<string, any>;

const scratchDir = useScratchDirectory('kcpt-snapshots-');

async function ok(args: string[]): Promise<string> {
  const r = await kcpt(args);
  expect(r.exitCode, `kcpt ${args.join(' ')}\n${r.stdout}\n${r.stderr}`).toBe(0);
  return r.stdout;
}

/** kubectl as kcp-admin at a workspace path of `server`, through `kubeconfig` (default: the server's own). */
function at(server: TestServer, path: string, kubeconfig = server.kubeconfig): ClusterKubectl {
  return (args, o) => kubectl(server, ['--kubeconfig', kubeconfig, '--context', 'root', '--server', `${server.url}/clusters/${path}`, ...args], o);
}

async function apply(k: ClusterKubectl, objects: Json[], opts: KubectlOptions = {}): Promise<void> {
  await k(['apply', '-f', '-'], { ...opts, input: objects.map((o) => toYaml(o)).join('---\n') });
}

async function createWorkspace(server: TestServer, parent: string, name: string): Promise<void> {
  await createWorkspaceByApi(server, parent, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name } });
}

async function jsonOf(k: ClusterKubectl, args: string[]): Promise<Json> {
  return JSON.parse((await k(['get', ...args, '-o', 'json'])).stdout) as Json;
}

/** name → resourceVersion of what `kubectl get <resources>` lists. */
async function versions(k: ClusterKubectl, resources: string): Promise<Record<string, string>> {
  const list = await jsonOf(k, [resources]);
  return Object.fromEntries((list.items as Json[]).map((o) => [`${o.kind}/${o.metadata.name}`, o.metadata.resourceVersion]));
}

const gizmos = crdObject({ group: 'example.com', plural: 'gizmos', kind: 'Gizmo', schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } });
const gizmo = (name: string, size: number): Json => ({ apiVersion: 'example.com/v1', kind: 'Gizmo', metadata: { name, namespace: 'default' }, spec: { size } });

describe('workspace subtree: save --workspace, restore --as beside the original', () => {
  let server: TestServer;
  const contents = 'gizmos,widgets,configmaps,secrets';
  // The shared server: the saved tree and its copies have unique names in root.
  const [snapWs, copyWs, copy2Ws, brokenWs, nowhereWs] = ['snap', 'copy', 'copy2', 'broken', 'nowhere'].map((n) => uniqueName(n));
  beforeAll(async () => {
    server = await e2eServer();
    await createWorkspace(server, 'root', snapWs);
    await createWorkspace(server, `root:${snapWs}`, 'a');
    await createWorkspace(server, `root:${snapWs}:a`, 'b');
    await apply(at(server, `root:${snapWs}:a`), [
      resourceSchema({ group: 'shop.example', plural: 'widgets', kind: 'Widget' }),
      apiExport({ name: 'widgets', group: 'shop.example', plural: 'widgets' }),
    ]);
    const b = at(server, `root:${snapWs}:a:b`);
    await apply(b, [gizmos]);
    await b(['wait', '--for=condition=Established', 'crd/gizmos.example.com', '--timeout=30s']);
    await apply(b, [gizmo('g1', 1), gizmo('g2', 2), apiBinding('widgets', 'widgets', { exportPath: `root:${snapWs}:a` })]);
    await b(['wait', '--for=condition=Ready', 'apibinding/widgets', '--timeout=30s']);
    await apply(b, [{ apiVersion: 'shop.example/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'default' }, spec: { size: 7 } }]);
    await b(['create', 'configmap', 'cfg', '--from-literal=k=v']);
    await b(['create', 'secret', 'generic', 'sec', '--from-literal=password=s3cret']);
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  }, 30_000);

  test('the copy has the CRs, a Bound binding to its own export and new cluster names; the originals are untouched', async () => {
    const original = at(server, `root:${snapWs}:a:b`);
    const before = await versions(original, contents);
    const file = join(scratchDir.path, 'snap.jsonl');
    const saved = await ok(['snapshot', 'save', file, '--workspace', `root:${snapWs}`, '--root-directory', server.rootDir]);
    expect(saved).toMatch(new RegExp(`^Saved workspace root:${snapWs} at revision \\d+ to .*snap\\.jsonl \\(JSON lines, \\d+ bytes\\)\\.`));

    const restored = await ok(['snapshot', 'restore', file, '--as', `root:${copyWs}`, '--root-directory', server.rootDir, '-o', 'json']);
    const report = JSON.parse(restored) as { path: string; clusters: Record<string, string>; objects: number };
    expect(report.path).toBe(`root:${copyWs}`);
    for (const [from, to] of Object.entries(report.clusters)) expect(to).not.toBe(from);
    // In words: one short line, the cluster names only with -o json.
    const again = await ok(['snapshot', 'restore', file, '--as', `root:${copy2Ws}`, '--root-directory', server.rootDir]);
    expect(again).toMatch(new RegExp(`^Restored \\d+ objects as workspace root:${copy2Ws} \\(${Object.keys(report.clusters).length} logical clusters, new names; -o json lists them\\)\\.\\n?$`));

    const copy = at(server, `root:${copyWs}:a:b`);
    expect(Object.keys(await versions(copy, contents)).sort()).toEqual(Object.keys(before).sort());
    expect((await jsonOf(copy, ['gizmo', 'g2'])).spec).toEqual({ size: 2 });
    expect((await jsonOf(copy, ['widget', 'w1'])).spec).toEqual({ size: 7 });
    const secret = await jsonOf(copy, ['secret', 'sec']);
    expect(Buffer.from(secret.data.password, 'base64').toString()).toBe('s3cret');
    // The binding points at the copy's own export and is Bound; the CRD is Established again.
    const binding = await jsonOf(copy, ['apibinding', 'widgets']);
    expect(binding.spec.reference.export.path).toBe(`root:${copyWs}:a`);
    expect(binding.status.phase).toBe('Bound');
    await copy(['wait', '--for=condition=Established', 'crd/gizmos.example.com', '--timeout=10s']);
    // New objects in the copy work (a CR of the bound API, one of the CRD) and do not show up in the original.
    await apply(copy, [gizmo('g3', 3), { apiVersion: 'shop.example/v1', kind: 'Widget', metadata: { name: 'w2', namespace: 'default' }, spec: { size: 1 } }]);
    expect((await original(['get', 'gizmo', 'g3'], { reject: false })).exitCode).not.toBe(0);

    // Every workspace of the copy has its own logical cluster, with the copy's paths and URLs.
    for (const [parent, name] of [['root', snapWs], [`root:${snapWs}`, 'a'], [`root:${snapWs}:a`, 'b']] as const) {
      const orig = await jsonOf(at(server, parent), ['workspace', name]);
      const moved = await jsonOf(at(server, parent.replace(`root:${snapWs}`, `root:${copyWs}`)), ['workspace', name === snapWs ? copyWs : name]);
      expect(moved.spec.cluster).not.toBe(orig.spec.cluster);
      expect(moved.spec.URL).toMatch(new RegExp(`/clusters/root:${copyWs}(:a)?(:b)?$`));
      expect(moved.status.phase).toBe('Ready');
    }
    const lc = await jsonOf(copy, ['logicalcluster', 'cluster']);
    expect(lc.metadata.annotations['kcp.io/path']).toBe(`root:${copyWs}:a:b`);

    // The originals: same objects, same resourceVersions.
    expect(await versions(original, contents)).toEqual(before);
  });

  test('restoring onto an existing path, under a missing parent, from a bad file, or as a non-admin fails cleanly', async () => {
    const file = join(scratchDir.path, 'again.jsonl');
    await ok(['snapshot', 'save', file, '--workspace', `root:${snapWs}:a`, '--root-directory', server.rootDir]);
    const onto = await kcpt(['snapshot', 'restore', file, '--as', `root:${snapWs}`, '--root-directory', server.rootDir]);
    expect(onto.exitCode).toBe(1);
    expect(onto.stderr).toContain(`Error from server (AlreadyExists): workspaces.tenancy.kcp.io "root:${snapWs}" already exists`);
    const orphan = await kcpt(['snapshot', 'restore', file, '--as', `root:${nowhereWs}:a`, '--root-directory', server.rootDir]);
    expect(orphan.stderr).toContain(`Error from server (NotFound): workspaces.tenancy.kcp.io "root:${nowhereWs}" not found`);

    const bad = join(scratchDir.path, 'bad.jsonl');
    await writeFile(bad, '{"kind":"KcptSnapshot","version":1,"scope":"workspace","revision":5}\n{"key":');
    const broken = await kcpt(['snapshot', 'restore', bad, '--as', `root:${brokenWs}`, '--root-directory', server.rootDir]);
    expect(broken.exitCode).toBe(1);
    expect(broken.stderr).toContain('Error from server (BadRequest): invalid snapshot: line 1: a workspace snapshot needs');
    expect((await at(server, 'root')(['get', 'workspace', brokenWs], { reject: false })).exitCode).not.toBe(0);

    // kcp-admin is not system:masters: a snapshot holds every tenant's Secrets.
    const denied = await kcpt(['snapshot', 'save', join(scratchDir.path, 'denied.jsonl'), '--workspace', `root:${snapWs}`, '--kubeconfig', server.kubeconfig, '--context', 'root']);
    expect(denied.exitCode).toBe(1);
    expect(denied.stderr).toContain('Error from server (Forbidden): User "kcp-admin" cannot take or restore snapshots');
  });
});

describe.each([
  { storage: undefined, format: 'SQLite database' },
  { storage: 'memory://', format: 'JSON lines' },
])('whole store ($format): save while running, restore into a fresh root directory, serve again', ({ storage, format }) => {
  test('the restored server has the same objects with the same resourceVersions', async () => {
    // The default store's format (a SQLite database file) is the subject: on SQLite also in the e2e-etcd run.
    const server = await startServer(storage ? { storage } : { etcd: false });
    const fresh = join(scratchDir.path, `fresh-${storage ? 'memory' : 'sqlite'}`);
    let restarted = false;
    try {
      await createWorkspace(server, 'root', 'keep');
      const keep = at(server, 'root:keep');
      await apply(keep, [gizmos]);
      await keep(['wait', '--for=condition=Established', 'crd/gizmos.example.com', '--timeout=30s']);
      await apply(keep, [gizmo('g1', 1)]);
      await keep(['create', 'configmap', 'cfg', '--from-literal=k=v']);
      const before = await versions(keep, 'gizmos,configmaps,namespaces');
      const file = join(scratchDir.path, `whole-${storage ? 'memory' : 'sqlite'}.snapshot`);
      expect(await ok(['snapshot', 'save', file, '--root-directory', server.rootDir])).toContain(`(${format},`);
      await server.stop();

      expect(await ok(['snapshot', 'restore', file, '--root-directory', fresh])).toMatch(/^Restored \d+ keys at revision \d+ into /);
      const again = await kcpt(['snapshot', 'restore', file, '--root-directory', fresh]);
      expect(again.stderr).toContain('already holds a store (kcpt.db): restore into an empty root directory, or pass --force to replace it');

      await ok(['start', '--root-directory', fresh, '--secure-port', '0', '--detach']);
      restarted = true;
      // While it runs, a whole-store restore there is refused.
      const busy = await kcpt(['snapshot', 'restore', file, '--root-directory', fresh, '--force']);
      expect(busy.stderr).toContain(`a kcpt server is running in ${fresh}: stop it first`);
      const url = (JSON.parse(await ok(['status', '--root-directory', fresh, '-o', 'json'])) as { url: string }).url;
      const restoredKeep: ClusterKubectl = (args, o) =>
        kubectl(server, ['--kubeconfig', join(fresh, 'admin.kubeconfig'), '--context', 'root', '--server', `${url}/clusters/root:keep`, ...args], o);
      expect(await versions(restoredKeep, 'gizmos,configmaps,namespaces')).toEqual(before);
      // And it goes on from there: new writes get newer resourceVersions.
      await restoredKeep(['create', 'configmap', 'after']);
      const after = await jsonOf(restoredKeep, ['configmap', 'after']);
      expect(Number(after.metadata.resourceVersion)).toBeGreaterThan(Math.max(...Object.values(before).map(Number)));

      // Stopped, the root directory's files are read directly: the whole store, or one subtree.
      await ok(['stop', '--root-directory', fresh]);
      restarted = false;
      const offline = join(scratchDir.path, `offline-${storage ? 'memory' : 'sqlite'}.db`);
      expect(await ok(['snapshot', 'save', offline, '--root-directory', fresh])).toMatch(/^Saved the whole store at revision \d+ to .* \(SQLite database, \d+ bytes\)\./);
      const subtree = join(scratchDir.path, `offline-${storage ? 'memory' : 'sqlite'}.jsonl`);
      await ok(['snapshot', 'save', subtree, '--workspace', 'root:keep', '--root-directory', fresh]);
      const lines = (await readFile(subtree, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Json);
      expect(lines[0]).toMatchObject({ kind: 'KcptSnapshot', scope: 'workspace', workspace: { path: 'root:keep' } });
      const cfg = lines.find((l) => /^\/registry\/core\/configmaps\/[^/]+\/default\/cfg$/.test(l.key));
      expect(cfg?.object.data).toEqual({ k: 'v' });
    } finally {
      if (restarted) await kcpt(['stop', '--root-directory', fresh]);
      await server.stop();
    }
  }, 120_000);
});
