/**
 * startControlPlane() and workspace() as a user of kcpt/testing sees them: what stop() leaves behind, each
 * workspace option checked with the real kubectl through the workspace's kubeconfig, and errors carrying the
 * server's message.
 */
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, waitFor, type ControlPlane } from 'kcpt/testing';
import { kubectlWith } from './kubectl-env.js';

const crdFile = new URL('./widget-crd.yaml', import.meta.url).pathname;
const gadgetCRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Cluster',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};

/** The entries of `after` beyond those in `before`, counting duplicates. */
function newEntries(before: string[], after: string[]): string[] {
  const left = [...before];
  return after.filter((entry) => {
    const at = left.indexOf(entry);
    if (at < 0) return true;
    left.splice(at, 1);
    return false;
  });
}

function portRefuses(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolve(false)));
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

describe('startControlPlane / stop', () => {
  for (const storage of ['memory', 'sqlite'] as const) {
    it(`with ${storage} storage, stop() leaves no files, no listening port and no handles or timers`, async () => {
      const before = process.getActiveResourcesInfo().sort();
      const cp = await startControlPlane({ storage });
      expect(cp.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const ws = await cp.workspace({ crds: [crdFile] });
      const kc = await ws.kubeConfig();
      // A used client-node KubeConfig (its keep-alive agent holds a connection) must not keep anything open either.
      const { CoreV1Api } = await import('@kubernetes/client-node');
      await kc.makeApiClient(CoreV1Api).readNamespace({ name: 'default' });
      expect(existsSync(cp.rootDirectory)).toBe(true);

      await cp.stop();
      await new Promise((resolve) => setImmediate(resolve));
      // Nothing the control plane opened is left: every handle or timer now active was there before it started
      // (the runner's own may have finished meanwhile).
      expect(newEntries(before, process.getActiveResourcesInfo())).toEqual([]);
      expect(existsSync(cp.rootDirectory)).toBe(false);
      expect(await portRefuses(cp.port)).toBe(true);
    });
  }

  it('keeps a root directory it was given, and starts again on it with the same data', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const root = mkdtempSync(`${tmpdir()}/kcpt-given-root-`);
    try {
      const first = await startControlPlane({ storage: 'sqlite', rootDirectory: root });
      const ws = await first.workspace({ name: 'kept' });
      await first.stop();
      expect(existsSync(`${root}/admin.kubeconfig`)).toBe(true);
      const second = await startControlPlane({ storage: 'sqlite', rootDirectory: root });
      const get = await kubectlWith(second.kubeconfig.path, ['get', 'workspace', 'kept', '-o', 'jsonpath={.spec.cluster}']);
      expect(get.stdout).toBe(ws.clusterName);
      await second.stop();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('refuses tls: false (kcpt serves only HTTPS)', async () => {
    await expect(startControlPlane({ tls: false as unknown as true })).rejects.toThrow('serves only HTTPS');
  });
});

describe('controlPlane.workspace()', () => {
  let cp: ControlPlane;
  beforeAll(async () => {
    cp = await startControlPlane();
  });
  afterAll(() => cp?.stop());

  it('gives each call its own Ready workspace and a kubeconfig kubectl uses as it is', async () => {
    const [a, b] = await Promise.all([cp.workspace(), cp.workspace()]);
    expect(a.path).not.toBe(b.path);
    expect(a.clusterName).not.toBe(b.clusterName);
    expect(a.url).toBe(`${cp.url}/clusters/${a.path}`);
    const ns = await kubectlWith(a.kubeconfig.path, ['get', 'namespace', 'default', '-o', 'name']);
    expect(ns.stdout).toBe('namespace/default');
    const phase = await kubectlWith(cp.kubeconfig.path, ['--context', 'root', 'get', 'workspace', a.path.split(':').pop()!, '-o', 'jsonpath={.status.phase}']);
    expect(phase.stdout).toBe('Ready');
    expect(a.kubeconfig.object['current-context']).toBe(a.path);
  });

  it('takes a name, a type and a parent workspace', async () => {
    const org = await cp.workspace({ type: 'root:organization' });
    const team = await cp.workspace({ parent: org, name: 'team-a', type: 'universal' });
    expect(team.path).toBe(`${org.path}:team-a`);
    const type = await kubectlWith(org.kubeconfig.path, ['get', 'workspace', 'team-a', '-o', 'jsonpath={.spec.type.name} {.status.phase} {.spec.cluster}']);
    expect(type.stdout).toBe(`universal Ready ${team.clusterName}`);
    const orgType = await kubectlWith(cp.kubeconfig.path, ['--context', 'root', 'get', 'workspace', org.path.slice('root:'.length), '-o', 'jsonpath={.spec.type.name}']);
    expect(orgType.stdout).toBe('organization');
    // A parent given by path works as well.
    const deeper = await cp.workspace({ parent: team.path });
    expect(deeper.path.startsWith(`${team.path}:`)).toBe(true);
  });

  it('installs CRDs from files and objects, Established before it resolves', async () => {
    const ws = await cp.workspace({ crds: [crdFile, gadgetCRD] });
    const crds = await kubectlWith(ws.kubeconfig.path, ['get', 'crd', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="Established")].status} {end}']);
    expect(crds.stdout.trim().split(' ').sort()).toEqual(['gadgets.example.com=True', 'widgets.example.com=True']);
    const created = await kubectlWith(ws.kubeconfig.path, ['create', '-f', '-'], JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g' } }));
    expect(created.stdout).toBe('gadget.example.com/g created');
  });

  it('creates APIBindings to an export and resolves once they are Bound', async () => {
    const provider = await cp.workspace();
    const schema = {
      apiVersion: 'apis.kcp.io/v1alpha1',
      kind: 'APIResourceSchema',
      metadata: { name: 'v1.sprockets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'sprockets', singular: 'sprocket', kind: 'Sprocket', listKind: 'SprocketList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }],
      },
    };
    const apiExport = {
      apiVersion: 'apis.kcp.io/v1alpha2',
      kind: 'APIExport',
      metadata: { name: 'sprockets' },
      spec: { resources: [{ name: 'sprockets', group: 'example.com', schema: 'v1.sprockets.example.com', storage: { crd: {} } }] },
    };
    const applied = await kubectlWith(provider.kubeconfig.path, ['create', '-f', '-'], [schema, apiExport].map((o) => JSON.stringify(o)).join('\n'));
    expect(applied.exitCode, applied.stderr).toBe(0);

    const consumer = await cp.workspace({ bindings: [{ path: provider.path, export: 'sprockets' }] });
    const binding = await kubectlWith(consumer.kubeconfig.path, ['get', 'apibinding', 'sprockets', '-o', 'jsonpath={.status.phase}']);
    expect(binding.stdout).toBe('Bound');
    const sprockets = await kubectlWith(consumer.kubeconfig.path, ['get', 'sprockets']);
    expect(sprockets.exitCode, sprockets.stderr).toBe(0);
  });

  it('gives a client-node KubeConfig for the workspace', async () => {
    const ws = await cp.workspace();
    const kc = await ws.kubeConfig();
    expect(kc.getCurrentCluster()?.server).toBe(ws.url);
    const { CoreV1Api } = await import('@kubernetes/client-node');
    const created = await kc.makeApiClient(CoreV1Api).createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'hello' } } });
    expect(created.metadata?.annotations?.['kcp.io/cluster']).toBe(ws.clusterName);
  });

  it('delete() removes the workspace and its kubeconfig file', async () => {
    const ws = await cp.workspace();
    await ws.delete();
    expect(existsSync(ws.kubeconfig.path)).toBe(false);
    const name = ws.path.split(':').pop()!;
    await waitFor(async () => {
      const get = await kubectlWith(cp.kubeconfig.path, ['--context', 'root', 'get', 'workspace', name]);
      expect(get.stderr).toContain('NotFound');
      return true;
    }, { timeout: 20_000, interval: 100 });
  });

  it('rejects a CRD the server refuses with the server\'s Status message, and creates nothing else from it', async () => {
    const bad = { ...gadgetCRD, metadata: { name: 'wrong.example.com' } };
    const failure = await cp.workspace({ crds: [bad] }).catch((err: Error) => err);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(
      /installing CRD "wrong\.example\.com" in root:test-[^:]+: CustomResourceDefinition.* "wrong\.example\.com" is invalid: metadata\.name: Invalid value: "wrong\.example\.com": must be spec\.names\.plural\+"\."\+spec\.group/,
    );
    // The workspace made for it is deleted again (gone, or on its way out).
    const name = /in root:(test-[^:]+):/.exec((failure as Error).message)![1]!;
    const left = await kubectlWith(cp.kubeconfig.path, ['--context', 'root', 'get', 'workspace', name, '-o', 'jsonpath={.metadata.deletionTimestamp}']);
    expect(left.stderr.includes('NotFound') || left.stdout !== '').toBe(true);
  });

  it('rejects files that are missing or hold something other than CRDs before creating a workspace', async () => {
    await expect(cp.workspace({ crds: ['/nonexistent/crd.yaml'] })).rejects.toThrow(/ENOENT.*\/nonexistent\/crd\.yaml/);
    const { writeFileSync, mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const file = `${mkdtempSync(`${tmpdir()}/kcpt-crd-`)}/cm.yaml`;
    writeFileSync(file, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n');
    await expect(cp.workspace({ crds: [file] })).rejects.toThrow('expected apiextensions.k8s.io/v1, Kind=CustomResourceDefinition');
  });

  it('rejects a parent that does not exist with the server\'s message', async () => {
    await expect(cp.workspace({ parent: 'root:no-such-parent' })).rejects.toThrow(/no-such-parent/);
  });

  it('rejects a binding to an export that does not exist, naming it', async () => {
    await expect(cp.workspace({ bindings: [{ path: 'root', export: 'no-such-export' }], timeoutMs: 3000 })).rejects.toThrow(/no-such-export/);
  });
});

describe('waitFor', () => {
  it('returns the first value that holds, and on timeout throws the last assertion', async () => {
    let n = 0;
    expect(await waitFor(() => (++n >= 3 ? n : false))).toBe(3);
    await expect(
      waitFor(() => expect(1 + 1).toBe(3), { timeout: 50 }),
    ).rejects.toThrow(/waitFor timed out after 50 ms: expected 2 to be 3/);
  });
});
