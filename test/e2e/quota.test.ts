/**
 * ResourceQuota object counts with the real kubectl, in root and in a second logical cluster: `kubectl create
 * quota`, the 403 kube answers when a create would go over, Used/Hard in `get quota` and `describe quota` going up
 * with creates and down after deletes, `count/<plural>.<group>` for a custom resource, and isolation between
 * namespaces and logical clusters. Key cases again with each kubectl of the matrix.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { until } from '../helpers/eventually.js';
import { matrixBinaries, uniqueName, type ClusterKubectl, type KubectlResult } from '../helpers/kubectl.js';
import { expectError, lines, useE2EServer } from '../helpers/suite.js';
import { parseTable } from '../helpers/table.js';
import { applyCRD, crdObject, yaml, type Json } from './crds-fixtures.js';

const e2e = useE2EServer();

const exceeded = (subject: string, quota: string, names: string[], used: number, hard: number) =>
  `${subject} is forbidden: exceeded quota: ${quota}, ` +
  `requested: ${names.map((n) => `${n}=1`).join(',')}, ` +
  `used: ${names.map((n) => `${n}=${used}`).join(',')}, ` +
  `limited: ${names.map((n) => `${n}=${hard}`).join(',')}`;

const gizmoCRD = (group: string) =>
  crdObject({
    group,
    plural: 'gizmos',
    kind: 'Gizmo',
    schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } },
  });

/** Number of objects `kubectl get <resource> -n <ns> -o name` lists (what a namespace already holds). */
async function countOf(k: ClusterKubectl, resource: string, ns: string): Promise<number> {
  return lines((await k(['get', resource, '-n', ns, '-o', 'name'])).stdout).length;
}

/** `describe quota` rows below the header as [resource, used, hard]. */
function describedRows(result: KubectlResult): string[][] {
  const all = lines(result.stdout);
  const start = all.findIndex((l) => /^-+\s+-+\s+-+$/.test(l));
  return all.slice(start + 1).map((l) => l.trim().split(/\s+/));
}

/** Waits until the quota's REQUEST column reads `want` (the controller publishes status right after writes). */
async function waitForRequest(k: ClusterKubectl, ns: string, quota: string, want: string): Promise<void> {
  let last = '';
  await until(
    async () => {
      const table = parseTable((await k(['get', 'quota', quota, '-n', ns])).stdout);
      last = table.records[0]?.REQUEST ?? '';
      return last === want;
    },
    () => `quota ${quota} REQUEST "${want}" (last: "${last}")`,
  );
}

