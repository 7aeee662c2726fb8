/**
 * Issue 2, write paths with the real kubectl, in root and in a second logical cluster: the typed `create`
 * generators (protobuf request bodies), create -f, apply -f, replace -f, patch (strategic, merge, json),
 * label, annotate and edit, and the errors users meet on the way.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { tempFile, uniqueName, type ClusterKubectl } from '../helpers/kubectl.js';
import { parseTable } from '../helpers/table.js';
import { escapeRegExp, expectError, expectNotFound, expectNotVisible, lines, useE2EServer } from '../helpers/suite.js';

const e2e = useE2EServer();

const subdomainRule =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and " +
  "end with an alphanumeric character (e.g. 'example.com', regex used for validation is " +
  "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

const conflictMessage = (name: string) =>
  `Operation cannot be fulfilled on configmaps "${name}": the object has been modified; please apply your changes to the latest version and try again`;

describe.each(e2e.clusters)('kubectl writes in $label', ({ name: cluster }) => {
  const k: ClusterKubectl = (args, opts) => e2e.k(cluster)(args, opts);
  const other: ClusterKubectl = (args, opts) => e2e.k(e2e.other(cluster))(args, opts);
  const ns = uniqueName('writes');

  const getJson = async (args: string[]) => JSON.parse((await k(['get', ...args, '-o', 'json'])).stdout);
  const getCm = (name: string) => getJson(['cm', name, '-n', ns]);

  beforeAll(async () => {
    await k(['create', 'namespace', ns]);
  }, 60_000);

  describe('create (typed generators, protobuf bodies)', () => {
    it('create namespace', async () => {
      const name = uniqueName('ns');
      expect((await k(['create', 'namespace', name])).stdout).toBe(`namespace/${name} created`);
      const obj = await getJson(['ns', name]);
      expect(obj).toMatchObject({
        kind: 'Namespace',
        metadata: {
          name,
          labels: { 'kubernetes.io/metadata.name': name },
          annotations: { 'kcp.io/cluster': cluster },
        },
        spec: { finalizers: ['kubernetes'] },
        status: { phase: 'Active' },
      });
      await expectNotFound(other, 'ns', name);
    });

    it('create configmap', async () => {
      const name = uniqueName('cm');
      const result = await k([
        'create', 'configmap', name, '-n', ns,
        '--from-literal=a=1', '--from-literal=b=two words', '--from-literal=utf=héllo ✓',
      ]);
      expect(result.stdout).toBe(`configmap/${name} created`);
      const obj = await getCm(name);
      expect(obj.data).toEqual({ a: '1', b: 'two words', utf: 'héllo ✓' });
      expect(obj.metadata).toMatchObject({ name, namespace: ns, annotations: { 'kcp.io/cluster': cluster } });
      expect(obj.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
      expect(obj.metadata.resourceVersion).toMatch(/^[1-9]\d*$/);
      expect(obj.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(obj.metadata.generation).toBeUndefined();
      await expectNotVisible(other, 'cm', name, ns);
    });

    it('create secret generic', async () => {
      const name = uniqueName('secret');
      expect((await k(['create', 'secret', 'generic', name, '-n', ns, '--from-literal=pw=hunter2'])).stdout).toBe(
        `secret/${name} created`,
      );
      const obj = await getJson(['secret', name, '-n', ns]);
      expect(obj).toMatchObject({ kind: 'Secret', type: 'Opaque', data: { pw: Buffer.from('hunter2').toString('base64') } });
      await expectNotVisible(other, 'secret', name, ns);
    });

    it('create serviceaccount', async () => {
      const name = uniqueName('sa');
      expect((await k(['create', 'serviceaccount', name, '-n', ns])).stdout).toBe(`serviceaccount/${name} created`);
      const table = parseTable((await k(['get', 'sa', name, '-n', ns])).stdout);
      expect(table.header).toEqual(['NAME', 'SECRETS', 'AGE']);
      expect(table.rows.map((r) => r.slice(0, 2))).toEqual([[name, '0']]);
      await expectNotVisible(other, 'sa', name, ns);
    });

    it('create role, rolebinding, clusterrole, clusterrolebinding, quota', async () => {
      const role = uniqueName('role');
      const clusterRole = uniqueName('crole');
      expect((await k(['create', 'role', role, '-n', ns, '--verb=get,list', '--resource=configmaps'])).stdout).toBe(
        `role.rbac.authorization.k8s.io/${role} created`,
      );
      expect((await k(['create', 'rolebinding', role, '-n', ns, `--role=${role}`, '--user=alice'])).stdout).toBe(
        `rolebinding.rbac.authorization.k8s.io/${role} created`,
      );
      expect((await k(['create', 'clusterrole', clusterRole, '--verb=get', '--resource=namespaces'])).stdout).toBe(
        `clusterrole.rbac.authorization.k8s.io/${clusterRole} created`,
      );
      expect(
        (await k(['create', 'clusterrolebinding', clusterRole, `--clusterrole=${clusterRole}`, '--group=team'])).stdout,
      ).toBe(`clusterrolebinding.rbac.authorization.k8s.io/${clusterRole} created`);
      // Quotas are enforced: this one sits in the suite's namespace, so it stays far above what the suite creates there.
      expect((await k(['create', 'quota', role, '-n', ns, '--hard=configmaps=500'])).stdout).toBe(
        `resourcequota/${role} created`,
      );
      expect((await getJson(['role', role, '-n', ns])).rules).toEqual([
        { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] },
      ]);
      expect(await getJson(['rolebinding', role, '-n', ns])).toMatchObject({
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: role },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
      });
      expect((await getJson(['clusterrole', clusterRole])).rules).toEqual([
        { apiGroups: [''], resources: ['namespaces'], verbs: ['get'] },
      ]);
      expect((await getJson(['clusterrolebinding', clusterRole])).subjects).toEqual([
        { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'team' },
      ]);
      expect((await getJson(['quota', role, '-n', ns])).spec).toEqual({ hard: { configmaps: '500' } });
      await expectNotFound(other, 'clusterroles.rbac.authorization.k8s.io', clusterRole);
    });

    // kubectl's typed generators wrap the server's message: `error: failed to create configmap: <message>`.
    it('create a duplicate: AlreadyExists', async () => {
      const name = uniqueName('dup');
      await k(['create', 'configmap', name, '-n', ns]);
      expectError(
        await k(['create', 'configmap', name, '-n', ns], { reject: false }),
        `error: failed to create configmap: configmaps "${name}" already exists`,
      );
      expectError(
        await k(['create', 'namespace', ns], { reject: false }),
        `Error from server (AlreadyExists): namespaces "${ns}" already exists`,
      );
    });

    it('create with a bad name: is invalid', async () => {
      expectError(
        await k(['create', 'configmap', 'Bad_Name', '-n', ns], { reject: false }),
        `error: failed to create configmap: ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": ${subdomainRule}`,
      );
      expectError(
        await k(['create', 'namespace', 'Bad_NS'], { reject: false }),
        /^The Namespace "Bad_NS" is invalid: metadata\.name: Invalid value: "Bad_NS": a lowercase RFC 1123 label must consist of/,
      );
      const file = await tempFile(
        'bad-name.yaml',
        toYaml({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Bad_Name', namespace: ns } }),
      );
      expectError(
        await k(['create', '-f', file], { reject: false }),
        `The ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": ${subdomainRule}`,
      );
    });

    it('create into a missing namespace: NotFound', async () => {
      const missing = uniqueName('missing');
      expectError(
        await k(['create', 'configmap', 'x', '-n', missing], { reject: false }),
        `error: failed to create configmap: namespaces "${missing}" not found`,
      );
    });
  });

  describe('create -f', () => {
    it('a YAML file with two documents', async () => {
      const cmName = uniqueName('file');
      const file = await tempFile(
        'objects.yaml',
        [
          `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${cmName}\n  namespace: ${ns}\n  labels:\n    from: file\ndata:\n  key: value\n`,
          `apiVersion: v1\nkind: Secret\nmetadata:\n  name: ${cmName}\n  namespace: ${ns}\nstringData:\n  token: s3cr3t\n`,
        ].join('---\n'),
      );
      const result = await k(['create', '-f', file]);
      expect(lines(result.stdout)).toEqual([`configmap/${cmName} created`, `secret/${cmName} created`]);
      expect(await getCm(cmName)).toMatchObject({ data: { key: 'value' }, metadata: { labels: { from: 'file' } } });
      const secret = await getJson(['secret', cmName, '-n', ns]);
      expect(secret.data).toEqual({ token: Buffer.from('s3cr3t').toString('base64') });
      expect(secret.stringData).toBeUndefined();

      const again = await k(['create', '-f', file], { reject: false });
      expect(again.exitCode).not.toBe(0);
      expect(lines(again.stderr)).toEqual([
        `Error from server (AlreadyExists): error when creating "${file}": configmaps "${cmName}" already exists`,
        `Error from server (AlreadyExists): error when creating "${file}": secrets "${cmName}" already exists`,
      ]);
    });

    it('from stdin, in JSON', async () => {
      const name = uniqueName('stdin');
      const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { j: 'son' } });
      expect((await k(['create', '-n', ns, '-f', '-'], { input: body })).stdout).toBe(`configmap/${name} created`);
      expect((await getCm(name)).data).toEqual({ j: 'son' });
    });

    it('unknown fields are rejected (fieldValidation=Strict) unless --validate=false', async () => {
      const name = uniqueName('strict');
      const file = await tempFile(
        'strict.yaml',
        `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${ns}\nspec:\n  foo: 1\ndata:\n  a: b\n`,
      );
      expectError(
        await k(['create', '-f', file], { reject: false }),
        new RegExp(
          `^Error from server \\(BadRequest\\): error when creating "${escapeRegExp(file)}": ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "spec"`,
        ),
      );
      await expectNotFound(k, 'cm', name, ns);
      expect((await k(['create', '-f', file, '--validate=false'])).stdout).toBe(`configmap/${name} created`);
      const obj = await getCm(name);
      expect(obj.data).toEqual({ a: 'b' });
      expect(obj.spec).toBeUndefined();
    });
  });

  describe('apply -f', () => {
    it('created, unchanged, configured', async () => {
      const name = uniqueName('apply');
      const manifest = (data: Record<string, string>, labels: Record<string, string>) =>
        toYaml({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, labels }, data });
      const first = await tempFile('apply-1.yaml', manifest({ a: '1', b: '2' }, { stage: 'one' }));
      expect((await k(['apply', '-f', first])).stdout).toBe(`configmap/${name} created`);
      const created = await getCm(name);
      const lastApplied = JSON.parse(created.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']);
      expect(lastApplied).toEqual({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: ns, labels: { stage: 'one' }, annotations: {} },
        data: { a: '1', b: '2' },
      });

      expect((await k(['apply', '-f', first])).stdout).toBe(`configmap/${name} unchanged`);
      expect((await getCm(name)).metadata.resourceVersion, 'an unchanged apply writes nothing').toBe(
        created.metadata.resourceVersion,
      );

      const second = await tempFile('apply-2.yaml', manifest({ a: '10', c: '3' }, { stage: 'two' }));
      expect((await k(['apply', '-f', second])).stdout).toBe(`configmap/${name} configured`);
      const configured = await getCm(name);
      expect(configured.data).toEqual({ a: '10', c: '3' });
      expect(configured.metadata.labels).toEqual({ stage: 'two' });
      expect(Number(configured.metadata.resourceVersion)).toBeGreaterThan(Number(created.metadata.resourceVersion));
      expect(configured.metadata.uid).toBe(created.metadata.uid);
      await expectNotVisible(other, 'cm', name, ns);
    });

    it('a kind: List file, as `kubectl get -o yaml` writes it, applies and re-creates; a bad item is refused by kubectl’s validation', async () => {
      const [a, b] = [uniqueName('list-a'), uniqueName('list-b')];
      const item = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data: { k: name }, ...extra });
      const list = await tempFile('list.yaml', toYaml({ apiVersion: 'v1', kind: 'List', items: [item(a), item(b)] }));
      expect(lines((await k(['apply', '-f', list])).stdout)).toEqual([`configmap/${a} created`, `configmap/${b} created`]);
      expect(lines((await k(['apply', '-f', list])).stdout)).toEqual([`configmap/${a} unchanged`, `configmap/${b} unchanged`]);

      // The round trip users do: dump, delete, create from the dump.
      const dumped = (await k(['get', 'cm', a, b, '-n', ns, '-o', 'yaml'])).stdout;
      expect(parseYaml(dumped)).toMatchObject({ kind: 'List' });
      const dump = await tempFile('dump.yaml', dumped);
      await k(['delete', 'cm', a, b, '-n', ns]);
      expect(lines((await k(['create', '-f', dump])).stdout)).toEqual([`configmap/${a} created`, `configmap/${b} created`]);
      expect((await getCm(b)).data).toEqual({ k: b });

      // kubectl never asks the server to validate a kind: List (its fieldValidation check answers "unsupported" for
      // v1/List), so it validates the items itself against /openapi/v2, as against kube-apiserver.
      const bad = uniqueName('list-bad');
      const badList = await tempFile('bad-list.yaml', toYaml({ apiVersion: 'v1', kind: 'List', items: [item(bad, { bogus: 1 })] }));
      expectError(
        await k(['apply', '-f', badList], { reject: false }),
        `error: error validating "${badList}": error validating data: ValidationError(ConfigMap): unknown field "bogus" in io.k8s.api.core.v1.ConfigMap; if you choose to ignore these errors, turn validation off with --validate=false`,
      );
      await expectNotFound(k, 'cm', bad, ns);
    });

    it('an object made by create gets the annotation patched in, with a warning', async () => {
      const name = uniqueName('adopt');
      await k(['create', 'configmap', name, '-n', ns, '--from-literal=a=1']);
      const file = await tempFile(
        'adopt.yaml',
        toYaml({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data: { a: '2' } }),
      );
      const result = await k(['apply', '-f', file]);
      expect(result.stdout).toBe(`configmap/${name} configured`);
      expect(result.stderr).toMatch(/missing the kubectl\.kubernetes\.io\/last-applied-configuration annotation/);
      expect((await getCm(name)).data).toEqual({ a: '2' });
    });
  });

  describe('replace -f', () => {
    it('fresh file replaces, a stale resourceVersion conflicts', async () => {
      const name = uniqueName('replace');
      await k(['create', 'configmap', name, '-n', ns, '--from-literal=v=1']);
      const current = parseYaml((await k(['get', 'cm', name, '-n', ns, '-o', 'yaml'])).stdout);

      const fresh = await tempFile('fresh.yaml', toYaml({ ...current, data: { v: '2' } }));
      expect((await k(['replace', '-f', fresh])).stdout).toBe(`configmap/${name} replaced`);
      const replaced = await getCm(name);
      expect(replaced.data).toEqual({ v: '2' });
      expect(replaced.metadata.resourceVersion).not.toBe(current.metadata.resourceVersion);

      // Same resourceVersion as `current`, which is no longer the stored one.
      const stale = await tempFile('stale.yaml', toYaml({ ...current, data: { v: '3' } }));
      expectError(
        await k(['replace', '-f', stale], { reject: false }),
        `Error from server (Conflict): error when replacing "${stale}": ${conflictMessage(name)}`,
      );
      expect((await getCm(name)).data).toEqual({ v: '2' });
    });

    it('a file without resourceVersion replaces unconditionally; a missing object is NotFound', async () => {
      const name = uniqueName('replace');
      await k(['create', 'configmap', name, '-n', ns, '--from-literal=v=1']);
      const plain = (n: string) =>
        toYaml({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: n, namespace: ns }, data: { v: 'new' } });
      const file = await tempFile('plain.yaml', plain(name));
      expect((await k(['replace', '-f', file])).stdout).toBe(`configmap/${name} replaced`);
      expect((await getCm(name)).data).toEqual({ v: 'new' });

      const missing = uniqueName('absent');
      const missingFile = await tempFile('missing.yaml', plain(missing));
      expectError(
        await k(['replace', '-f', missingFile], { reject: false }),
        `Error from server (NotFound): error when replacing "${missingFile}": configmaps "${missing}" not found`,
      );
    });
  });

  describe('patch', () => {
    it('strategic (default), merge and json on a configmap', async () => {
      const name = uniqueName('patch');
      await k(['create', 'configmap', name, '-n', ns, '--from-literal=a=1', '--from-literal=b=2']);

      expect((await k(['patch', 'cm', name, '-n', ns, '-p', '{"data":{"c":"3"}}'])).stdout).toBe(
        `configmap/${name} patched`,
      );
      expect((await getCm(name)).data).toEqual({ a: '1', b: '2', c: '3' });

      expect(
        (await k(['patch', 'cm', name, '-n', ns, '--type', 'merge', '-p', '{"data":{"a":null},"metadata":{"labels":{"m":"x"}}}']))
          .stdout,
      ).toBe(`configmap/${name} patched`);
      const merged = await getCm(name);
      expect(merged.data).toEqual({ b: '2', c: '3' });
      expect(merged.metadata.labels).toEqual({ m: 'x' });

      const jsonPatch = JSON.stringify([
        { op: 'replace', path: '/data/b', value: 'B' },
        { op: 'remove', path: '/data/c' },
        { op: 'add', path: '/metadata/labels/j', value: 'y' },
      ]);
      expect((await k(['patch', 'cm', name, '-n', ns, '--type', 'json', '-p', jsonPatch])).stdout).toBe(
        `configmap/${name} patched`,
      );
      const patched = await getCm(name);
      expect(patched.data).toEqual({ b: 'B' });
      expect(patched.metadata.labels).toEqual({ m: 'x', j: 'y' });
    });

    it('a patch that changes nothing: (no change), same resourceVersion', async () => {
      const name = uniqueName('noop');
      await k(['create', 'configmap', name, '-n', ns, '--from-literal=a=1']);
      const before = await getCm(name);
      expect((await k(['patch', 'cm', name, '-n', ns, '-p', '{"data":{"a":"1"}}'])).stdout).toBe(
        `configmap/${name} patched (no change)`,
      );
      expect((await getCm(name)).metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    });

    it('strategic merge merges lists by key; merge patch replaces them', async () => {
      const name = uniqueName('sa');
      const file = await tempFile(
        'sa.yaml',
        toYaml({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: ns }, secrets: [{ name: 's1' }] }),
      );
      await k(['create', '-f', file]);
      const secrets = async () => (await getJson(['sa', name, '-n', ns])).secrets;

      // Same result as the Go implementation (`kubectl patch --local`): patch items first, then the rest.
      await k(['patch', 'sa', name, '-n', ns, '--type', 'strategic', '-p', '{"secrets":[{"name":"s2"}]}']);
      expect(await secrets()).toEqual([{ name: 's2' }, { name: 's1' }]);

      await k(['patch', 'sa', name, '-n', ns, '-p', '{"secrets":[{"name":"s1","$patch":"delete"}]}']);
      expect(await secrets()).toEqual([{ name: 's2' }]);

      await k(['patch', 'sa', name, '-n', ns, '--type', 'merge', '-p', '{"secrets":[{"name":"s3"}]}']);
      expect(await secrets()).toEqual([{ name: 's3' }]);
    });

    it('errors: missing object, failed json patch test', async () => {
      expectError(
        await k(['patch', 'cm', 'nope', '-n', ns, '-p', '{"data":{"a":"1"}}'], { reject: false }),
        'Error from server (NotFound): configmaps "nope" not found',
      );
      const name = uniqueName('jsontest');
      await k(['create', 'configmap', name, '-n', ns, '--from-literal=a=1']);
      const failing = JSON.stringify([
        { op: 'test', path: '/data/a', value: 'not-1' },
        { op: 'replace', path: '/data/a', value: '2' },
      ]);
      const result = await k(['patch', 'cm', name, '-n', ns, '--type', 'json', '-p', failing], { reject: false });
      expect(result.exitCode, result.stdout).not.toBe(0);
      expect(result.stderr).toMatch(/^(The request is invalid|Error from server \((Invalid|UnprocessableEntity|BadRequest)\))/);
      expect((await getCm(name)).data).toEqual({ a: '1' });
    });
  });

  describe('label and annotate', () => {
    it('label: set, refuse without --overwrite, overwrite, remove', async () => {
      const name = uniqueName('label');
      await k(['create', 'configmap', name, '-n', ns]);
      const labels = async () => (await getCm(name)).metadata.labels ?? {};

      expect((await k(['label', 'cm', name, '-n', ns, 'env=dev', 'team=a'])).stdout).toBe(`configmap/${name} labeled`);
      expect(await labels()).toEqual({ env: 'dev', team: 'a' });

      expectError(
        await k(['label', 'cm', name, '-n', ns, 'env=prod'], { reject: false }),
        "error: 'env' already has a value (dev), and --overwrite is false",
      );
      expect(await labels()).toEqual({ env: 'dev', team: 'a' });

      expect((await k(['label', 'cm', name, '-n', ns, 'env=prod', '--overwrite'])).stdout).toBe(
        `configmap/${name} labeled`,
      );
      expect(await labels()).toEqual({ env: 'prod', team: 'a' });

      expect((await k(['label', 'cm', name, '-n', ns, 'env-'])).stdout).toBe(`configmap/${name} unlabeled`);
      expect(await labels()).toEqual({ team: 'a' });

      // Cluster-scoped objects too.
      expect((await k(['label', 'ns', ns, `touched=${cluster === 'root' ? 'root' : 'second'}`, '--overwrite'])).stdout).toBe(
        `namespace/${ns} labeled`,
      );
    });

    it('annotate: set, refuse without --overwrite, overwrite, remove', async () => {
      const name = uniqueName('annotate');
      await k(['create', 'configmap', name, '-n', ns]);
      const annotations = async () => {
        const all = { ...((await getCm(name)).metadata.annotations ?? {}) } as Record<string, string>;
        delete all['kcp.io/cluster'];
        return all;
      };

      expect((await k(['annotate', 'cm', name, '-n', ns, 'note=one'])).stdout).toBe(`configmap/${name} annotated`);
      expect(await annotations()).toEqual({ note: 'one' });

      expectError(
        await k(['annotate', 'cm', name, '-n', ns, 'note=two'], { reject: false }),
        "error: --overwrite is false but found the following declared annotation(s): 'note' already has a value (one)",
      );

      expect((await k(['annotate', 'cm', name, '-n', ns, 'note=two', '--overwrite'])).stdout).toBe(
        `configmap/${name} annotated`,
      );
      expect(await annotations()).toEqual({ note: 'two' });

      expect((await k(['annotate', 'cm', name, '-n', ns, 'note-'])).stdout).toBe(`configmap/${name} annotated`);
      expect(await annotations()).toEqual({});
    });
  });

  describe('edit', () => {
    it('with EDITOR set to a sed script', async () => {
      const name = uniqueName('edit');
      await k(['create', 'configmap', name, '-n', ns, '--from-literal=greeting=before-edit', '--from-literal=keep=me']);
      const result = await k(['edit', 'cm', name, '-n', ns], {
        env: { KUBE_EDITOR: '', EDITOR: 'sed -i s/before-edit/after-edit/' },
      });
      expect(result.stdout).toBe(`configmap/${name} edited`);
      expect((await getCm(name)).data).toEqual({ greeting: 'after-edit', keep: 'me' });
    });

    it('an editor that changes nothing cancels the edit', async () => {
      const name = uniqueName('edit');
      await k(['create', 'configmap', name, '-n', ns, '--from-literal=a=1']);
      const before = await getCm(name);
      const result = await k(['edit', 'cm', name, '-n', ns], { env: { KUBE_EDITOR: '', EDITOR: 'true' } });
      expect(`${result.stdout}\n${result.stderr}`).toContain('Edit cancelled, no changes made.');
      expect((await getCm(name)).metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    });
  });
});
