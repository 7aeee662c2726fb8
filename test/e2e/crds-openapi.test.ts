/**
 * CRDs in OpenAPI and discovery, and per logical cluster: `kubectl explain` from the CRD schema, the OpenAPI v3 index
 * hash that makes kubectl's cache refresh after a schema change, aggregated discovery, and the same CRD name with
 * different schemas in two logical clusters (each validates, prunes, explains and prints with its own).
 */
import { describe, expect, it } from 'vitest';
import { apiRequest } from '../helpers/http.js';
import { inCluster, matrixBinaries, uniqueClusterName, type ClusterKubectl } from '../helpers/kubectl.js';
import { createLogicalCluster } from '../helpers/api-setup.js';
import { expectError, lines, useE2EServer } from '../helpers/suite.js';
import { parseTable } from '../helpers/table.js';
import { applyCRD, crdObject, widgetSchema, withFile, type Json } from './crds-fixtures.js';

// The shared server: every test defines its CRDs in logical clusters of its own.
const e2e = useE2EServer();

/** A fresh logical cluster: its name, and kubectl there (with another kubectl binary if given). */
async function freshCluster(binary?: string): Promise<{ name: string; k: ClusterKubectl }> {
  const name = uniqueClusterName();
  await createLogicalCluster(e2e.server, name);
  const k = inCluster(e2e.server, name);
  return { name, k: binary === undefined ? k : (args, opts) => k(args, { ...opts, binary }) };
}

const fieldNames = (explain: string) => lines(explain).filter((l) => /^ {2}\S+\t</.test(l)).map((l) => l.trim().split('\t')[0]);

describe.each(matrixBinaries())('explain and OpenAPI with kubectl $version', ({ version, path: binary }) => {
  const group = `oa${version.replace('.', '')}.example.com`;
  /** A fresh cluster with the widgets CRD, and `kubectl explain` there. */
  async function withWidgets() {
    const { name, k } = await freshCluster(binary);
    await applyCRD(k, crdObject({ group, plural: 'widgets', kind: 'Widget' }));
    // explain reads `a.b.c` as resource a, fields b.c: pick the group with --api-version instead.
    const explain = (path: string, opts = {}) => k(['explain', path, `--api-version=${group}/v1`], opts);
    return { name, k, explain };
  }

  it('explains the kind and its fields with the schema descriptions', async () => {
    const { explain } = await withWidgets();
    const top = (await explain('widgets')).stdout;
    expect(lines(top).slice(0, 3)).toEqual([`GROUP:      ${group}`, 'KIND:       Widget', 'VERSION:    v1']);
    expect(top).toContain('A Widget is a test gadget.');
    expect(fieldNames(top)).toEqual(['apiVersion', 'kind', 'metadata', 'spec', 'status']);
    const spec = (await explain('widgets.spec')).stdout;
    expect(spec).toContain('FIELD: spec <Object>');
    expect(spec).toContain('Spec of the widget.');
    expect(fieldNames(spec)).toEqual(['color', 'port', 'ports', 'replicas', 'size', 'tags', 'template']);
    // kubectl prints a field's enum values since 1.30 (its explain template); the schema serves them to every version.
    const enumLine = Number(version.split('.')[1]) >= 30 ? ' {2}enum: red, green, blue\n' : '';
    expect(spec).toMatch(new RegExp(` {2}color\t<string> -required-\n${enumLine} {4}The color of the widget\\.`));
    expect(spec).toContain('  tags\t<[]string>');
    const meta = (await explain('widgets.metadata.labels')).stdout;
    expect(meta).toContain('FIELD: labels <map[string]string>');
  });

  it('a schema change changes the OpenAPI hash; explain shows the new field without clearing the cache', async () => {
    const { name, k, explain } = await withWidgets();
    const index = async () => JSON.parse((await k(['get', '--raw', `/clusters/${name}/openapi/v3`])).stdout).paths[`apis/${group}/v1`].serverRelativeURL as string;
    const before = await index();
    expect(before).toMatch(new RegExp(`^/openapi/v3/apis/${group.replace(/\./g, '\\.')}/v1\\?hash=[0-9A-F]{128}$`));
    expectError(await explain('widgets.spec.shape', { reject: false }), 'error: field "shape" does not exist');
    const schema: Json = structuredClone(widgetSchema);
    ((schema.properties as Json).spec as { properties: Json }).properties.shape = { type: 'string', description: 'The shape of the widget.' };
    await applyCRD(k, crdObject({ group, plural: 'widgets', kind: 'Widget', schema }));
    const after = await index();
    expect(after).not.toBe(before);
    const shape = (await explain('widgets.spec.shape')).stdout;
    expect(shape).toContain('FIELD: shape <string>');
    expect(shape).toContain('The shape of the widget.');
  });
});

