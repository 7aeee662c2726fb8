/**
 * Issue 3, server-side apply and managedFields with the real kubectl, on built-in and custom resources, in root and
 * in a second logical cluster: `apply --server-side` create/no-op/conflict/--force-conflicts, fields a manager stops
 * applying, Update managers from create/label/patch, the upgrade from client-side apply, and kube's errors.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { apiRequest } from '../helpers/http.js';
import { matrixBinaries, uniqueName, type ClusterKubectl } from '../helpers/kubectl.js';
import { expectError, useE2EServer } from '../helpers/suite.js';

const e2e = useE2EServer();

interface ManagedEntry {
  manager: string;
  operation: string;
  apiVersion: string;
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

const configMap = (name: string, ns: string, data: Record<string, string>, labels?: Record<string, string>) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, ...(labels ? { labels } : {}) }, data });

const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.ssa.example.com
spec:
  group: ssa.example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              color: {type: string}
              size: {type: integer}
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    port: {type: integer}
              listeners:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [port, protocol]
                items:
                  type: object
                  required: [port]
                  properties:
                    port: {type: integer}
                    protocol: {type: string, default: TCP}
                    host: {type: string}
          status:
            type: object
            properties:
              phase: {type: string}
`;

const conflictFirstLine = (manager: string, field: string) => `error: Apply failed with 1 conflict: conflict with "${manager}": ${field}`;

describe.each(e2e.clusters)('server-side apply in $label', ({ name: cluster }) => {
  const k: ClusterKubectl = (args, opts) => e2e.k(cluster)(args, opts);
  const ns = uniqueName('ssa');
  const getJson = async (args: string[]) => JSON.parse((await k(['get', ...args, '-o', 'json', '--show-managed-fields'])).stdout);
  const managers = (obj: { metadata: { managedFields?: ManagedEntry[] } }) =>
    Object.fromEntries((obj.metadata.managedFields ?? []).map((m) => [`${m.manager}/${m.operation}${m.subresource ? `/${m.subresource}` : ''}`, m.fieldsV1]));

  beforeAll(async () => {
    await k(['create', 'namespace', ns]);
    await k(['apply', '-f', '-'], { input: crd });
    await k(['wait', '--for=condition=Established', 'crd/gadgets.ssa.example.com', '--timeout=30s']);
  }, 60_000);

  describe('built-in resources', () => {
    it('creates, re-applies as a no-op, and records the Apply manager', async () => {
      const name = uniqueName('cm');
      const manifest = configMap(name, ns, { a: '1', b: '2' }, { app: 'demo' });
      expect((await k(['apply', '--server-side', '-f', '-'], { input: manifest })).stdout).toBe(`configmap/${name} serverside-applied`);
      const first = await getJson(['cm', name, '-n', ns]);
      expect(first.metadata.managedFields).toEqual([
        {
          apiVersion: 'v1',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:data': { 'f:a': {}, 'f:b': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } },
          manager: 'kubectl',
          operation: 'Apply',
          time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
        },
      ]);
      await k(['apply', '--server-side', '-f', '-'], { input: manifest });
      const again = await getJson(['cm', name, '-n', ns]);
      expect(again.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
      expect(again.metadata.managedFields).toEqual(first.metadata.managedFields);
    });

    it('a second manager conflicts with kube’s message, then takes the field with --force-conflicts', async () => {
      const name = uniqueName('cm');
      await k(['apply', '--server-side', '-f', '-'], { input: configMap(name, ns, { a: '1', b: '2' }) });
      const clash = await k(['apply', '--server-side', '--field-manager=deployer', '-f', '-'], {
        input: configMap(name, ns, { a: 'changed' }),
        reject: false,
      });
      expectError(clash, conflictFirstLine('kubectl', '.data.a'));
      expect(clash.stderr).toContain('--force-conflicts');
      await k(['apply', '--server-side', '--field-manager=deployer', '--force-conflicts', '-f', '-'], {
        input: configMap(name, ns, { a: 'changed' }),
      });
      const obj = await getJson(['cm', name, '-n', ns]);
      expect(obj.data).toEqual({ a: 'changed', b: '2' });
      expect(managers(obj)).toEqual({
        'kubectl/Apply': { 'f:data': { 'f:b': {} } },
        'deployer/Apply': { 'f:data': { 'f:a': {} } },
      });
      // Same value from another manager is shared ownership, never a conflict.
      await k(['apply', '--server-side', '--field-manager=third', '-f', '-'], { input: configMap(name, ns, { b: '2' }) });
      expect(managers(await getJson(['cm', name, '-n', ns]))['third/Apply']).toEqual({ 'f:data': { 'f:b': {} } });
    });

    it('a field the manager stops applying is removed, unless another manager still owns it', async () => {
      const name = uniqueName('cm');
      await k(['apply', '--server-side', '-f', '-'], { input: configMap(name, ns, { a: '1', b: '2', c: '3' }) });
      await k(['apply', '--server-side', '--field-manager=other', '-f', '-'], { input: configMap(name, ns, { c: '3' }) });
      await k(['apply', '--server-side', '-f', '-'], { input: configMap(name, ns, { a: '1' }) });
      expect((await getJson(['cm', name, '-n', ns])).data).toEqual({ a: '1', c: '3' });
    });

    it('create, label and patch record Update managers; apply then conflicts with them by name', async () => {
      const name = uniqueName('cm');
      await k(['create', 'configmap', name, '-n', ns, '--from-literal=a=1']);
      await k(['label', 'cm', name, '-n', ns, 'tier=web']);
      await k(['patch', 'cm', name, '-n', ns, '--type', 'merge', '-p', '{"data":{"b":"2"}}']);
      const obj = await getJson(['cm', name, '-n', ns]);
      expect(managers(obj)).toEqual({
        'kubectl-create/Update': { 'f:data': { '.': {}, 'f:a': {} } },
        'kubectl-label/Update': { 'f:metadata': { 'f:labels': { '.': {}, 'f:tier': {} } } },
        'kubectl-patch/Update': { 'f:data': { 'f:b': {} } },
      });
      const clash = await k(['apply', '--server-side', '-f', '-'], { input: configMap(name, ns, { b: '3' }), reject: false });
      expectError(clash, conflictFirstLine('kubectl-patch', '.data.b').replace('"kubectl-patch"', '"kubectl-patch" using v1'));
    });

    it('an object managed with client-side apply moves to server-side apply without conflicts', async () => {
      const name = uniqueName('cm');
      await k(['apply', '-f', '-'], { input: configMap(name, ns, { a: '1', b: '2' }) });
      await k(['apply', '--server-side', '-f', '-'], { input: configMap(name, ns, { a: '1', b: 'new' }) });
      const obj = await getJson(['cm', name, '-n', ns]);
      expect(obj.data).toEqual({ a: '1', b: 'new' });
      expect(Object.keys(managers(obj))).toContain('kubectl/Apply');
      expect(managers(obj)['kubectl/Apply']).toEqual({ 'f:data': { 'f:a': {}, 'f:b': {} } });
      // The server keeps the client-side annotation in step with what was applied.
      const lastApplied = JSON.parse(obj.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']);
      expect(lastApplied.data).toEqual({ a: '1', b: 'new' });
    });

    it('unknown fields are refused with kube’s typed-patch error', async () => {
      const name = uniqueName('cm');
      const result = await k(['apply', '--server-side', '-f', '-'], {
        input: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data: { a: '1' }, foo: 'bar' }),
        reject: false,
      });
      expectError(
        result,
        `Error from server (BadRequest): failed to create typed patch object (${ns}/${name}; /v1, Kind=ConfigMap): .foo: field not declared in schema`,
      );
      expect((await k(['get', 'cm', name, '-n', ns], { reject: false })).exitCode).not.toBe(0);
    });
  });

  describe('custom resources', () => {
    const gadget = (name: string, spec: Record<string, unknown>) =>
      JSON.stringify({ apiVersion: 'ssa.example.com/v1', kind: 'Gadget', metadata: { name, namespace: ns }, spec });

    it('apply twice with a second field manager: conflict, then --force-conflicts; managed fields shown', async () => {
      const name = uniqueName('g');
      await k(['apply', '--server-side', '-f', '-'], { input: gadget(name, { color: 'red', size: 1 }) });
      const clash = await k(['apply', '--server-side', '--field-manager=painter', '-f', '-'], {
        input: gadget(name, { color: 'blue' }),
        reject: false,
      });
      expectError(clash, conflictFirstLine('kubectl', '.spec.color'));
      await k(['apply', '--server-side', '--field-manager=painter', '--force-conflicts', '-f', '-'], { input: gadget(name, { color: 'blue' }) });
      const yaml = (await k(['get', 'gadget', name, '-n', ns, '-o', 'yaml', '--show-managed-fields'])).stdout;
      const obj = parseYaml(yaml);
      expect(obj.spec).toEqual({ color: 'blue', size: 1 });
      expect(managers(obj)).toEqual({
        'kubectl/Apply': { 'f:spec': { 'f:size': {} } },
        'painter/Apply': { 'f:spec': { 'f:color': {} } },
      });
      expect(obj.metadata.managedFields[0].apiVersion).toBe('ssa.example.com/v1');
      // Without --show-managed-fields kubectl hides them.
      expect((await k(['get', 'gadget', name, '-n', ns, '-o', 'yaml'])).stdout).not.toContain('managedFields');
    });

    it('map lists (x-kubernetes-list-type: map) merge item by item across managers', async () => {
      const name = uniqueName('g');
      await k(['apply', '--server-side', '--field-manager=a', '-f', '-'], { input: gadget(name, { ports: [{ name: 'http', port: 80 }] }) });
      await k(['apply', '--server-side', '--field-manager=b', '-f', '-'], { input: gadget(name, { ports: [{ name: 'metrics', port: 9090 }] }) });
      expect((await getJson(['gadget', name, '-n', ns])).spec.ports).toEqual([
        { name: 'http', port: 80 },
        { name: 'metrics', port: 9090 },
      ]);
      await k(['apply', '--server-side', '--field-manager=a', '-f', '-'], { input: gadget(name, {}) });
      expect((await getJson(['gadget', name, '-n', ns])).spec.ports).toEqual([{ name: 'metrics', port: 9090 }]);
    });

    it('a map-list item that omits a defaulted key field is keyed with the default, as the server stores it', async () => {
      const name = uniqueName('g');
      const apply = (manager: string, listeners: unknown[], reject = true) =>
        k(['apply', '--server-side', `--field-manager=${manager}`, '-f', '-'], { input: gadget(name, { listeners }), reject });
      await apply('alice', [{ port: 80, host: 'a' }]);
      const created = await getJson(['gadget', name, '-n', ns]);
      expect(created.spec.listeners).toEqual([{ port: 80, protocol: 'TCP', host: 'a' }]);
      expect(managers(created)['alice/Apply']).toEqual({ 'f:spec': { 'f:listeners': { 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:host': {}, 'f:port': {} } } } });
      // Re-applying changes the stored item (it was refused as a duplicate of it), and another manager conflicts on it.
      await apply('alice', [{ port: 80, host: 'a2' }]);
      expect((await getJson(['gadget', name, '-n', ns])).spec.listeners).toEqual([{ port: 80, protocol: 'TCP', host: 'a2' }]);
      expectError(await apply('bob', [{ port: 80, protocol: 'TCP', host: 'b' }], false), conflictFirstLine('alice', '.spec.listeners[port=80,protocol="TCP"].host'));
      // Alice moves to another port: her old item goes.
      await apply('alice', [{ port: 81 }]);
      expect((await getJson(['gadget', name, '-n', ns])).spec.listeners).toEqual([{ port: 81, protocol: 'TCP' }]);
      // An applied configuration may not repeat an item (the defaulted key counts), nor change what is stored.
      expectError(
        await apply('alice', [{ port: 81, host: 'x' }, { port: 81, protocol: 'TCP', host: 'y' }], false),
        `Error from server (BadRequest): failed to create typed patch object (${ns}/${name}; ssa.example.com/v1, Kind=Gadget): .spec.listeners: duplicate entries for key [port=81,protocol="TCP"]`,
      );
      expect((await getJson(['gadget', name, '-n', ns])).spec.listeners).toEqual([{ port: 81, protocol: 'TCP' }]);
    });

    it('status patches are recorded under the status subresource and leave spec ownership alone', async () => {
      const name = uniqueName('g');
      await k(['apply', '--server-side', '-f', '-'], { input: gadget(name, { color: 'red' }) });
      await k(['patch', 'gadget', name, '-n', ns, '--subresource=status', '--type=merge', '-p', '{"status":{"phase":"Ready"}}']);
      const obj = await getJson(['gadget', name, '-n', ns]);
      expect(obj.status).toEqual({ phase: 'Ready' });
      expect(managers(obj)).toEqual({
        'kubectl/Apply': { 'f:spec': { 'f:color': {} } },
        'kubectl-patch/Update/status': { 'f:status': { '.': {}, 'f:phase': {} } },
      });
    });
  });
});

describe('server-side apply request errors (kube’s wording)', () => {
  const path = (name: string) => `/clusters/root/api/v1/namespaces/default/configmaps/${name}`;
  const applyAs = (name: string, query: string, body: string) =>
    apiRequest(e2e.server, `${path(name)}${query}`, { method: 'PATCH', headers: { 'content-type': 'application/apply-patch+yaml' }, body });

  it('fieldManager is required', async () => {
    const answer = await applyAs('x', '', configMap('x', 'default', { a: '1' }));
    expect(answer.status).toBe(422);
    expect(answer.json().message).toBe('PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
  });

  it('the apiVersion must be the endpoint’s; managedFields may not be sent; YAML bodies work', async () => {
    const wrong = await applyAs('x', '?fieldManager=t', JSON.stringify({ apiVersion: 'v2', kind: 'ConfigMap', metadata: { name: 'x' } }));
    expect([wrong.status, wrong.json().message]).toEqual([400, 'Incorrect version specified in apply patch. Specified patch version: v2, expected: v1']);
    const mf = await applyAs('x', '?fieldManager=t', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', managedFields: [] } }));
    expect([mf.status, mf.json().message]).toEqual([400, 'metadata.managedFields must be nil']);
    const name = uniqueName('yaml');
    const created = await applyAs(name, '?fieldManager=t', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  k: v\n`);
    expect(created.status).toBe(201);
    expect(created.json().data).toEqual({ k: 'v' });
    const again = await applyAs(name, '?fieldManager=t', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  k: v2\n`);
    expect([again.status, again.json().data]).toEqual([200, { k: 'v2' }]);
  });

  it('a fieldManager longer than 128 characters is refused on every write', async () => {
    const long = 'm'.repeat(129);
    const answer = await apiRequest(e2e.server, `/clusters/root/api/v1/namespaces/default/configmaps?fieldManager=${long}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: configMap(uniqueName('long'), 'default', {}),
    });
    expect(answer.status).toBe(422);
    expect(answer.json().message).toBe('CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes');
  });

  it('a client that names no manager is recorded under its User-Agent up to the first slash', async () => {
    const name = uniqueName('ua');
    await apiRequest(e2e.server, '/clusters/root/api/v1/namespaces/default/configmaps', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'my-operator/v0.3.1 (linux/amd64)' },
      body: configMap(name, 'default', { a: '1' }),
    });
    const obj = (await apiRequest(e2e.server, path(name))).json();
    expect(obj.metadata.managedFields.map((m: ManagedEntry) => [m.manager, m.operation])).toEqual([['my-operator', 'Update']]);
  });
});

describe.each(matrixBinaries())('kubectl $version: apply --server-side', ({ path: binary }) => {
  it('creates, conflicts and forces', async () => {
    const k: ClusterKubectl = (args, opts) => e2e.k('root')(args, { ...opts, binary });
    const name = uniqueName('mx');
    await k(['apply', '--server-side', '-f', '-'], { input: configMap(name, 'default', { a: '1' }) });
    const clash = await k(['apply', '--server-side', '--field-manager=x', '-f', '-'], { input: configMap(name, 'default', { a: '2' }), reject: false });
    expectError(clash, conflictFirstLine('kubectl', '.data.a'));
    await k(['apply', '--server-side', '--field-manager=x', '--force-conflicts', '-f', '-'], { input: configMap(name, 'default', { a: '2' }) });
    expect(JSON.parse((await k(['get', 'cm', name, '-o', 'json'])).stdout).data).toEqual({ a: '2' });
  });
});
