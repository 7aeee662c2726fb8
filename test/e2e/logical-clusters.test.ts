/**
 * Issue 2, logical clusters seen with the real kubectl: the admin kubeconfig's layout, LogicalCluster objects,
 * strict isolation of objects between clusters that use the same names, making a new cluster, the `*`
 * wildcard for system:masters, and requests to a cluster that does not exist.
 */
import { describe, expect, it } from 'vitest';
import {
  clusterUrl,
  inCluster,
  kubectl,
  kubectlBackground,
  tempFile,
  uniqueClusterName,
  uniqueName,
} from '../helpers/kubectl.js';
import { waitFor } from '../../src/testing/wait-for.js';
import { freshAge, parseTable } from '../helpers/table.js';
import { expectError, expectNotFound, lines, useE2EServer } from '../helpers/suite.js';

const e2e = useE2EServer();

describe('admin.kubeconfig', () => {
  it("has kcp's contexts, root current", async () => {
    const run = (args: string[]) => kubectl(e2e.server, args);
    expect(lines((await run(['config', 'get-contexts', '-o', 'name'])).stdout).sort()).toEqual([
      'base',
      'root',
      'shard-base',
      'system:admin',
    ]);
    expect((await run(['config', 'current-context'])).stdout).toBe('root');
    const server = (context: string) =>
      run(['config', 'view', '--minify', '--context', context, '-o', 'jsonpath={.clusters[0].cluster.server}']);
    expect((await server('root')).stdout).toBe(`${e2e.server.url}/clusters/root`);
    expect((await server('base')).stdout).toBe(e2e.server.url);
    expect((await server('shard-base')).stdout).toBe(e2e.server.url);
    expect((await server('system:admin')).stdout).toBe(`${e2e.server.url}/clusters/system:admin`);
    const user = (context: string) =>
      run(['config', 'view', '--minify', '--context', context, '-o', 'jsonpath={.contexts[0].context.user}']);
    expect((await user('root')).stdout).toBe('kcp-admin');
    expect((await user('base')).stdout).toBe('kcp-admin');
    expect((await user('shard-base')).stdout).toBe('shard-admin');
    expect((await user('system:admin')).stdout).toBe('shard-admin');
  });

  it('the base context reaches the server', async () => {
    const { stdout } = await kubectl(e2e.server, ['--context', 'base', 'version']);
    expect(lines(stdout)).toContainEqual(expect.stringMatching(/^Server Version: v1\.32\.\d+/));
  });
});

describe.each(e2e.clusters)('the LogicalCluster of $label', ({ name: cluster }) => {
  it('is named cluster and carries kcp.io/cluster', async () => {
    const k = e2e.k(cluster);
    const obj = JSON.parse((await k(['get', 'logicalcluster', 'cluster', '-o', 'json'])).stdout);
    expect(obj).toMatchObject({
      apiVersion: 'core.kcp.io/v1alpha1',
      kind: 'LogicalCluster',
      metadata: { name: 'cluster', annotations: { 'kcp.io/cluster': cluster } },
    });
    const table = parseTable((await k(['get', 'logicalclusters'])).stdout);
    expect(table.header).toEqual(['NAME', 'PHASE', 'URL', 'AGE']);
    expect(table.rows.map((r) => r[0])).toEqual(['cluster']);
    if (cluster !== 'root') expect(table.records[0]!.AGE).toMatch(freshAge);
  });
});

describe('isolation between logical clusters', () => {
  const root = () => e2e.k('root');
  const second = () => e2e.k(e2e.second);

  it('the same namespace and configmap names hold different objects', async () => {
    const ns = uniqueName('shared');
    for (const [k, label] of [[root(), 'root'], [second(), 'second']] as const) {
      await k(['create', 'namespace', ns]);
      await k(['create', 'configmap', 'same', '-n', ns, `--from-literal=owner=${label}`]);
    }
    const objects = await Promise.all(
      [root(), second()].map(async (k) => JSON.parse((await k(['get', 'cm', 'same', '-n', ns, '-o', 'json'])).stdout)),
    );
    expect(objects.map((o) => o.data.owner)).toEqual(['root', 'second']);
    expect(objects.map((o) => o.metadata.annotations['kcp.io/cluster'])).toEqual(['root', e2e.second]);
    expect(objects[0].metadata.uid).not.toBe(objects[1].metadata.uid);

    // Changing one leaves the other untouched.
    await root()(['replace', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'same', namespace: ns, labels: { changed: 'yes' } },
        data: { owner: 'root' },
      }),
    });
    const after = JSON.parse((await second()(['get', 'cm', 'same', '-n', ns, '-o', 'json'])).stdout);
    expect(after.metadata.resourceVersion).toBe(objects[1].metadata.resourceVersion);
    expect(after.metadata.labels).toBeUndefined();

    // Lists only hold the cluster's own object.
    for (const [k, owner] of [[root(), 'root'], [second(), 'second']] as const) {
      const out = await k(['get', 'cm', '-A', '--field-selector', 'metadata.name=same', '-o', 'jsonpath={range .items[*]}{.metadata.namespace}/{.data.owner}{"\\n"}{end}']);
      expect(lines(out.stdout)).toEqual([`${ns}/${owner}`]);
    }
  });

  it('cluster-scoped objects are per cluster too', async () => {
    const onlyRoot = uniqueName('onlyroot');
    await root()(['create', 'namespace', onlyRoot]);
    await expectNotFound(second(), 'ns', onlyRoot);
    const names = lines((await second()(['get', 'ns', '-o', 'name'])).stdout);
    expect(names).not.toContain(`namespace/${onlyRoot}`);
    expect(names).toContain('namespace/default');

    const role = uniqueName('role');
    await root()(['create', 'clusterrole', role, '--verb=get', '--resource=configmaps']);
    await second()(['create', 'clusterrole', role, '--verb=list', '--resource=secrets']);
    const rules = async (k: ReturnType<typeof root>) =>
      JSON.parse((await k(['get', 'clusterrole', role, '-o', 'json'])).stdout).rules;
    expect(await rules(root())).toEqual([{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]);
    expect(await rules(second())).toEqual([{ apiGroups: [''], resources: ['secrets'], verbs: ['list'] }]);
  });

  it('a new logical cluster starts empty', async () => {
    const mark = uniqueName('mark');
    await root()(['create', '-f', '-'], { input: labelledCm(mark, mark) });
    // Made with kubectl as system:masters (the other files make theirs over the API): the namespace default comes
    // from the server, not from the one who made the cluster.
    const third = uniqueClusterName();
    const logicalCluster = ['apiVersion: core.kcp.io/v1alpha1', 'kind: LogicalCluster', 'metadata:', '  name: cluster', ''].join('\n');
    await kubectl(e2e.server, ['--context', 'shard-base', '--server', clusterUrl(e2e.server, third), 'create', '-f', '-'], { input: logicalCluster });
    const k = inCluster(e2e.server, third);
    await waitFor(() => k(['get', 'namespace', 'default', '-o', 'name']), { timeout: 10_000, interval: 200, message: `namespace default in ${third}` });
    const cms = await k(['get', 'cm', '-A', '-l', `mark=${mark}`]);
    expect(cms.stdout).toBe('');
    expect(lines(cms.stderr)).toEqual(['No resources found']);
    await expectNotFound(k, 'cm', mark, 'default');
    const logical = JSON.parse((await k(['get', 'logicalcluster', 'cluster', '-o', 'json'])).stdout);
    expect(logical.metadata.annotations['kcp.io/cluster']).toBe(third);
  });
});