describe.each(e2e.clusters)('ResourceQuota object counts in $label', ({ name: cluster }) => {
  const k: ClusterKubectl = (args, opts) => e2e.k(cluster)(args, opts);
  const other: ClusterKubectl = (args, opts) => e2e.k(e2e.other(cluster))(args, opts);
  const ns = uniqueName('quota');

  beforeAll(async () => {
    await k(['create', 'namespace', ns]);
  }, 60_000);

  it('create quota, get/describe show Used/Hard, the create over the limit gets kube’s 403, a delete frees room', async () => {
    // Whatever the namespace already holds (a published kube-root-ca.crt, say) counts too.
    const cms = await countOf(k, 'configmaps', ns);
    const secrets = await countOf(k, 'secrets', ns);
    const cmHard = cms + 2;
    const secretHard = secrets + 1;
    expect((await k(['create', 'quota', 'q', '-n', ns, `--hard=configmaps=${cmHard},count/secrets=${secretHard}`])).stdout).toBe(
      'resourcequota/q created',
    );
    await waitForRequest(k, ns, 'q', `configmaps: ${cms}/${cmHard}, count/secrets: ${secrets}/${secretHard}`);
    const table = parseTable((await k(['get', 'quota', '-n', ns])).stdout);
    expect(table.header).toEqual(['NAME', 'AGE', 'REQUEST', 'LIMIT']);
    expect(table.records.map((r) => [r.NAME, r.REQUEST, r.LIMIT])).toEqual([
      ['q', `configmaps: ${cms}/${cmHard}, count/secrets: ${secrets}/${secretHard}`, ''],
    ]);

    expect((await k(['create', 'configmap', 'a', '-n', ns])).stdout).toBe('configmap/a created');
    expect((await k(['create', 'configmap', 'b', '-n', ns])).stdout).toBe('configmap/b created');
    expectError(
      await k(['create', 'configmap', 'c', '-n', ns], { reject: false }),
      `error: failed to create configmap: ${exceeded('configmaps "c"', 'q', ['configmaps'], cmHard, cmHard)}`,
    );
    const manifest = yaml({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'd', namespace: ns } });
    expectError(
      await k(['create', '-f', '-'], { input: manifest, reject: false }),
      `Error from server (Forbidden): error when creating "STDIN": ${exceeded('configmaps "d"', 'q', ['configmaps'], cmHard, cmHard)}`,
    );
    expect((await k(['create', 'secret', 'generic', 's1', '-n', ns])).stdout).toBe('secret/s1 created');
    expectError(
      await k(['create', 'secret', 'generic', 's2', '-n', ns], { reject: false }),
      `error: failed to create secret ${exceeded('secrets "s2"', 'q', ['count/secrets'], secretHard, secretHard)}`,
    );
    await expectNoObject(k, 'configmap', 'c', ns);

    // Admission charged status.used as it admitted: no wait needed for the full quota.
    expect(parseTable((await k(['get', 'quota', 'q', '-n', ns])).stdout).records[0]?.REQUEST).toBe(
      `configmaps: ${cmHard}/${cmHard}, count/secrets: ${secretHard}/${secretHard}`,
    );
    const described = await k(['describe', 'quota', 'q', '-n', ns]);
    expect(lines(described.stdout).slice(0, 2).map((l) => l.split(/\s+/))).toEqual([
      ['Name:', 'q'],
      ['Namespace:', ns],
    ]);
    expect(describedRows(described)).toEqual([
      ['configmaps', String(cmHard), String(cmHard)],
      ['count/secrets', String(secretHard), String(secretHard)],
    ]);

    expect((await k(['delete', 'configmap', 'a', '-n', ns])).stdout).toBe('configmap "a" deleted');
    await waitForRequest(k, ns, 'q', `configmaps: ${cmHard - 1}/${cmHard}, count/secrets: ${secretHard}/${secretHard}`);
    expect(describedRows(await k(['describe', 'quota', 'q', '-n', ns]))).toEqual([
      ['configmaps', String(cmHard - 1), String(cmHard)],
      ['count/secrets', String(secretHard), String(secretHard)],
    ]);
    expect((await k(['create', 'configmap', 'c', '-n', ns])).stdout).toBe('configmap/c created');
    expectError(
      await k(['create', 'configmap', 'e', '-n', ns], { reject: false }),
      `error: failed to create configmap: ${exceeded('configmaps "e"', 'q', ['configmaps'], cmHard, cmHard)}`,
    );
  });

  it('a quota counts only its own namespace in its own logical cluster', async () => {
    const quotaNs = uniqueName('quota-iso');
    const neighbour = uniqueName('quota-nb');
    await k(['create', 'namespace', quotaNs]);
    await k(['create', 'namespace', neighbour]);
    await other(['create', 'namespace', quotaNs]);
    const base = await countOf(k, 'configmaps', quotaNs);
    await k(['create', 'quota', 'only-here', '-n', quotaNs, `--hard=count/configmaps=${base + 1}`]);
    await waitForRequest(k, quotaNs, 'only-here', `count/configmaps: ${base}/${base + 1}`);
    for (const name of ['x', 'y', 'z']) {
      await k(['create', 'configmap', name, '-n', neighbour]);
      await other(['create', 'configmap', name, '-n', quotaNs]);
    }
    expect(parseTable((await k(['get', 'quota', 'only-here', '-n', quotaNs])).stdout).records[0]?.REQUEST).toBe(
      `count/configmaps: ${base}/${base + 1}`,
    );
    // The other cluster's namespace of the same name has no quota at all.
    expect((await other(['get', 'quota', '-n', quotaNs], { reject: false })).stderr).toContain(`No resources found in ${quotaNs} namespace.`);
    await k(['create', 'configmap', 'x', '-n', quotaNs]);
    expectError(
      await k(['create', 'configmap', 'y', '-n', quotaNs], { reject: false }),
      `error: failed to create configmap: ${exceeded('configmaps "y"', 'only-here', ['count/configmaps'], base + 1, base + 1)}`,
    );
  });

  it('count/<plural>.<group> limits a custom resource', async () => {
    const group = 'quota.example.com';
    const crNs = uniqueName('quota-cr');
    await applyCRD(k, gizmoCRD(group));
    await k(['create', 'namespace', crNs]);
    const resource = `count/gizmos.${group}`;
    await k(['create', '-n', crNs, '-f', '-'], {
      input: yaml({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'crs' }, spec: { hard: { [resource]: '1' } } }),
    });
    await waitForRequest(k, crNs, 'crs', `${resource}: 0/1`);
    const gizmo = (name: string): string => yaml({ apiVersion: `${group}/v1`, kind: 'Gizmo', metadata: { name }, spec: { size: 1 } } as Json);
    expect((await k(['create', '-n', crNs, '-f', '-'], { input: gizmo('g1') })).stdout).toBe(`gizmo.${group}/g1 created`);
    expectError(
      await k(['create', '-n', crNs, '-f', '-'], { input: gizmo('g2'), reject: false }),
      `Error from server (Forbidden): error when creating "STDIN": ${exceeded(`gizmos.${group} "g2"`, 'crs', [resource], 1, 1)}`,
    );
    expect(parseTable((await k(['get', 'quota', 'crs', '-n', crNs])).stdout).records[0]?.REQUEST).toBe(`${resource}: 1/1`);
    // Other kinds are not counted by it.
    expect((await k(['create', 'configmap', 'free', '-n', crNs])).stdout).toBe('configmap/free created');
    await k(['delete', `gizmos.${group}`, 'g1', '-n', crNs]);
    await waitForRequest(k, crNs, 'crs', `${resource}: 0/1`);
  });

  it('all quotas of a namespace apply together', async () => {
    const both = uniqueName('quota-two');
    await k(['create', 'namespace', both]);
    const base = await countOf(k, 'configmaps', both);
    await k(['create', 'quota', 'wide', '-n', both, `--hard=configmaps=${base + 10}`]);
    await k(['create', 'quota', 'narrow', '-n', both, `--hard=count/configmaps=${base + 1}`]);
    await waitForRequest(k, both, 'narrow', `count/configmaps: ${base}/${base + 1}`);
    await waitForRequest(k, both, 'wide', `configmaps: ${base}/${base + 10}`);
    await k(['create', 'configmap', 'one', '-n', both]);
    expectError(
      await k(['create', 'configmap', 'two', '-n', both], { reject: false }),
      `error: failed to create configmap: ${exceeded('configmaps "two"', 'narrow', ['count/configmaps'], base + 1, base + 1)}`,
    );
    expect(parseTable((await k(['get', 'quota', 'wide', '-n', both])).stdout).records[0]?.REQUEST).toBe(
      `configmaps: ${base + 1}/${base + 10}`,
    );
  });
});

