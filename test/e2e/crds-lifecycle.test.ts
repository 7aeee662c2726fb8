/**
 * CRD lifecycle with the real kubectl (1.32 and 1.33): apply and wait for Established, `get crd`, kube's conditions,
 * name conflicts between CRDs of one group, discovery (api-resources, legacy documents, categories), and deletion
 * (objects first, names free again, no creates while terminating), and validation ratcheting when a schema gets stricter.
 */
import { describe, expect, it } from 'vitest';
import { matrixBinaries, uniqueName, type ClusterKubectl } from '../helpers/kubectl.js';
import { expectError, lines, useE2EServer } from '../helpers/suite.js';
import { parseTable } from '../helpers/table.js';
import { applyCRD, conditions, crdObject, widget, withFile, yaml, type Json } from './crds-fixtures.js';
import { tempFile } from '../helpers/kubectl.js';

const e2e = useE2EServer();

const established = [
  'NamesAccepted True NoConflicts no conflicts found',
  'Established True InitialNamesAccepted the initial names have been accepted',
];

describe.each(matrixBinaries())('CRD lifecycle with kubectl $version', ({ version, path: binary }) => {
  const k: ClusterKubectl = (args, opts) => e2e.k('root')(args, { ...opts, binary });
  const group = `life${version.replace('.', '')}.example.com`;
  const gadget = (name: string) => ({ ...widget(name, { color: 'red' }), apiVersion: `${group}/v1` });

  it('apply, wait Established, get crd, conditions and accepted names', async () => {
    const crd = crdObject({ group, plural: 'widgets', kind: 'Widget', shortNames: ['wd'], categories: ['gadgets'] });
    expect(await applyCRD(k, crd)).toBe(`customresourcedefinition.apiextensions.k8s.io/widgets.${group} created`);
    const table = parseTable((await k(['get', 'crd', `widgets.${group}`])).stdout);
    expect(table.header).toEqual(['NAME', 'CREATED AT']);
    expect(table.rows[0]?.[0]).toBe(`widgets.${group}`);
    expect(table.rows[0]?.[1]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(await conditions(k, `widgets.${group}`)).toEqual(established);
    const obj = JSON.parse((await k(['get', 'crd', `widgets.${group}`, '-o', 'json'])).stdout);
    expect(obj.status.acceptedNames).toEqual({
      plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'], categories: ['gadgets'],
    });
    expect(obj.status.storedVersions).toEqual(['v1']);
    expect(obj.metadata.finalizers).toEqual(['customresourcecleanup.apiextensions.k8s.io']);
    expect(obj.spec.conversion).toEqual({ strategy: 'None' });
  });

  it('api-resources, legacy discovery and category lookups list the custom resource', async () => {
    const table = parseTable((await k(['api-resources', `--api-group=${group}`, '-o', 'wide'])).stdout);
    expect(table.records).toHaveLength(1);
    const { VERBS: verbs, ...rest } = table.records[0]!;
    expect(rest).toEqual({ NAME: 'widgets', SHORTNAMES: 'wd', APIVERSION: `${group}/v1`, NAMESPACED: 'true', KIND: 'Widget', CATEGORIES: 'gadgets' });
    expect(verbs).toBe('create,delete,deletecollection,get,list,patch,update,watch');
    const groups = JSON.parse((await k(['get', '--raw', '/clusters/root/apis'])).stdout);
    expect(groups.groups.find((g: { name: string }) => g.name === group)).toEqual({
      name: group,
      versions: [{ groupVersion: `${group}/v1`, version: 'v1' }],
      preferredVersion: { groupVersion: `${group}/v1`, version: 'v1' },
    });
    const resources = JSON.parse((await k(['get', '--raw', `/clusters/root/apis/${group}/v1`])).stdout);
    expect(resources.resources.map((r: { name: string }) => r.name)).toEqual(['widgets']);
    expect(resources.resources[0]).toMatchObject({ singularName: 'widget', namespaced: true, kind: 'Widget', shortNames: ['wd'], categories: ['gadgets'] });
    await withFile(k, ['create', '-n', 'default'], gadget('in-category'));
    expect(lines((await k(['get', 'gadgets', '-n', 'default', '-o', 'name'])).stdout)).toContain(`widget.${group}/in-category`);
    expect(lines((await k(['get', 'wd', '-n', 'default', '-o', 'name'])).stdout)).toContain(`widget.${group}/in-category`);
  });

  it('a second CRD whose names conflict is not Established until the other one is deleted', async () => {
    // Same kind: the default listKind conflicts too, and kube reports the last conflict it checked.
    const kindClash = crdObject({ group, plural: 'gizmos', kind: 'Widget', singular: 'gizmo' });
    await withFile(k, ['apply'], kindClash);
    expect(await conditions(k, `gizmos.${group}`)).toEqual([
      'NamesAccepted False ListKindConflict "WidgetList" is already in use',
      'Established False NotAccepted not all names are accepted',
    ]);
    const shortClash = crdObject({ group, plural: 'doohickeys', kind: 'Doohickey', shortNames: ['wd'] });
    await withFile(k, ['apply'], shortClash);
    expect(await conditions(k, `doohickeys.${group}`)).toEqual([
      'NamesAccepted False ShortNamesConflict "wd" is already in use',
      'Established False NotAccepted not all names are accepted',
    ]);
    const pluralClash = crdObject({ group, plural: 'widget', kind: 'Thing', singular: 'thing' });
    await withFile(k, ['apply'], pluralClash);
    expect((await conditions(k, `widget.${group}`))[0]).toBe('NamesAccepted False PluralConflict "widget" is already in use');
    // Not served: kubectl finds no such resource.
    expectError(await k(['get', 'doohickeys'], { reject: false }), 'error: the server doesn\'t have a resource type "doohickeys"');
    const accepted = JSON.parse((await k(['get', 'crd', `doohickeys.${group}`, '-o', 'json'])).stdout).status.acceptedNames;
    expect(accepted).toEqual({ plural: 'doohickeys', singular: 'doohickey', kind: 'Doohickey', listKind: 'DoohickeyList' });

    await k(['delete', 'crd', `widgets.${group}`]);
    await k(['wait', '--for=condition=Established', `crd/gizmos.${group}`, `crd/doohickeys.${group}`, '--timeout=30s']);
    expect(await conditions(k, `doohickeys.${group}`)).toEqual(established);
    expect((await k(['get', 'doohickeys', '-n', 'default'])).stderr).toBe('No resources found in default namespace.');
    await k(['delete', 'crd', `gizmos.${group}`, `doohickeys.${group}`, `widget.${group}`]);
  });

  it('deleting a CRD deletes its objects first; the names are free once it is re-created', async () => {
    const crd = crdObject({ group, plural: 'sprockets', kind: 'Sprocket' });
    await applyCRD(k, crd);
    const sprocket = (name: string) => ({ apiVersion: `${group}/v1`, kind: 'Sprocket', metadata: { name }, spec: { color: 'red' } });
    await withFile(k, ['create', '-n', 'default'], [sprocket('s1'), sprocket('s2')]);
    expect((await k(['delete', 'crd', `sprockets.${group}`])).stdout).toBe(
      `customresourcedefinition.apiextensions.k8s.io "sprockets.${group}" deleted`,
    );
    expectError(await k(['get', 'crd', `sprockets.${group}`], { reject: false }), `Error from server (NotFound): customresourcedefinitions.apiextensions.k8s.io "sprockets.${group}" not found`);
    await applyCRD(k, crd);
    expect((await k(['get', 'sprockets', '-n', 'default'])).stderr).toBe('No resources found in default namespace.');
    expect((await withFile(k, ['create', '-n', 'default'], sprocket('s1'))).stdout).toBe(`sprocket.${group}/s1 created`);
    await k(['delete', 'crd', `sprockets.${group}`]);
  });

  it('creating an object while its CRD is terminating is refused as kube does', async () => {
    const crd = crdObject({ group, plural: 'latches', kind: 'Latch' });
    await applyCRD(k, crd);
    const latch = (name: string, extra: Record<string, unknown> = {}) => ({
      apiVersion: `${group}/v1`, kind: 'Latch', metadata: { name, ...extra }, spec: { color: 'red' },
    });
    await withFile(k, ['create', '-n', 'default'], latch('held', { finalizers: ['example.com/hold'] }));
    await k(['delete', 'crd', `latches.${group}`, '--wait=false']);
    expect(await conditions(k, `latches.${group}`)).toEqual([
      ...established,
      'Terminating True InstanceDeletionInProgress CustomResource deletion is in progress',
    ]);
    const refused = await withFile(k, ['create', '-n', 'default'], latch('late'), { reject: false });
    expectError(refused, /^Error from server \(MethodNotAllowed\): error when creating ".*object\.yaml": create not allowed while custom resource definition is terminating$/);
    await k(['patch', 'latch', 'held', '-n', 'default', '--type', 'merge', '-p', '{"metadata":{"finalizers":null}}']);
    await k(['wait', '--for=delete', `crd/latches.${group}`, '--timeout=30s']);
  });

  it('a cluster-scoped CRD serves cluster-scoped objects', async () => {
    const crd = crdObject({ group, plural: 'regions', kind: 'Region', scope: 'Cluster' });
    await applyCRD(k, crd);
    const name = uniqueName('region');
    const file = await tempFile('region.yaml', yaml({ apiVersion: `${group}/v1`, kind: 'Region', metadata: { name }, spec: { color: 'blue' } }));
    expect((await k(['create', '-f', file])).stdout).toBe(`region.${group}/${name} created`);
    const table = parseTable((await k(['get', 'regions'])).stdout);
    expect(table.header).toEqual(['NAME', 'AGE']);
    expect(table.rows.map((r) => r[0])).toEqual([name]);
    expect(JSON.parse((await k(['get', 'region', name, '-o', 'json'])).stdout).metadata.namespace).toBeUndefined();
    const resources = parseTable((await k(['api-resources', `--api-group=${group}`, '--namespaced=false'])).stdout);
    expect(resources.records.map((r) => r.NAME)).toEqual(['regions']);
    // Cluster-scoped custom resources have no namespace field to select on (kube's field label conversion).
    const byNamespace = await k(['get', 'regions', '--field-selector', 'metadata.namespace=default'], { reject: false });
    expectError(
      byNamespace,
      `Error from server (BadRequest): Unable to find "${group}/v1, Resource=regions" that match label selector "", field selector "metadata.namespace=default": field label not supported: metadata.namespace`,
    );
    await k(['delete', 'crd', `regions.${group}`]);
  });
  it('a stricter schema ratchets: objects stored before it can still be changed where they are valid', async () => {
    const listenersSchema = (strict: boolean): Json => ({
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            owner: { type: 'string', ...(strict ? { format: 'email' } : {}) },
            listeners: {
              type: 'array',
              'x-kubernetes-list-type': 'map',
              'x-kubernetes-list-map-keys': ['port'],
              items: { type: 'object', required: ['port'], properties: { port: { type: 'integer' }, host: { type: 'string', ...(strict ? { format: 'hostname' } : {}) } } },
            },
          },
        },
      },
    });
    const crd = (schema: Json) => crdObject({ group, plural: 'gateways', kind: 'Gateway', schema });
    await applyCRD(k, crd(listenersSchema(false)));
    const name = uniqueName('gw');
    const gw = (spec: Json) => ({ apiVersion: `${group}/v1`, kind: 'Gateway', metadata: { name, namespace: 'default' }, spec });
    await withFile(k, ['create'], gw({ owner: 'ops team', listeners: [{ port: 80, host: 'web_1' }] }));
    // The CRD gains formats the stored object does not meet.
    await applyCRD(k, crd(listenersSchema(true)));
    // A listener added beside the unchanged one, and the list reordered: the old item is matched by its key.
    const added = await k(['patch', 'gateway', name, '--type=merge', '-p', JSON.stringify({ spec: { listeners: [{ port: 443, host: 'secure.example' }, { port: 80, host: 'web_1' }] } })]);
    expect(added.stdout).toBe(`gateway.${group}/${name} patched`);
    // What the update changes is checked.
    expectError(
      await k(['patch', 'gateway', name, '--type=merge', '-p', JSON.stringify({ spec: { owner: 'still not an email' } })], { reject: false }),
      `The Gateway "${name}" is invalid: spec.owner: Invalid value: "still not an email": spec.owner in body must be of type email: "still not an email"`,
    );
    expectError(
      await k(['patch', 'gateway', name, '--type=merge', '-p', JSON.stringify({ spec: { listeners: [{ port: 443, host: 'secure.example' }, { port: 80, host: 'web_2' }] } })], { reject: false }),
      `The Gateway "${name}" is invalid: spec.listeners[1].host: Invalid value: "web_2": spec.listeners[1].host in body must be of type hostname: "web_2"`,
    );
    await k(['delete', 'crd', `gateways.${group}`]);
  });
});
