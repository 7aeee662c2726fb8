/**
 * Issue 3, owner references and garbage collection with the real kubectl: `kubectl delete` in its three cascade
 * modes (with the PATH kubectl and kubectl 1.33), custom resources as owners and as dependents, dangling owners,
 * and logical-cluster isolation. A foreground deletion that outlives a server restart is in
 * garbage-collection-restart.test.ts (it needs a server of its own).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlBinaries, uniqueClusterName, uniqueName } from '../helpers/kubectl.js';
import { createLogicalCluster } from '../helpers/api-setup.js';
import { expectNotFound, useE2EServer } from '../helpers/suite.js';
import { ownedObjects, type Ref } from './gc-fixtures.js';

// The shared server: every describe works in logical clusters of its own.
const e2e = useE2EServer();

/** A fresh logical cluster of this file's own. */
async function freshCluster(): Promise<string> {
  const name = uniqueClusterName();
  await createLogicalCluster(e2e.server, name);
  return name;
}

/** Helpers bound to one logical cluster, one namespace and one kubectl binary. */
const inNamespace = (cluster: string, ns: string, opts: { binary?: string; cacheDir?: string } = {}) =>
  ownedObjects(e2e, cluster, ns, opts);

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.gc.example.com' },
  spec: {
    group: 'gc.example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        },
      },
    ],
  },
};

const binaries = [
  { label: 'kubectl', path: undefined as string | undefined },
  ...kubectlBinaries()
    .filter((b) => b.version === '1.33')
    .map((b) => ({ label: `kubectl ${b.version}`, path: b.path as string | undefined })),
];