describe.each(matrixBinaries())('ResourceQuota with kubectl $version', ({ path: binary }) => {
  const k: ClusterKubectl = (args, opts) => e2e.k(e2e.second)(args, { ...opts, binary });
  const ns = uniqueName('quota-v');

  it('quota from YAML, Used/Hard, the 403 and replenishment after a delete', async () => {
    await k(['create', 'namespace', ns]);
    const base = await countOf(k, 'configmaps', ns);
    const hard = base + 1;
    const quota = yaml({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'objects', namespace: ns }, spec: { hard: { configmaps: String(hard) } } });
    expect((await k(['apply', '-f', '-'], { input: quota })).stdout).toBe('resourcequota/objects created');
    await waitForRequest(k, ns, 'objects', `configmaps: ${base}/${hard}`);
    expect((await k(['create', 'configmap', 'first', '-n', ns])).stdout).toBe('configmap/first created');
    expectError(
      await k(['create', 'configmap', 'second', '-n', ns], { reject: false }),
      `error: failed to create configmap: ${exceeded('configmaps "second"', 'objects', ['configmaps'], hard, hard)}`,
    );
    expect(describedRows(await k(['describe', 'quota', 'objects', '-n', ns]))).toEqual([['configmaps', String(hard), String(hard)]]);
    await k(['delete', 'configmap', 'first', '-n', ns]);
    await waitForRequest(k, ns, 'objects', `configmaps: ${base}/${hard}`);
    expect((await k(['create', 'configmap', 'second', '-n', ns])).stdout).toBe('configmap/second created');
  });
});

async function expectNoObject(k: ClusterKubectl, resource: string, name: string, ns: string): Promise<void> {
  expectError(await k(['get', resource, name, '-n', ns], { reject: false }), `Error from server (NotFound): ${resource}s "${name}" not found`);
}
