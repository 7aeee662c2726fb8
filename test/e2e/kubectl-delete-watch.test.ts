/**
 * Issue 2, delete / finalizers / namespace lifecycle / wait / watch with the real kubectl, in root and in a
 * second logical cluster.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import { clusterArgs, kubectlBackground, sleep, tempFile, uniqueName, type ClusterKubectl } from '../helpers/kubectl.js';
import { until } from '../helpers/eventually.js';
import { words } from '../helpers/table.js';
import { expectError, expectNotFound, lines, useE2EServer } from '../helpers/suite.js';

const e2e = useE2EServer();

describe.each(e2e.clusters)('kubectl delete, wait and watch in $label', ({ name: cluster }) => {
  const k: ClusterKubectl = (args, opts) => e2e.k(cluster)(args, opts);
  const other: ClusterKubectl = (args, opts) => e2e.k(e2e.other(cluster))(args, opts);
  const background = (args: string[]) => {
    e2e.ensure(cluster);
    return kubectlBackground(e2e.server, [...clusterArgs(e2e.server, cluster), ...args]);
  };
  const ns = uniqueName('del');

  const getJson = async (args: string[]) => JSON.parse((await k(['get', ...args, '-o', 'json'])).stdout);
  const createCm = (name: string, extra: string[] = [], namespace = ns) =>
    k(['create', 'configmap', name, '-n', namespace, '--from-literal=a=1', ...extra]);
  interface CmSpec {
    namespace?: string;
    data?: Record<string, string>;
    labels?: Record<string, string>;
    finalizers?: string[];
  }
  const cmJson = (name: string, spec: CmSpec) =>
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: spec.namespace ?? ns, labels: spec.labels, finalizers: spec.finalizers },
      data: spec.data ?? { a: '1' },
    });
  /** Setup without PATCH (so only the patch tests fail when patching is broken): create -f / replace -f. */
  const createCmFrom = (name: string, spec: CmSpec = {}) => k(['create', '-f', '-'], { input: cmJson(name, spec) });
  const replaceCm = (name: string, spec: CmSpec = {}) => k(['replace', '-f', '-'], { input: cmJson(name, spec) });
  const createHeld = async (name: string, namespace = ns) => {
    const file = await tempFile(
      'held.yaml',
      toYaml({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace, finalizers: ['example.com/hold'] },
        data: { a: '1' },
      }),
    );
    await k(['create', '-f', file]);
  };
  /** Our rows only: the server may publish objects of its own (kube-root-ca.crt) into namespaces. */
  const notServerOwned = (line: string) => !line.includes('kube-root-ca.crt');

  beforeAll(async () => {
    await k(['create', 'namespace', ns]);
  }, 60_000);

  describe('delete', () => {
    it('plain', async () => {
      const name = uniqueName('plain');
      await createCm(name);
      expect((await k(['delete', 'cm', name, '-n', ns])).stdout).toBe(`configmap "${name}" deleted`);
      await expectNotFound(k, 'cm', name, ns);
      expectError(
        await k(['delete', 'cm', name, '-n', ns], { reject: false }),
        `Error from server (NotFound): configmaps "${name}" not found`,
      );
    });

    it('-l deletes exactly the selected objects', async () => {
      const tag = uniqueName('sel');
      const [a, b, c] = [uniqueName('la'), uniqueName('lb'), uniqueName('lc')];
      await createCmFrom(a, { labels: { tag } });
      await createCmFrom(b, { labels: { tag } });
      await createCmFrom(c, { labels: { tag: 'other' } });
      const result = await k(['delete', 'cm', '-n', ns, '-l', `tag=${tag}`]);
      expect(lines(result.stdout)).toEqual([`configmap "${a}" deleted`, `configmap "${b}" deleted`]);
      await expectNotFound(k, 'cm', a, ns);
      await expectNotFound(k, 'cm', b, ns);
      expect((await k(['get', 'cm', c, '-n', ns, '-o', 'name'])).stdout).toBe(`configmap/${c}`);
    });

    it('--all empties a namespace of one kind only', async () => {
      const box = uniqueName('all');
      await k(['create', 'namespace', box]);
      for (const name of ['one', 'two', 'three']) await createCm(name, [], box);
      await k(['create', 'secret', 'generic', 'stays', '-n', box, '--from-literal=k=v']);
      const result = await k(['delete', 'cm', '--all', '-n', box]);
      expect(lines(result.stdout).filter(notServerOwned)).toEqual([
        'configmap "one" deleted',
        'configmap "three" deleted',
        'configmap "two" deleted',
      ]);
      const left = await k(['get', 'cm', '-n', box, '-o', 'name']);
      expect(lines(left.stdout).filter(notServerOwned)).toEqual([]);
      expect((await k(['get', 'secret', 'stays', '-n', box, '-o', 'name'])).stdout).toBe('secret/stays');
    });

    it('with a finalizer: stays with deletionTimestamp until the finalizer is removed', async () => {
      const name = uniqueName('held');
      await createHeld(name);
      expect((await k(['delete', 'cm', name, '-n', ns, '--wait=false'])).stdout).toBe(`configmap "${name}" deleted`);

      const held = await getJson(['cm', name, '-n', ns]);
      expect(held.metadata.deletionTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(held.metadata.finalizers).toEqual(['example.com/hold']);
      expect(held.data).toEqual({ a: '1' });

      // Deleting again is a no-op that keeps the object.
      await k(['delete', 'cm', name, '-n', ns, '--wait=false']);
      expect((await getJson(['cm', name, '-n', ns])).metadata.deletionTimestamp).toBe(held.metadata.deletionTimestamp);

      // No new finalizers while deleting.
      const added = await k(
        ['patch', 'cm', name, '-n', ns, '--type', 'merge', '-p', '{"metadata":{"finalizers":["example.com/hold","example.com/more"]}}'],
        { reject: false },
      );
      expect(added.exitCode).not.toBe(0);
      expect(added.stderr).toMatch(/no new finalizers can be added if the object is being deleted/);

      expect(
        (await k(['patch', 'cm', name, '-n', ns, '--type', 'merge', '-p', '{"metadata":{"finalizers":null}}'])).stdout,
      ).toBe(`configmap/${name} patched`);
      await expectNotFound(k, 'cm', name, ns);
    });

    it('namespace with contents: returns, and the namespace and its objects are gone', async () => {
      const box = uniqueName('doomed');
      const mark = uniqueName('mark');
      await k(['create', 'namespace', box]);
      await createCmFrom('c1', { namespace: box, labels: { mark } });
      await createCmFrom('c2', { namespace: box, labels: { mark } });
      await k(['create', 'secret', 'generic', 's1', '-n', box, '--from-literal=k=v']);
      await k(['create', 'serviceaccount', 'robot', '-n', box]);

      const result = await k(['delete', 'namespace', box], { timeoutMs: 40_000 });
      expect(result.stdout).toBe(`namespace "${box}" deleted`);
      await expectNotFound(k, 'ns', box);
      const raw = JSON.parse((await k(['get', '--raw', `/clusters/${cluster}/api/v1/namespaces/${box}/configmaps`])).stdout);
      expect(raw.items).toEqual([]);
      const gone = await k(['get', 'cm', '-A', '-l', `mark=${mark}`]);
      expect(gone.stdout).toBe('');
      expect(lines(gone.stderr)).toEqual(['No resources found']);
      // A namespace of the same name can be made again, empty.
      await k(['create', 'namespace', box]);
      expect(JSON.parse((await k(['get', 'secrets', '-n', box, '-o', 'json'])).stdout).items).toEqual([]);
    });

    it('a namespace held by finalizers says what remains, in kube’s words, until they are removed', async () => {
      const box = uniqueName('held');
      await k(['create', 'namespace', box]);
      await createCmFrom('c1', { namespace: box, finalizers: ['example.com/hold'] });
      await createCmFrom('c2', { namespace: box, finalizers: ['example.com/hold', 'example.com/audit'] });
      await k(['create', 'secret', 'generic', 's1', '-n', box, '--from-literal=k=v']);
      await k(['patch', 'secret', 's1', '-n', box, '--type', 'merge', '-p', '{"metadata":{"finalizers":["example.com/hold"]}}']);
      expect((await k(['delete', 'namespace', box, '--wait=false'])).stdout).toBe(`namespace "${box}" deleted`);
      const conditions = async () => {
        const got = (await getJson(['namespace', box])) as { status: { conditions?: Array<{ type: string; status: string; message: string }> } };
        return Object.fromEntries((got.status.conditions ?? []).map((c) => [c.type, `${c.status} ${c.message}`]));
      };
      let seen: Record<string, string> = {};
      await until(async () => (seen = await conditions()).NamespaceFinalizersRemaining !== undefined, () => `conditions of ${box}: ${JSON.stringify(seen)}`);
      expect(seen).toMatchObject({
        NamespaceContentRemaining: 'True Some resources are remaining: configmaps. has 2 resource instances, secrets. has 1 resource instances',
        NamespaceFinalizersRemaining:
          'True Some content in the namespace has finalizers remaining: example.com/audit in 1 resource instances, example.com/hold in 3 resource instances',
      });
      for (const [kind, name] of [['cm', 'c1'], ['cm', 'c2'], ['secret', 's1']] as const) {
        await k(['patch', kind, name, '-n', box, '--type', 'merge', '-p', '{"metadata":{"finalizers":null}}']);
      }
      await k(['wait', '--for=delete', `namespace/${box}`, '--timeout=30s']);
    });

    it('the default namespace may not be deleted', async () => {
      expectError(
        await k(['delete', 'namespace', 'default'], { reject: false }),
        'Error from server (Forbidden): namespaces "default" is forbidden: this namespace may not be deleted',
      );
    });

    it('deleting here leaves a same-named object in the other cluster alone', async () => {
      const box = uniqueName('twin');
      await k(['create', 'namespace', box]);
      await other(['create', 'namespace', box]);
      await createCm('twin', [], box);
      await other(['create', 'configmap', 'twin', '-n', box, '--from-literal=a=other']);
      await k(['delete', 'cm', 'twin', '-n', box]);
      await expectNotFound(k, 'cm', 'twin', box);
      expect((await other(['get', 'cm', 'twin', '-n', box, '-o', 'jsonpath={.data.a}'])).stdout).toBe('other');
      await k(['delete', 'namespace', box]);
      expect((await other(['get', 'ns', box, '-o', 'jsonpath={.status.phase}'])).stdout).toBe('Active');
    });
  });

  describe('wait', () => {
    it('--for=delete returns once the finalizer is removed', async () => {
      const name = uniqueName('wait');
      await createHeld(name);
      await k(['delete', 'cm', name, '-n', ns, '--wait=false']);
      const waiting = background(['wait', '--for=delete', `configmap/${name}`, '-n', ns, '--timeout=30s']);
      await sleep(1_500);
      expect(waiting.exited(), `kubectl wait returned early: ${waiting.stdout()} ${waiting.stderr()}`).toBe(false);
      await replaceCm(name); // the same object without its finalizer
      const result = await waiting.done(20_000);
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stdout.trim()).toBe(`configmap/${name} condition met`);
    });

    it('--for=delete on an object that is already gone succeeds at once', async () => {
      const name = uniqueName('gone');
      await createCm(name);
      await k(['delete', 'cm', name, '-n', ns]);
      const result = await k(['wait', '--for=delete', `configmap/${name}`, '-n', ns, '--timeout=5s'], { reject: false });
      expect(result.exitCode, result.stderr).toBe(0);
    });

    it("--for=jsonpath='{.status.phase}'=Active on a namespace", async () => {
      const box = uniqueName('active');
      await k(['create', 'namespace', box]);
      const result = await k(['wait', '--for=jsonpath={.status.phase}=Active', `namespace/${box}`, '--timeout=20s']);
      expect(result.stdout).toBe(`namespace/${box} condition met`);
    });

    it('--for=jsonpath waits for a later change', async () => {
      const name = uniqueName('later');
      await createCm(name);
      const waiting = background(['wait', '--for=jsonpath={.data.state}=ready', `cm/${name}`, '-n', ns, '--timeout=30s']);
      await sleep(1_500);
      expect(waiting.exited(), `kubectl wait returned early: ${waiting.stdout()} ${waiting.stderr()}`).toBe(false);
      await replaceCm(name, { data: { a: '1', state: 'ready' } });
      const result = await waiting.done(20_000);
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stdout.trim()).toBe(`configmap/${name} condition met`);
    });
  });

  describe('get -w --output-watch-events', () => {
    it('prints ADDED, MODIFIED and DELETED rows, and nothing from elsewhere', async () => {
      const box = uniqueName('watch');
      await k(['create', 'namespace', box]);
      await createCm('w0', [], box);
      // The same namespace name and an object in it in the other cluster must never show up.
      await other(['create', 'namespace', box]);

      const watch = background(['get', 'cm', '-n', box, '-w', '--output-watch-events']);
      try {
        await watch.waitForLine(/^ADDED\s+w0\s/);
        await createCm('w1', [], box);
        await watch.waitForLine(/^ADDED\s+w1\s/);
        await replaceCm('w1', { namespace: box, data: { a: '2', b: '3' } });
        await watch.waitForLine(/^MODIFIED\s+w1\s/);
        await other(['create', 'configmap', 'intruder', '-n', box]);
        await k(['delete', 'cm', 'w1', '-n', box]);
        await watch.waitForLine(/^DELETED\s+w1\s/);
        await sleep(300);
      } finally {
        await watch.stop();
      }
      const rows = words(watch.stdout()).filter((r) => !r.includes('kube-root-ca.crt'));
      expect(rows[0]).toEqual(['EVENT', 'NAME', 'DATA', 'AGE']);
      expect(rows.slice(1).map((r) => r.slice(0, 3))).toEqual([
        ['ADDED', 'w0', '1'],
        ['ADDED', 'w1', '1'],
        ['MODIFIED', 'w1', '2'],
        ['DELETED', 'w1', '2'],
      ]);
      expect(watch.stdout()).not.toContain('intruder');
    });

    it('plain -w prints the header once and one row per change', async () => {
      const box = uniqueName('watch');
      await k(['create', 'namespace', box]);
      await createCm('p0', [], box);
      const watch = background(['get', 'cm', '-n', box, '-w']);
      try {
        await watch.waitForLine(/^p0\s/);
        await createCm('p1', [], box);
        await watch.waitForLine(/^p1\s/);
        await sleep(300);
      } finally {
        await watch.stop();
      }
      const rows = words(watch.stdout()).filter((r) => !r.includes('kube-root-ca.crt'));
      expect(rows.map((r) => r.slice(0, 2))).toEqual([
        ['NAME', 'DATA'],
        ['p0', '1'],
        ['p1', '1'],
      ]);
    });
  });
});
