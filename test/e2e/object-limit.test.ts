/**
 * kcp's total object count limit per logical cluster with the real kubectl: `kcpt start
 * --logical-cluster-total-object-limit`, a logical cluster filled to its cap refusing the next create with kcp's
 * message, deletes freeing room, events still allowed, root exempt from the flag, and the
 * `core.kcp.io/max-total-objects` annotation (set by a system:masters user) overriding it either way.
 */
import { describe, expect, it } from 'vitest';
import {
  clusterUrl,
  kubectl,
  matrixBinaries,
  uniqueClusterName,
  uniqueName,
  type ClusterKubectl,
} from '../helpers/kubectl.js';
import { createLogicalCluster } from '../helpers/api-setup.js';
import { apiRequest } from '../helpers/http.js';
import { escapeRegExp, expectError, useE2EServer } from '../helpers/suite.js';
import { yaml } from './crds-fixtures.js';

const limit = 12;
const e2e = useE2EServer({ extraArgs: ['--logical-cluster-total-object-limit', String(limit)] });

const annotation = 'core.kcp.io/max-total-objects';
const full = (cluster: string, count: number | string, cap: number) =>
  `logical cluster "${cluster}" has reached its total object count limit (${count}/${cap} objects); delete objects to free up capacity`;
const refusedConfigMap = (name: string, cluster: string, count: number | string, cap: number) =>
  `error: failed to create configmap: configmaps "${name}" is forbidden: ${full(cluster, count, cap)}`;

/** kubectl as shard-admin (system:masters) in a logical cluster: the only one who may set the annotation. */
function asShardAdmin(cluster: string): ClusterKubectl {
  return (args, opts) => kubectl(e2e.server, ['--context', 'shard-base', '--server', clusterUrl(e2e.server, cluster), ...args], opts);
}

const annotate = (cluster: string, value: string | null) =>
  asShardAdmin(cluster)(['annotate', 'logicalcluster', 'cluster', value === null ? `${annotation}-` : `${annotation}=${value}`, '--overwrite']);

/** Creates ConfigMaps until one is refused; returns how many were created and the refusal. */
async function fill(k: ClusterKubectl, prefix: string, max: number) {
  for (let created = 0; created <= max; created++) {
    const name = `${prefix}-${created}`;
    const result = await k(['create', 'configmap', name], { reject: false });
    if (result.exitCode !== 0) return { created, refused: result, name };
    expect(result.stdout).toBe(`configmap/${name} created`);
  }
  throw new Error(`created ${max + 1} ConfigMaps without reaching the limit`);
}

describe('--logical-cluster-total-object-limit', () => {
  it('a logical cluster filled to the cap refuses the next create with kcp’s 403; a delete frees one slot', async () => {
    const k = e2e.k(e2e.second);
    // The LogicalCluster and namespace `default` are already there, and count.
    const { created, refused, name } = await fill(k, 'fill', limit);
    expect(created).toBeGreaterThan(0);
    expect(created).toBeLessThanOrEqual(limit - 2);
    expectError(refused, refusedConfigMap(name, e2e.second, limit, limit));

    // Other kinds count against the same cap, and `create -f` shows the Forbidden status.
    const manifest = yaml({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'one-too-many', namespace: 'default' } });
    expectError(
      await k(['create', '-f', '-'], { input: manifest, reject: false }),
      `Error from server (Forbidden): error when creating "STDIN": secrets "one-too-many" is forbidden: ${full(e2e.second, limit, limit)}`,
    );
    // Events are neither counted nor refused: they are how a full workspace gets debugged.
    const event = yaml({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'full', namespace: 'default' },
      involvedObject: { kind: 'ConfigMap', name: 'fill-0', namespace: 'default' },
      reason: 'Full',
      message: 'the workspace is full',
    });
    expect((await k(['create', '-f', '-'], { input: event })).stdout).toBe('event/full created');
    // Updates go through.
    expect((await k(['label', 'configmap', 'fill-0', 'state=full'])).stdout).toBe('configmap/fill-0 labeled');

    expect((await k(['delete', 'configmap', 'fill-0'])).stdout).toBe('configmap "fill-0" deleted');
    expect((await k(['create', 'configmap', 'refill'])).stdout).toBe('configmap/refill created');
    expectError(await k(['create', 'configmap', 'again'], { reject: false }), refusedConfigMap('again', e2e.second, limit, limit));
  });

  it('root is exempt from the flag', async () => {
    const k = e2e.k('root');
    const ns = uniqueName('many');
    await k(['create', 'namespace', ns]);
    // One kubectl, one create per object: each is admitted on its own.
    const names = Array.from({ length: limit + 1 }, (_, i) => `cm-${i}`);
    const manifest = yaml(names.map((name) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns } })));
    expect((await k(['create', '-f', '-'], { input: manifest })).stdout.split('\n')).toEqual(names.map((name) => `configmap/${name} created`));
    expect((await k(['get', 'configmaps', '-n', ns, '-o', 'name'])).stdout.split('\n').filter(Boolean).length).toBeGreaterThan(limit);
  });

  it('the core.kcp.io/max-total-objects annotation overrides the flag: raises it, lowers it, 0 lifts it', async () => {
    const cluster = uniqueClusterName();
    await createLogicalCluster(e2e.server, cluster);
    const k = e2e.k(cluster);
    const first = await fill(k, 'cm', limit);
    expectError(first.refused, refusedConfigMap(first.name, cluster, limit, limit));

    await annotate(cluster, String(limit + 2));
    expect((await k(['create', 'configmap', 'raised-1'])).stdout).toBe('configmap/raised-1 created');
    expect((await k(['create', 'configmap', 'raised-2'])).stdout).toBe('configmap/raised-2 created');
    expectError(await k(['create', 'configmap', 'raised-3'], { reject: false }), refusedConfigMap('raised-3', cluster, limit + 2, limit + 2));

    await annotate(cluster, '0');
    expect((await k(['create', 'configmap', 'unlimited'])).stdout).toBe('configmap/unlimited created');

    // Lowered below what the cluster holds: the message shows the real count.
    await annotate(cluster, '5');
    expectError(await k(['create', 'configmap', 'lowered'], { reject: false }), refusedConfigMap('lowered', cluster, limit + 3, 5));

    // Without the annotation the flag applies again.
    await annotate(cluster, null);
    expectError(await k(['create', 'configmap', 'flag'], { reject: false }), refusedConfigMap('flag', cluster, limit + 3, limit));

    // The other clusters keep their own count.
    expect((await e2e.k('root')(['create', 'configmap', uniqueName('root')])).stdout).toMatch(/^configmap\/root-\S+ created$/);
  });

  it('an annotation on root caps root too, and removing it lifts the cap', async () => {
    const k = e2e.k('root');
    await annotate('root', '1');
    try {
      expectError(
        await k(['create', 'configmap', 'capped'], { reject: false }),
        // Root holds an unknown number of bootstrap objects: the count is whatever it is, the cap is 1.
        new RegExp(`^${escapeRegExp(refusedConfigMap('capped', 'root', 'COUNT', 1)).replace('COUNT', '\\d+')}$`),
      );
    } finally {
      await annotate('root', null);
    }
    expect((await k(['create', 'configmap', 'capped'])).stdout).toBe('configmap/capped created');
  });
});