describe('the * wildcard (system:masters)', () => {
  const asShardAdmin = (args: string[], opts?: Parameters<typeof kubectl>[2]) =>
    kubectl(e2e.server, ['--context', 'shard-base', ...args], opts);

  it('lists configmaps across logical clusters, each annotated with its cluster', async () => {
    const mark = uniqueName('wild');
    for (const cluster of ['root', e2e.second]) {
      const k = e2e.k(cluster);
      await k(['create', '-f', '-'], { input: labelledCm(mark, mark) });
    }
    const list = JSON.parse(
      (await asShardAdmin(['get', '--raw', `/clusters/*/api/v1/configmaps?labelSelector=mark%3D${mark}`])).stdout,
    );
    expect(list.kind).toBe('ConfigMapList');
    expect(list.metadata.resourceVersion).toMatch(/^[1-9]\d*$/);
    const seen = (list.items as any[])
      .map((i) => [i.metadata.annotations['kcp.io/cluster'], i.metadata.namespace, i.metadata.name])
      .sort();
    expect(seen).toEqual([
      ['root', 'default', mark],
      [e2e.second, 'default', mark],
    ].sort());
  });

  it('watches across logical clusters', async () => {
    const mark = uniqueName('wwatch');
    const watch = kubectlBackground(e2e.server, [
      '--context', 'shard-base', 'get', '--raw', `/clusters/*/api/v1/configmaps?watch=true&labelSelector=mark%3D${mark}`,
    ]);
    try {
      for (const cluster of ['root', e2e.second]) {
        await e2e.k(cluster)(['create', '-f', '-'], {
          input: JSON.stringify({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: mark, namespace: 'default', labels: { mark } },
          }),
        });
      }
      await watch.waitForLine(new RegExp(`"kcp.io/cluster":"${e2e.second}"`));
      await watch.waitForLine(/"kcp.io\/cluster":"root"/);
    } finally {
      await watch.stop();
    }
    const events = watch.lines().map((l) => JSON.parse(l));
    expect(events.map((e) => [e.type, e.object.metadata.annotations['kcp.io/cluster']]).sort()).toEqual(
      [
        ['ADDED', 'root'],
        ['ADDED', e2e.second],
      ].sort(),
    );
  });

  it('refuses writes with MethodNotAllowed', async () => {
    const file = await tempFile(
      'wild.json',
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: uniqueName('nowrite') } }),
    );
    const result = await asShardAdmin(['create', '--raw', '/clusters/*/api/v1/namespaces/default/configmaps', '-f', file], {
      reject: false,
    });
    expectError(result, /^Error from server \(MethodNotAllowed\)/);
  });
});

describe('a logical cluster that does not exist', () => {
  it('is refused, and nothing is made by asking', async () => {
    const missing = uniqueClusterName();
    const result = await kubectl(
      e2e.server,
      ['--context', 'base', 'get', '--raw', `/clusters/${missing}/api/v1/namespaces/default/configmaps`],
      { reject: false },
    );
    expectError(result, /^Error from server \((Forbidden|NotFound)\)/);
    // A system:masters user still sees nothing there: no LogicalCluster, no objects.
    const asMaster = await kubectl(
      e2e.server,
      ['--context', 'shard-base', '--server', clusterUrl(e2e.server, missing), 'get', '--raw',
        `/clusters/${missing}/apis/core.kcp.io/v1alpha1/logicalclusters`],
      { reject: false },
    );
    if (asMaster.exitCode === 0) expect(JSON.parse(asMaster.stdout).items).toEqual([]);
  });

  it('rejects malformed cluster names', async () => {
    const result = await kubectl(e2e.server, ['--context', 'base', 'get', '--raw', '/clusters/Not_A_Name/api'], {
      reject: false,
    });
    expectError(result, /^Error from server \((BadRequest|NotFound|Forbidden)\)/);
  });
});

function labelledCm(name: string, mark: string): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default', labels: { mark } },
    data: { m: mark },
  });
}
