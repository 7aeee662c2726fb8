/**
 * Helm (helm.sh/helm/v3, built from test/peers/tools/helm/go.mod) installs, upgrades, rolls back, lists and uninstalls
 * the chart in test/peers/tools/charts/peer-app (ConfigMap, Secret, Role, RoleBinding, a CRD and its custom resources)
 * in a workspace, pointed at it by a kubeconfig from `kcpt kubeconfig`; kubectl checks what landed after each step.
 * Each test has a workspace of its own: one in root, one nested two levels down.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Workspace } from '../../../src/client/workspace-api.js';
import { getJson, root, workspace, type Json } from '../../e2e/tenancy-fixtures.js';
import { createWorkspaceByApi } from '../../helpers/api-setup.js';
import { runKcpt } from '../../helpers/cli.js';
import { kubectl, type ClusterKubectl } from '../../helpers/kubectl.js';
import { peersDir, prepareGoTools } from '../../helpers/peers.js';
import { startServer, type TestServer } from '../../helpers/server.js';

const prepared = prepareGoTools('Helm peer', 'helm');
const chart = join(peersDir, 'tools', 'charts', 'peer-app');

describe.skipIf(!prepared.ready)('Helm v3 in a workspace', () => {
  let server: TestServer;
  let scratch: string;

  beforeAll(async () => {
    server = await startServer();
    scratch = await mkdtemp(join(tmpdir(), 'kcpt-peers-helm-'));
  });
  afterAll(async () => {
    await server?.stop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  /** A fresh workspace `<parent>:<name>` with a kubeconfig of its own; helm with its own cache and config dirs. */
  async function workspaceFor(parent: string, name: string) {
    await createWorkspaceByApi(server, parent, workspace(name, root('universal')) as Workspace);
    const dir = join(scratch, name);
    await mkdir(dir);
    const kubeconfig = join(dir, 'kubeconfig');
    const made = await runKcpt(['kubeconfig', `${parent}:${name}`, '-o', kubeconfig], server.env);
    expect(made.exitCode, made.stderr).toBe(0);
    const env = {
      ...server.env,
      KUBECONFIG: kubeconfig,
      HELM_CACHE_HOME: join(dir, 'helm-cache'),
      HELM_CONFIG_HOME: join(dir, 'helm-config'),
      HELM_DATA_HOME: join(dir, 'helm-data'),
    };
    const helm = async (args: string[], reject = true) => {
      const r = await execa(join((prepared as { bin: string }).bin, 'helm'), args, { env, stdin: 'ignore', reject: false, timeout: 120_000 });
      const out = { stdout: String(r.stdout), stderr: String(r.stderr), exitCode: r.exitCode ?? -1 };
      if (reject && out.exitCode !== 0) throw new Error(`helm ${args.join(' ')} failed (${out.exitCode}):\n${out.stdout}\n${out.stderr}`);
      return out;
    };
    const k: ClusterKubectl = (args, opts) => kubectl(server, args, { ...opts, env: { KUBECONFIG: kubeconfig, ...opts?.env } });
    return { helm, k };
  }

  const cases = [
    { label: 'a workspace in root', parent: 'root', name: 'helm-top' },
    { label: 'a nested workspace', parent: 'root:helm-org', name: 'helm-nested' },
  ];

  it.each(cases)('install, upgrade, rollback, list and uninstall a chart in $label', async ({ parent, name }) => {
    if (parent !== 'root') await createWorkspaceByApi(server, 'root', workspace(parent.split(':').pop()!, root('organization')) as Workspace);
    const { helm, k } = await workspaceFor(parent, name);
    const ns = ['-n', 'apps'];
    const release = async () => JSON.parse((await helm(['list', ...ns, '-a', '-o', 'json'])).stdout) as Json[];
    const settings = async () => (await getJson(k, ['-n', 'apps', 'configmap', 'peer-settings'])).data as Json;
    const widgets = async () =>
      Object.fromEntries(((await getJson(k, ['-n', 'apps', 'widgets'])).items as Json[]).map((w) => [w.metadata.name, w.spec]));

    const installed = await helm(['install', 'peer', chart, ...ns, '--create-namespace', '--wait']);
    expect(installed.stdout).toMatch(/^NAME: peer\nLAST DEPLOYED: .*\nNAMESPACE: apps\nSTATUS: deployed\nREVISION: 1\n/);
    // The CRD from crds/ (established before the Widgets were created), then every template's object.
    expect(await getJson(k, ['crd', 'widgets.charts.kcpt.io'])).toMatchObject({ status: { conditions: expect.arrayContaining([expect.objectContaining({ type: 'Established', status: 'True' })]) } });
    expect(await settings()).toEqual({ greeting: 'hello', revision: '1' });
    const secret = await getJson(k, ['-n', 'apps', 'secret', 'peer-credentials']);
    expect(Buffer.from(secret.data.password, 'base64').toString()).toBe('s3cret');
    expect((await getJson(k, ['-n', 'apps', 'role', 'peer-reader'])).rules).toEqual([
      { apiGroups: [''], resources: ['configmaps'], resourceNames: ['peer-settings'], verbs: ['get', 'watch'] },
    ]);
    expect((await getJson(k, ['-n', 'apps', 'rolebinding', 'peer-reader'])).subjects).toEqual([{ kind: 'ServiceAccount', name: 'default', namespace: 'apps' }]);
    expect(await widgets()).toEqual({ 'peer-small': { size: 1, greeting: 'hello' }, 'peer-large': { size: 5, greeting: 'hello' } });
    expect(await release()).toMatchObject([{ name: 'peer', namespace: 'apps', revision: '1', status: 'deployed', chart: 'peer-app-0.1.0' }]);
    // Helm keeps its release in a Secret of the namespace, in this workspace only.
    expect((await k(['-n', 'apps', 'get', 'secrets', '-l', 'owner=helm', '-o', 'name'])).stdout.trim()).toBe('secret/sh.helm.release.v1.peer.v1');
    expect((await kubectl(server, ['--context', 'root', 'get', 'namespaces', 'apps'], { reject: false })).exitCode).toBe(1);

    // An upgrade changes the ConfigMap, resizes one Widget and removes the other.
    await helm(['upgrade', 'peer', chart, ...ns, '--set', 'greeting=bonjour', '--set-json', 'widgets=[{"name":"small","size":2}]', '--wait']);
    expect(await settings()).toEqual({ greeting: 'bonjour', revision: '2' });
    expect(await widgets()).toEqual({ 'peer-small': { size: 2, greeting: 'bonjour' } });

    // A rollback to revision 1 brings back what it had, as revision 3.
    expect((await helm(['rollback', 'peer', '1', ...ns, '--wait'])).stdout).toContain('Rollback was a success!');
    expect(await settings()).toEqual({ greeting: 'hello', revision: '1' });
    expect(await widgets()).toEqual({ 'peer-small': { size: 1, greeting: 'hello' }, 'peer-large': { size: 5, greeting: 'hello' } });
    const history = JSON.parse((await helm(['history', 'peer', ...ns, '-o', 'json'])).stdout) as Json[];
    expect(history.map((h) => [h.revision, h.status, h.description])).toEqual([
      [1, 'superseded', 'Install complete'],
      [2, 'superseded', 'Upgrade complete'],
      [3, 'deployed', 'Rollback to 1'],
    ]);

    // A value the CRD's schema refuses fails the upgrade with the server's message; revision 4 is recorded as failed.
    const refused = await helm(['upgrade', 'peer', chart, ...ns, '--set-json', 'widgets=[{"name":"small","size":0},{"name":"large","size":5}]'], false);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain('Widget.charts.kcpt.io "peer-small" is invalid: spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1');
    expect(await release()).toMatchObject([{ name: 'peer', revision: '4', status: 'failed' }]);

    // Uninstall removes every object of the release and its history; the CRD stays, as Helm leaves crds/ alone.
    expect((await helm(['uninstall', 'peer', ...ns, '--wait'])).stdout).toContain('release "peer" uninstalled');
    expect(await release()).toEqual([]);
    const left = await k(['-n', 'apps', 'get', 'configmaps,secrets,roles,rolebindings,widgets', '-o', 'name']);
    expect(left.stdout.split('\n').filter((l) => l && l !== 'configmap/kube-root-ca.crt')).toEqual([]);
    expect((await k(['get', 'crd', 'widgets.charts.kcpt.io', '-o', 'name'])).stdout.trim()).toBe('customresourcedefinition.apiextensions.k8s.io/widgets.charts.kcpt.io');
  });
  it('runs hooks around install, upgrade and delete, forces an upgrade by replacement, and templates for kubectl apply --server-side', async () => {
    const { helm, k } = await workspaceFor('root', 'helm-hooks');
    const ns = ['-n', 'hooked'];
    const names = async (kind: string) => (await k(['-n', 'hooked', 'get', kind, '-o', 'name'])).stdout.split('\n').filter((l) => l && !l.endsWith('kube-root-ca.crt'));

    await helm(['install', 'peer', chart, ...ns, '--create-namespace', '--set', 'hooks=true', '--wait']);
    // pre-install stays (deleted only before it is created again), post-install is deleted once it succeeded.
    expect(await names('configmaps')).toEqual(['configmap/peer-pre', 'configmap/peer-settings']);
    expect((await getJson(k, ['-n', 'hooked', 'configmap', 'peer-pre'])).data).toEqual({ revision: '1' });
    const manifest = (await helm(['get', 'hooks', 'peer', ...ns])).stdout;
    expect(manifest).toContain('name: peer-post');

    // --force replaces every object (a PUT with the live resourceVersion, custom resources included).
    await helm(['upgrade', 'peer', chart, ...ns, '--set', 'hooks=true', '--set', 'greeting=hola', '--force', '--wait']);
    expect((await getJson(k, ['-n', 'hooked', 'configmap', 'peer-pre'])).data).toEqual({ revision: '2' });
    expect((await getJson(k, ['-n', 'hooked', 'configmap', 'peer-settings'])).data).toEqual({ greeting: 'hola', revision: '2' });
    expect((await getJson(k, ['-n', 'hooked', 'widget', 'peer-large'])).spec).toEqual({ size: 5, greeting: 'hola' });
    expect(await names('configmaps')).toEqual(['configmap/peer-pre', 'configmap/peer-settings']);

    // The pre-delete hook runs before the release's objects go, and stays: hooks are not the release's.
    await helm(['uninstall', 'peer', ...ns, '--wait']);
    expect(await names('widgets')).toEqual([`widget.charts.kcpt.io/peer-farewell`]);
    expect(await names('configmaps')).toEqual(['configmap/peer-pre']);

    // helm template piped to kubectl apply --server-side: the same objects, owned by kubectl's field manager; a second
    // apply changes nothing.
    const rendered = (await helm(['template', 'tpl', chart, ...ns, '--set', 'greeting=hej'])).stdout;
    const applied = await k(['apply', '--server-side', '-n', 'hooked', '-f', '-'], { input: rendered });
    expect(applied.stdout.split('\n').sort()).toEqual([
      'configmap/tpl-settings serverside-applied',
      'role.rbac.authorization.k8s.io/tpl-reader serverside-applied',
      'rolebinding.rbac.authorization.k8s.io/tpl-reader serverside-applied',
      'secret/tpl-credentials serverside-applied',
      'widget.charts.kcpt.io/tpl-large serverside-applied',
      'widget.charts.kcpt.io/tpl-small serverside-applied',
    ]);
    const widget = await getJson(k, ['-n', 'hooked', 'widget', 'tpl-small', '--show-managed-fields']);
    expect(widget.spec).toEqual({ size: 1, greeting: 'hej' });
    expect((widget.metadata.managedFields as Json[]).map((f) => [f.manager, f.operation])).toEqual([['kubectl', 'Apply']]);
    const again = await k(['apply', '--server-side', '-n', 'hooked', '-f', '-'], { input: rendered });
    expect(again.stdout.split('\n').every((l) => l.endsWith(' serverside-applied'))).toBe(true);
    expect((await getJson(k, ['-n', 'hooked', 'widget', 'tpl-small'])).metadata.resourceVersion).toBe(widget.metadata.resourceVersion);
  });
});