describe('discovery documents for custom resources', () => {
  it('aggregated discovery (v2) lists the resource with its subresources and responseKinds', async () => {
    const { name, k } = await freshCluster();
    const group = 'disco.example.com';
    await applyCRD(k, crdObject({
      group, plural: 'widgets', kind: 'Widget', shortNames: ['dw'], categories: ['all'],
      version: { subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } } },
    }));
    const answer = await apiRequest(e2e.server, `/clusters/${name}/apis`, {
      headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json' },
    });
    // client-go reads the media type parameters (quoted or not) to pick the aggregated format
    const params = String(answer.headers['content-type']).replace(/"/g, '').split(';').map((p) => p.trim());
    expect(params).toEqual(expect.arrayContaining(['application/json', 'g=apidiscovery.k8s.io', 'v=v2', 'as=APIGroupDiscoveryList']));
    const entry = answer.json().items.find((g: { metadata: { name: string } }) => g.metadata.name === group);
    expect(entry.versions).toEqual([
      {
        version: 'v1',
        freshness: 'Current',
        resources: [
          {
            resource: 'widgets',
            responseKind: { group, version: 'v1', kind: 'Widget' },
            scope: 'Namespaced',
            singularResource: 'widget',
            verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
            shortNames: ['dw'],
            categories: ['all'],
            subresources: [
              { subresource: 'status', responseKind: { group, version: 'v1', kind: 'Widget' }, verbs: ['get', 'patch', 'update'] },
              { subresource: 'scale', responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: ['get', 'patch', 'update'] },
            ],
          },
        ],
      },
    ]);
    const legacy = JSON.parse((await k(['get', '--raw', `/clusters/${name}/apis/${group}/v1`])).stdout);
    expect(legacy.resources.map((r: { name: string }) => r.name)).toEqual(['widgets', 'widgets/status', 'widgets/scale']);
    expect(legacy.resources[2]).toMatchObject({ group: 'autoscaling', version: 'v1', kind: 'Scale' });
    await withFile(k, ['create', '-n', 'default'], { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'in-all' }, spec: { color: 'red' } });
    expect(lines((await k(['get', 'all', '-n', 'default', '-o', 'name'])).stdout)).toContain(`widget.${group}/in-all`);
  });
});

describe('the same CRD name with different schemas in two logical clusters', () => {
  const group = 'tenant.example.com';
  const schemaWith = (field: string, type: string, description: string): Json => ({
    type: 'object',
    properties: { spec: { type: 'object', properties: { [field]: { type, description } } } },
  });
  const columnsFor = (field: string) => [{ name: field.toUpperCase(), type: 'string', jsonPath: `.spec.${field}` }];
  const gadget = (spec: Json) => ({ apiVersion: `${group}/v1`, kind: 'Gadget', metadata: { name: 'g1' }, spec });

  /** Two fresh clusters with the gadgets CRD: `root` (a color) and `second` (a size), named for the roles they play. */
  async function twoClusters(): Promise<{ root: ClusterKubectl; second: ClusterKubectl }> {
    const [{ k: root }, { k: second }] = await Promise.all([freshCluster(), freshCluster()]);
    await Promise.all([
      applyCRD(root, crdObject({ group, plural: 'gadgets', kind: 'Gadget', schema: schemaWith('color', 'string', 'Root color.'), version: { additionalPrinterColumns: columnsFor('color') } })),
      applyCRD(second, crdObject({ group, plural: 'gadgets', kind: 'Gadget', schema: schemaWith('size', 'integer', 'Second size.'), version: { additionalPrinterColumns: columnsFor('size') } })),
    ]);
    return { root, second };
  }

  it('each cluster validates, prunes, explains and prints with its own schema', async () => {
    const { root, second } = await twoClusters();
    const rootCreate = await withFile(root, ['create', '-n', 'default', '--validate=warn'], gadget({ color: 'red', size: 3 }));
    expect(lines(rootCreate.stderr)).toEqual(['Warning: unknown field "spec.size"']);
    const secondCreate = await withFile(second, ['create', '-n', 'default', '--validate=warn'], gadget({ color: 'red', size: 3 }));
    expect(lines(secondCreate.stderr)).toEqual(['Warning: unknown field "spec.color"']);
    expect(JSON.parse((await root(['get', 'gadget', 'g1', '-n', 'default', '-o', 'json'])).stdout).spec).toEqual({ color: 'red' });
    expect(JSON.parse((await second(['get', 'gadget', 'g1', '-n', 'default', '-o', 'json'])).stdout).spec).toEqual({ size: 3 });

    expect(parseTable((await root(['get', 'gadgets', '-n', 'default'])).stdout).header).toEqual(['NAME', 'COLOR']);
    expect(parseTable((await second(['get', 'gadgets', '-n', 'default'])).stdout).records).toEqual([{ NAME: 'g1', SIZE: '3' }]);

    const invalid = await withFile(second, ['create', '-n', 'default'], { ...gadget({ size: 'big' }), metadata: { name: 'g2' } }, { reject: false });
    expect(lines(invalid.stderr)).toEqual(['The Gadget "g2" is invalid: spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"']);
    expect((await withFile(root, ['create', '-n', 'default'], { ...gadget({ size: 'big' }), metadata: { name: 'g2' } }, { reject: false })).stderr).toContain('unknown field "spec.size"');

    expect((await root(['explain', 'gadget.spec'])).stdout).toContain('Root color.');
    const secondSpec = (await second(['explain', 'gadget.spec'])).stdout;
    expect(secondSpec).toContain('Second size.');
    expect(secondSpec).not.toContain('color');
  });

  it('deleting the CRD in one cluster leaves the other untouched', async () => {
    const { root, second } = await twoClusters();
    await withFile(root, ['create', '-n', 'default'], gadget({ color: 'red' }));
    await second(['delete', 'crd', `gadgets.${group}`]);
    expectError(await second(['get', 'crd', `gadgets.${group}`], { reject: false }), `Error from server (NotFound): customresourcedefinitions.apiextensions.k8s.io "gadgets.${group}" not found`);
    expect(JSON.parse((await root(['get', 'gadget', 'g1', '-n', 'default', '-o', 'json'])).stdout).spec).toEqual({ color: 'red' });
    expect(lines((await root(['api-resources', `--api-group=${group}`, '-o', 'name'])).stdout)).toEqual([`gadgets.${group}`]);
    expect((await second(['api-resources', `--api-group=${group}`, '-o', 'name'])).stdout).toBe('');
  });
});