describe.each(binaries)('cascading delete with $label', (binary) => {
  const ns = uniqueName('gc');
  let cacheDir: string | undefined;
  let t: ReturnType<typeof inNamespace>;

  beforeAll(async () => {
    // A binary of another version gets its own discovery cache, as kubectl-basics does.
    if (binary.path) cacheDir = await mkdtemp(join(tmpdir(), 'kcpt-e2e-gc-kubectl-'));
    t = inNamespace(await freshCluster(), ns, { binary: binary.path, cacheDir });
    await t.k(['create', 'namespace', ns]);
  }, 60_000);
  afterAll(async () => {
    if (cacheDir) await rm(cacheDir, { recursive: true, force: true });
  });

  it('default (background): the owner goes, then every dependent; other objects stay', async () => {
    await t.cm('owner');
    await t.cm('dep', { ownerReferences: [await t.refTo('ConfigMap', 'owner')] });
    await t.secret('dep-secret', [await t.refTo('ConfigMap', 'owner')]);
    await t.cm('bystander');
    expect((await t.k(['delete', 'cm', 'owner', '-n', ns])).stdout).toBe('configmap "owner" deleted');
    await t.waitGone('cm/dep', 'secret/dep-secret');
    await expectNotFound(t.k, 'cm', 'dep', ns);
    await expectNotFound(t.k, 'secret', 'dep-secret', ns);
    expect((await t.k(['get', 'cm', 'bystander', '-n', ns, '-o', 'name'])).stdout).toBe('configmap/bystander');
  });

  it('--cascade=foreground: kubectl returns only once the blocking dependents and then the owner are gone', async () => {
    await t.cm('fg-owner');
    const blocking = await t.refTo('ConfigMap', 'fg-owner', { blockOwnerDeletion: true });
    await t.cm('fg-held', { ownerReferences: [blocking], finalizers: ['example.com/hold'] });
    await t.cm('fg-plain', { ownerReferences: [blocking] });
    await t.secret('fg-secret', [await t.refTo('ConfigMap', 'fg-owner')]);

    const deleting = t.background(['delete', 'cm', 'fg-owner', '-n', ns, '--cascade=foreground']);
    await deleting.waitForLine(/^configmap "fg-owner" deleted$/, 45_000);
    await t.waitGone('cm/fg-plain', 'secret/fg-secret');
    // The held dependent still blocks: the owner waits with the foregroundDeletion finalizer, and so does kubectl.
    const owner = await t.getJson('cm', 'fg-owner');
    expect(owner.metadata.deletionTimestamp).toBeTruthy();
    expect(owner.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect((await t.getJson('cm', 'fg-held')).metadata.deletionTimestamp).toBeTruthy();
    expect(deleting.exited()).toBe(false);

    await t.release('cm', 'fg-held');
    const done = await deleting.done(60_000);
    expect(done.exitCode).toBe(0);
    await expectNotFound(t.k, 'cm', 'fg-owner', ns);
    await expectNotFound(t.k, 'cm', 'fg-held', ns);
  });

  it('--cascade=orphan: the owner goes, the dependents stay without the reference to it', async () => {
    await t.cm('or-owner');
    await t.cm('or-other');
    const toOwner = await t.refTo('ConfigMap', 'or-owner', { blockOwnerDeletion: true });
    const toOther = await t.refTo('ConfigMap', 'or-other');
    await t.cm('or-dep', { ownerReferences: [toOwner] });
    await t.cm('or-both', { ownerReferences: [toOwner, toOther] });
    expect((await t.k(['delete', 'cm', 'or-owner', '-n', ns, '--cascade=orphan'])).stdout).toBe('configmap "or-owner" deleted');
    await expectNotFound(t.k, 'cm', 'or-owner', ns);
    expect((await t.getJson('cm', 'or-dep')).metadata.ownerReferences).toBeUndefined();
    expect((await t.getJson('cm', 'or-both')).metadata.ownerReferences).toEqual([toOther]);
  });
});

describe('garbage collection beyond ConfigMaps', () => {
  const ns = uniqueName('gcx');
  let cluster = '';
  const t = () => inNamespace(cluster, ns);

  beforeAll(async () => {
    cluster = await freshCluster();
    await t().k(['create', 'namespace', ns]);
    await t().k(['apply', '-f', '-'], { input: JSON.stringify(crd) });
    await t().k(['wait', '--for=condition=Established', 'crd/widgets.gc.example.com', '--timeout=60s'], { timeoutMs: 90_000 });
  }, 120_000);

  it('a custom resource owns ConfigMaps', async () => {
    await t().widget('w-owner');
    await t().cm('w-dep-1', { ownerReferences: [await t().refTo('Widget', 'w-owner')] });
    await t().cm('w-dep-2', { ownerReferences: [await t().refTo('Widget', 'w-owner', { blockOwnerDeletion: true })] });
    expect((await t().k(['delete', 'widget', 'w-owner', '-n', ns])).stdout).toBe('widget.gc.example.com "w-owner" deleted');
    await t().waitGone('cm/w-dep-1', 'cm/w-dep-2');
    await expectNotFound(t().k, 'cm', 'w-dep-1', ns);
  });

  it('a ConfigMap owns a custom resource, also in the foreground', async () => {
    await t().cm('cm-owner');
    await t().widget('owned-widget', [await t().refTo('ConfigMap', 'cm-owner', { blockOwnerDeletion: true })]);
    expect((await t().k(['delete', 'cm', 'cm-owner', '-n', ns, '--cascade=foreground'])).stdout).toBe('configmap "cm-owner" deleted');
    // Foreground: by the time kubectl returns the blocking widget is gone too.
    await expectNotFound(t().k, 'widgets.gc.example.com', 'owned-widget', ns);
    await expectNotFound(t().k, 'cm', 'cm-owner', ns);
  });

  it('a dependent whose owner does not exist is collected; one with a live owner too only loses the dangling reference', async () => {
    const ghost: Ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'ghost', uid: '00000000-0000-0000-0000-00000000dead' };
    await t().cm('live-owner');
    const live = await t().refTo('ConfigMap', 'live-owner');
    await t().cm('dangling', { ownerReferences: [ghost] });
    await t().cm('half-dangling', { ownerReferences: [ghost, live] });
    await t().waitGone('cm/dangling');
    await t().k(
      ['wait', '--for=jsonpath={.metadata.ownerReferences[0].name}=live-owner', 'cm/half-dangling', '-n', ns, '--timeout=60s'],
      { timeoutMs: 90_000 },
    );
    expect((await t().getJson('cm', 'half-dangling')).metadata.ownerReferences).toEqual([live]);
  });
});

describe('logical clusters are collected apart', () => {
  const ns = uniqueName('gci');
  let first = '';
  const root = () => inNamespace(first, ns);
  const second = () => inNamespace(e2e.second, ns);

  beforeAll(async () => {
    first = await freshCluster();
    for (const t of [root(), second()]) {
      await t.k(['create', 'namespace', ns]);
      await t.cm('owner');
      await t.cm('dep', { ownerReferences: [await t.refTo('ConfigMap', 'owner', { blockOwnerDeletion: true })] });
    }
  }, 90_000);

  it('deleting an owner touches nothing of the same names in the second logical cluster', async () => {
    const secondRef = (await second().getJson('cm', 'dep')).metadata.ownerReferences;
    await root().k(['delete', 'cm', 'owner', '-n', ns, '--cascade=foreground']);
    await expectNotFound(root().k, 'cm', 'dep', ns);
    expect((await second().getJson('cm', 'owner')).metadata.deletionTimestamp).toBeUndefined();
    expect((await second().getJson('cm', 'dep')).metadata.ownerReferences).toEqual(secondRef);
    // The second cluster collects its own.
    await second().k(['delete', 'cm', 'owner', '-n', ns]);
    await second().waitGone('cm/dep');
  });
});
