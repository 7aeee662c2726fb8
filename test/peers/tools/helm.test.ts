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
});