describe('the object count limit across a restart', () => {
  it('a full logical cluster is still full after the server restarts, and a delete still frees room', async () => {
    const cluster = uniqueClusterName();
    await createLogicalCluster(e2e.server, cluster);
    const k = e2e.k(cluster);
    await annotate(cluster, '4');
    const { refused, name } = await fill(k, 'before', limit);
    expectError(refused, refusedConfigMap(name, cluster, 4, 4));
    await e2e.server.restart();
    expectError(await k(['create', 'configmap', 'after'], { reject: false }), refusedConfigMap('after', cluster, 4, 4));
    await k(['delete', 'configmap', 'before-0']);
    expect((await k(['create', 'configmap', 'after'])).stdout).toBe('configmap/after created');
    expectError(await k(['create', 'configmap', 'after-2'], { reject: false }), refusedConfigMap('after-2', cluster, 4, 4));
  }, 120_000);

  it('creates sent at once stop exactly at the cap (each admitted against those before it in its turn), the rest refused with kcp’s 403', async () => {
    const cluster = uniqueClusterName();
    await createLogicalCluster(e2e.server, cluster);
    await annotate(cluster, '6');
    const collection = `/clusters/${cluster}/api/v1/namespaces/default/configmaps`;
    const body = (name: string) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => apiRequest(e2e.server, collection, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(`burst-${i}`) })),
    );
    const created = answers.filter((a) => a.status === 201).length;
    expect(created).toBeGreaterThan(0);
    for (const refused of answers.filter((a) => a.status !== 201)) {
      expect(refused.status).toBe(403);
      expect(refused.json().message).toContain(full(cluster, 6, 6));
    }
    const listed = (await apiRequest(e2e.server, collection)).json().items as Array<{ metadata: { name: string } }>;
    expect(listed.filter((cm) => cm.metadata.name.startsWith('burst-'))).toHaveLength(created);
    // Full, by the count kept in storage: the next create is refused at 6/6.
    expectError(await e2e.k(cluster)(['create', 'configmap', 'one-more'], { reject: false }), refusedConfigMap('one-more', cluster, 6, 6));
  });

  it('the server starts with a full root (its bootstrap does not create what already exists)', async () => {
    await annotate('root', '1');
    try {
      await e2e.server.restart();
      expectError(
        await e2e.k('root')(['create', 'configmap', 'full-root'], { reject: false }),
        new RegExp(`^${escapeRegExp(refusedConfigMap('full-root', 'root', 'COUNT', 1)).replace('COUNT', '\\d+')}$`),
      );
    } finally {
      await annotate('root', null);
    }
    expect((await e2e.k('root')(['create', 'configmap', 'full-root'])).stdout).toBe('configmap/full-root created');
  }, 120_000);
});

describe.each(matrixBinaries())('the object count limit with kubectl $version', ({ path: binary }) => {
  it('refuses create -f and the typed generator with kcp’s message', async () => {
    const cluster = uniqueClusterName();
    await createLogicalCluster(e2e.server, cluster);
    const k: ClusterKubectl = (args, opts) => e2e.k(cluster)(args, { ...opts, binary });
    await annotate(cluster, '3'); // LogicalCluster + namespace default + one more
    const first = await fill(k, 'v', limit);
    expectError(first.refused, refusedConfigMap(first.name, cluster, 3, 3));
    const manifest = yaml({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot', namespace: 'default' } });
    expectError(
      await k(['create', '-f', '-'], { input: manifest, reject: false }),
      `Error from server (Forbidden): error when creating "STDIN": serviceaccounts "robot" is forbidden: ${full(cluster, 3, 3)}`,
    );
  });
});
