/**
 * Custom resources with the real kubectl (1.32 and 1.33): printer columns, patches (merge, JSON, strategic → 415),
 * kube's 422 texts for invalid objects, unknown fields under Strict and Warn, and schema defaulting on create and on
 * read.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { apiRequest } from '../helpers/http.js';
import { matrixBinaries, uniqueName, type ClusterKubectl } from '../helpers/kubectl.js';
import { expectError, lines, useE2EServer } from '../helpers/suite.js';
import { freshAge, parseTable } from '../helpers/table.js';
import { applyCRD, crdObject, widgetSchema, withFile, type Json } from './crds-fixtures.js';

const e2e = useE2EServer();

const columns = [
  { name: 'Color', type: 'string', jsonPath: '.spec.color' },
  { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
  { name: 'Ratio', type: 'number', jsonPath: '.spec.ratio' },
  { name: 'Ready', type: 'boolean', jsonPath: '.status.ready', priority: 1 },
  { name: 'Missing', type: 'string', jsonPath: '.spec.nothing' },
  { name: 'Born', type: 'date', jsonPath: '.metadata.creationTimestamp' },
];

const schema: Json = structuredClone(widgetSchema);
((schema.properties as Json).spec as { properties: Json }).properties.ratio = { type: 'number' };
((schema.properties as Json).spec as { properties: Json }).properties.nothing = { type: 'string' };
// What controller-gen writes for a metav1.Time field.
((schema.properties as Json).spec as { properties: Json }).properties.lastRun = { type: 'string', format: 'date-time' };
// What `+kubebuilder:validation:Format=email` writes.
((schema.properties as Json).spec as { properties: Json }).properties.owner = { type: 'string', format: 'email' };

describe.each(matrixBinaries())('custom resources with kubectl $version', ({ version, path: binary }) => {
  const k: ClusterKubectl = (args, opts) => e2e.k('root')(args, { ...opts, binary });
  const group = `obj${version.replace('.', '')}.example.com`;
  const ns = uniqueName('crs');
  // Both kubectl versions' groups serve `widgets`: name the group so kubectl does not pick the first one.
  const res = `widgets.${group}`;
  const plain = `plainthings.${group}`;
  const w = (name: string, spec: Json, extra: Json = {}): Json => ({ apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name }, spec, ...extra });
  const create = (obj: Json, opts = {}) => withFile(k, ['create', '-n', ns], obj, opts);
  const getJson = async (name: string) => JSON.parse((await k(['get', res, name, '-n', ns, '-o', 'json'])).stdout);

  beforeAll(async () => {
    await k(['create', 'namespace', ns]);
    await applyCRD(k, crdObject({ group, plural: 'widgets', kind: 'Widget', schema, version: { additionalPrinterColumns: columns, subresources: { status: {} } } }));
    await applyCRD(k, crdObject({ group, plural: 'plainthings', kind: 'PlainThing', schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }));
  }, 90_000);

  it('get prints additionalPrinterColumns with their types; -o wide adds priority columns; missing values are empty cells', async () => {
    await create(w('w1', { color: 'red', replicas: 3, ratio: 0.5 }));
    const table = parseTable((await k(['get', res, '-n', ns])).stdout);
    expect(table.header).toEqual(['NAME', 'COLOR', 'REPLICAS', 'RATIO', 'MISSING', 'BORN']);
    // kube sends a null cell for a path that finds nothing; kubectl prints it empty.
    expect(table.rows[0]?.slice(0, 5)).toEqual(['w1', 'red', '3', '0.5', '']);
    expect(table.rows[0]?.[5]).toMatch(freshAge);
    const wide = parseTable((await k(['get', res, 'w1', '-n', ns, '-o', 'wide'])).stdout);
    expect(wide.header).toEqual(['NAME', 'COLOR', 'REPLICAS', 'RATIO', 'READY', 'MISSING', 'BORN']);
    expect(wide.rows[0]?.slice(0, 6)).toEqual(['w1', 'red', '3', '0.5', '', '']);
    await k(['patch', res, 'w1', '-n', ns, '--subresource=status', '--type', 'merge', '-p', '{"status":{"ready":true}}']);
    expect(parseTable((await k(['get', res, 'w1', '-n', ns, '-o', 'wide'])).stdout).records[0]?.READY).toBe('true');
  });

  it('a CRD without columns prints NAME and AGE; -A adds NAMESPACE', async () => {
    await withFile(k, ['create', '-n', ns], { apiVersion: `${group}/v1`, kind: 'PlainThing', metadata: { name: 'p1' }, anything: { goes: 1 } });
    const table = parseTable((await k(['get', plain, '-n', ns])).stdout);
    expect(table.header).toEqual(['NAME', 'AGE']);
    expect(table.rows[0]?.[0]).toBe('p1');
    const all = parseTable((await k(['get', plain, '-A'])).stdout);
    expect(all.header).toEqual(['NAMESPACE', 'NAME', 'AGE']);
    expect(all.rows.map((r) => r.slice(0, 2))).toContainEqual([ns, 'p1']);
    expect(JSON.parse((await k(['get', plain, 'p1', '-n', ns, '-o', 'json'])).stdout).anything).toEqual({ goes: 1 });
  });

  it('patch --type merge and --type json; the default strategic patch is refused with 415', async () => {
    await create(w('pw', { color: 'red' }));
    expect((await k(['patch', res, 'pw', '-n', ns, '--type', 'merge', '-p', '{"spec":{"color":"blue"}}'])).stdout).toBe(`widget.${group}/pw patched`);
    expect((await k(['patch', res, 'pw', '-n', ns, '--type', 'json', '-p', '[{"op":"replace","path":"/spec/replicas","value":4}]'])).stdout).toBe(
      `widget.${group}/pw patched`,
    );
    expect((await getJson('pw')).spec).toEqual({ color: 'blue', replicas: 4 });
    const strategic = await k(['patch', res, 'pw', '-n', ns, '-p', '{"spec":{"color":"green"}}'], { reject: false });
    expectError(
      strategic,
      `error: application/strategic-merge-patch+json is not supported by ${group}/v1, Kind=Widget: the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml`,
    );
    const invalidPatch = await k(['patch', res, 'pw', '-n', ns, '--type', 'merge', '-p', '{"spec":{"replicas":99}}'], { reject: false });
    expect(lines(invalidPatch.stderr)).toEqual([
      'The Widget "pw" is invalid: spec.replicas: Invalid value: 99: spec.replicas in body should be less than or equal to 10',
    ]);
  });

  it('an invalid object gets kube 422 texts with field paths and causes', async () => {
    const bad = w('bad', {
      color: 'purple', replicas: 11, size: 'big', tags: ['a', 'a'], port: 1.5, template: { spec: {} },
      ports: [{ name: 'http', port: 80 }, { name: 'http', port: 81 }],
    });
    const result = await create(bad, { reject: false });
    expect(result.exitCode).not.toBe(0);
    const [first, ...causes] = lines(result.stderr);
    expect(first).toBe('The Widget "bad" is invalid:');
    // kube-openapi walks properties in Go map order: the set of causes is fixed, their order is not.
    expect(causes.sort()).toEqual([
      '* spec.color: Unsupported value: "purple": supported values: "red", "green", "blue"',
      '* spec.port: Invalid value: "number": spec.port in body must be of type integer,string: "number"',
      '* spec.ports[1]: Duplicate value: map[string]interface {}{"name":"http"}',
      '* spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10',
      "* spec.size: Invalid value: \"big\": spec.size in body should match '^[0-9]+(cm|m)$'",
      '* spec.tags[1]: Duplicate value: "a"',
      '* spec.template.apiVersion: Required value: must not be empty',
      '* spec.template.kind: Required value: must not be empty',
    ]);
    expectError(await create(w('nocolor', { replicas: 'x' }), { reject: false }), 'The Widget "nocolor" is invalid:');
    const answer = await apiRequest(e2e.server, `/clusters/root/apis/${group}/v1/namespaces/${ns}/widgets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(w('nocolor', { replicas: 'x' })),
    });
    expect(answer.status).toBe(422);
    expect(answer.json()).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Invalid',
      code: 422,
      message: `Widget.${group} "nocolor" is invalid: [spec.color: Required value, spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"]`,
      details: {
        name: 'nocolor',
        group,
        kind: 'Widget',
        causes: [
          { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.color' },
          { reason: 'FieldValueTypeInvalid', message: 'Invalid value: "string": spec.replicas in body must be of type integer: "string"', field: 'spec.replicas' },
        ],
      },
    });
    // A string format kube checks (a Go client could not decode this into metav1.Time); a valid one passes.
    expectError(
      await create(w('late', { color: 'red', lastRun: 'yesterday' }), { reject: false }),
      'The Widget "late" is invalid: spec.lastRun: Invalid value: "yesterday": spec.lastRun in body must be of type date-time: "yesterday"',
    );
    expect((await create(w('on-time', { color: 'red', lastRun: '2026-11-29T19:00:00Z' }))).stdout).toBe(`widget.${group}/on-time created`);
    expectError(
      await create(w('owned', { color: 'red', owner: 'ops at example.com' }), { reject: false }),
      'The Widget "owned" is invalid: spec.owner: Invalid value: "ops at example.com": spec.owner in body must be of type email: "ops at example.com"',
    );
    expect((await create(w('owned', { color: 'red', owner: 'Ops <ops@example.com>' }))).stdout).toBe(`widget.${group}/owned created`);
    // int-or-string takes both shapes
    expect((await create(w('port-int', { color: 'red', port: 8080 }))).stdout).toBe(`widget.${group}/port-int created`);
    expect((await create(w('port-str', { color: 'red', port: 'http' }))).stdout).toBe(`widget.${group}/port-str created`);
  });

  it('unknown fields: create (Strict) fails with the strict-decoding message; --validate=warn warns and prunes', async () => {
    const withFoo = w('strict', { color: 'red', foo: 1 }, {});
    (withFoo.metadata as Json).bar = 'x';
    expectError(
      await create(withFoo, { reject: false }),
      /^Error from server \(BadRequest\): error when creating ".*object\.yaml": Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "(metadata\.bar|spec\.foo)", unknown field "(metadata\.bar|spec\.foo)"$/,
    );
    const warned = await withFile(k, ['create', '-n', ns, '--validate=warn'], withFoo);
    expect(warned.stdout).toBe(`widget.${group}/strict created`);
    expect(lines(warned.stderr).sort()).toEqual(['Warning: unknown field "metadata.bar"', 'Warning: unknown field "spec.foo"']);
    const stored = await getJson('strict');
    expect(stored.spec).toEqual({ color: 'red', replicas: 1 });
    expect(stored.metadata.bar).toBeUndefined();
  });

  it('null metadata fields come back as Go\'s ObjectMeta leaves them (kube round-trips a custom resource\'s metadata): gone', async () => {
    const body = w('null-meta', { color: 'red' });
    Object.assign(body.metadata as Json, { labels: null, finalizers: null, generateName: null, ownerReferences: null });
    const created = await apiRequest(e2e.server, `/clusters/root/apis/${group}/v1/namespaces/${ns}/widgets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(created.status).toBe(201);
    for (const field of ['labels', 'finalizers', 'generateName', 'ownerReferences']) expect(created.json().metadata).not.toHaveProperty(field);
    expect((await getJson('null-meta')).metadata).not.toHaveProperty('labels');
  });

  it('defaults from the schema apply on create and to objects stored before the default existed', async () => {
    await create(w('d1', { color: 'green' }));
    expect((await getJson('d1')).spec).toEqual({ color: 'green', replicas: 1 });
    const withShape: Json = structuredClone(schema);
    ((withShape.properties as Json).spec as { properties: Json }).properties.shape = { type: 'string', default: 'round' };
    await applyCRD(k, crdObject({ group, plural: 'widgets', kind: 'Widget', schema: withShape, version: { additionalPrinterColumns: columns, subresources: { status: {} } } }));
    expect((await getJson('d1')).spec).toEqual({ color: 'green', replicas: 1, shape: 'round' });
    expect(JSON.parse((await k(['get', res, '-n', ns, '-o', 'json'])).stdout).items.find((i: Json) => (i.metadata as Json).name === 'd1').spec.shape).toBe('round');
    await applyCRD(k, crdObject({ group, plural: 'widgets', kind: 'Widget', schema, version: { additionalPrinterColumns: columns, subresources: { status: {} } } }));
    expect((await getJson('d1')).spec).toEqual({ color: 'green', replicas: 1 });
  });
});
